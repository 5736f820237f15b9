"""Cypher for the kernel's write-time derivations (``agent.kernel.derive``, ``agent.kernel.sentences``).

Parameters only.
"""

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

WRITE_SENTENCES = """
UNWIND $turns AS turn
MATCH (m:Memory {id: turn.id})
WHERE m.learner_id = $learner_id
SET m.sentences = size(turn.rows)
WITH turn
UNWIND turn.rows AS row
MERGE (s:TurnSentence {id: row.id})
  ON CREATE SET s.learner_id = $learner_id, s.text = row.text, s.embedding = row.embedding,
    s.embedding_model = row.embedding_model, s.session_id = row.session_id,
    s.disclosure = row.disclosure, s.occurred_at = row.occurred_at
RETURN count(CASE WHEN s.learner_id = $learner_id THEN 1 END) AS written
"""
"""The sentences of the learner's turn contexts (``agent.kernel.sentences``), each once (ids come
from the turn context's id, so a redelivered batch creates nothing), and on each turn context
how many it has (``sentences``: 0 too, so a backfill never reads it again). A turn context that
is not in Neo4j yet (parked) gets neither: its replay marks the learner again
(``MemoryStores.wire``'s ``archival.insert`` hook), and the idle pass derives them then."""
TURN_CONTEXTS_WITHOUT_SENTENCES = """
MATCH (m:Memory)
WHERE m.kind = $kind AND m.sentences IS NULL AND ($learner_id IS NULL OR m.learner_id = $learner_id)
WITH m LIMIT $limit
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(msg:Message)
WHERE msg.learner_id = m.learner_id
WITH m, head(collect(msg)) AS msg
RETURN m.id AS id, m.learner_id AS learner_id, m.session_id AS session_id, m.disclosure AS disclosure,
  m.occurred_at AS occurred_at, m.text AS text, msg.content AS content,
  msg.embedding AS content_embedding, msg.embedding_model AS content_model
"""
"""Turn contexts not split yet (one learner's, or all), with their message's text and its vector
(a one-sentence turn's sentence is the message's text: its vector is reused, not encoded again)."""
