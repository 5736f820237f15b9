"""Cypher for the archival store (parameters only; no user text is ever formatted in)."""

# A write to the learner node takes its lock first, so ``memory_seq`` is monotonic. One
# query stores a batch: the subquery runs row by row, so each row sees the previous seq.
# A row whose id belongs to another learner returns nothing (the caller reports it).
INSERT_MEMORIES = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $created_at
SET l.last_memory_write = $created_at
WITH l
UNWIND range(0, size($rows) - 1) AS i
CALL (l, i) {
  WITH l, $rows[i] AS row
  OPTIONAL MATCH (old:Memory {id: row.id})
  WITH l, row, old IS NULL AS created
  SET l.memory_seq = coalesce(l.memory_seq, 0) + CASE WHEN created THEN 1 ELSE 0 END
  WITH l, row, created
  MERGE (m:Memory {id: row.id})
    ON CREATE SET m += row.props, m.seq = l.memory_seq
  WITH l, m, row, created
  WHERE m.learner_id = $learner_id
  MERGE (l)-[:HAS_MEMORY]->(m)
  WITH m, row, created
  CALL (m, row) {
    UNWIND row.source_ids AS sid
    OPTIONAL MATCH (msg:Message {id: sid})
    OPTIONAL MATCH (mem:Memory {id: sid})
    WITH coalesce(msg, mem) AS src
    WHERE src IS NOT NULL AND src.learner_id = $learner_id AND src <> m
    MERGE (m)-[:DERIVED_FROM]->(src)
    RETURN count(src) AS linked
  }
  RETURN m.seq AS seq, m.created_at AS created_at, created, linked
}
RETURN i, seq, created_at, created, linked
ORDER BY i
"""
WRITE_SUMMARY = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $props.created_at
SET l.last_memory_write = $props.created_at
WITH l
OPTIONAL MATCH (old:Memory {id: $id})
WITH l, old IS NULL AS created
SET l.memory_seq = coalesce(l.memory_seq, 0) + CASE WHEN created THEN 1 ELSE 0 END
WITH l, created
MERGE (s:Memory {id: $id})
  ON CREATE SET s:SessionSummary, s += $props, s.seq = l.memory_seq
WITH l, s, created
WHERE s.learner_id = $learner_id AND s:SessionSummary
MERGE (l)-[:HAS_SUMMARY]->(s)
WITH s, created
CALL (s) {
  UNWIND $message_ids AS mid
  MATCH (msg:Message {id: mid})
  WHERE msg.learner_id = $learner_id
  MERGE (s)-[:SUMMARIZES]->(msg)
  RETURN count(msg) AS summarized
}
CALL (s) {
  OPTIONAL MATCH (p:SessionSummary {id: $previous_id})
  WHERE p.learner_id = $learner_id AND p <> s
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (s)-[:FOLDS]->(p))
  RETURN count(p) AS folded
}
RETURN s.id AS id, created, summarized, folded
"""
