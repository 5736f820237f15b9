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

UNFLAGGED_TURN_CONTEXTS = """
MATCH (m:Memory)
WHERE m.kind = $kind AND m.disclosure IS NULL AND ($learner_id IS NULL OR m.learner_id = $learner_id)
RETURN m.id AS id, m.learner_id AS learner_id, m.text AS text
LIMIT $limit
"""
"""Turn contexts derived before the ``disclosure`` flag existed (of one learner, or of all)."""

SET_DISCLOSURE = """
UNWIND $rows AS row
MATCH (m:Memory {id: row.id})
WHERE m.learner_id = row.learner_id AND m.kind = $kind AND m.disclosure IS NULL
SET m.disclosure = row.disclosure
RETURN count(m) AS flagged
"""
"""Set the flag on those turn contexts (each still its learner's, still unflagged)."""
