"""Cypher the LoCoMo benchmark reads for scoring (parameters only)."""

EPISODE_SOURCES = """
MATCH (e:ConsolidatedEpisode {learner_id: $learner_id})
RETURN e.id AS id, coalesce(e.message_ids, []) AS message_ids
"""
"""The learner's consolidated episodes and the messages each one folds (``agent.memory.episodes``)."""
