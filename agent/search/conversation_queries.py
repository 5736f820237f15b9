"""Cypher for the default conversation search (``agent.search.conversation``); parameters only."""

TURN_MESSAGES = """
UNWIND $ids AS id
MATCH (c:Memory {id: id})-[:DERIVED_FROM]->(m:Message)
WHERE c.learner_id = $learner_id AND m.learner_id = $learner_id
RETURN c.id AS context_id, m.id AS id, m.content AS text, m.created_at AS created_at,
       m.role AS role, m.session_id AS session_id, m.seq AS seq
"""
"""The message each of the learner's turn contexts ``$ids`` was derived from."""
