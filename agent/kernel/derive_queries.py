"""Cypher for the kernel's write-time derivations (``agent.kernel.derive``); parameters only."""

PREVIOUS_MESSAGES = """
MATCH (cur:Message {id: $message_id})
WHERE cur.learner_id = $learner_id AND cur.seq IS NOT NULL
MATCH (m:Message {learner_id: $learner_id, session_id: cur.session_id})
WHERE m.seq < cur.seq AND m.role IN $roles
RETURN m.id AS id, m.role AS role, m.content AS content, m.seq AS seq
ORDER BY m.seq DESC
LIMIT $limit
"""
"""The learner's messages of ``$message_id``'s session just before it (newest first, ``$roles`` only)."""
