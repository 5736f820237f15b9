"""Cypher the LoCoMo benchmark reads for scoring (parameters only)."""

EPISODE_SOURCES = """
MATCH (e:ConsolidatedEpisode {learner_id: $learner_id})
RETURN e.id AS id, coalesce(e.message_ids, []) AS message_ids
"""
"""The learner's consolidated episodes and the messages each one folds (``agent.memory.episodes``)."""
KEPT_ITEMS = """
MATCH (m:Message {learner_id: $learner_id})
RETURN m.id AS id, 'message' AS what, m.session_id AS session_id
UNION ALL
MATCH (t:Memory {learner_id: $learner_id}) WHERE t.kind = $turn_kind
RETURN t.id AS id, 'turn_context' AS what, t.session_id AS session_id
UNION ALL
MATCH (s:SessionSummary {learner_id: $learner_id})
RETURN s.id AS id, 'summary' AS what, s.session_id AS session_id
"""
"""What a kept learner holds that scoring maps to turns: messages, turn contexts, session summaries."""
