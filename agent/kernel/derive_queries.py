"""Cypher for the kernel's write-time derivations (``agent.kernel.derive``); parameters only."""

PREVIOUS_MESSAGES = """
UNWIND range(0, size($message_ids) - 1) AS i
CALL (i) {
  MATCH (cur:Message {id: $message_ids[i]})
  WHERE cur.learner_id = $learner_id AND cur.seq IS NOT NULL
  MATCH (m:Message {learner_id: $learner_id, session_id: cur.session_id})
  WHERE m.seq < cur.seq AND m.role IN $roles
  RETURN m.id AS id, m.role AS role, m.content AS content, m.seq AS seq
  ORDER BY m.seq DESC
  LIMIT $limit
}
RETURN i, id, role, content, seq
ORDER BY i, seq DESC
"""
"""For each of ``$message_ids`` (index ``i``): the learner's messages of its session just before it
(newest first, ``$roles`` only, at most ``$limit``). One round trip for a whole recall run."""
