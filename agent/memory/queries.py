"""Cypher for the memory stores: archival, recall (episodic), core memory and erasure.

The cognitive stores (facts, procedures, reminders) have theirs in ``cognitive_queries``.

Parameters only; no user text or identifier is ever formatted in.
"""

# ----- archival (``agent.memory.archival``) -----

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
"""Store a batch of memories in order under the learner's lock; one row per stored item."""
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
  OPTIONAL MATCH (msg:Message {id: mid})
  WHERE msg.learner_id = $learner_id
  FOREACH (_ IN CASE WHEN msg IS NULL THEN [] ELSE [1] END | MERGE (s)-[:SUMMARIZES]->(msg))
  RETURN count(msg) AS summarized, collect(CASE WHEN msg IS NULL THEN mid END) AS pending
}
SET s.pending_message_ids = CASE WHEN size(pending) = 0 THEN null ELSE pending END
WITH s, created, summarized
CALL (s) {
  OPTIONAL MATCH (p:SessionSummary {id: $previous_id})
  WHERE p.learner_id = $learner_id AND p <> s
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (s)-[:FOLDS]->(p))
  RETURN count(p) AS folded
}
RETURN s.id AS id, created, summarized, folded
"""
"""Store a session summary, link the messages it summarises and the summary it folds.

Messages the kernel worker has not committed yet stay in ``pending_message_ids``; the
worker links them when it commits them (``LINK_PENDING_SUMMARIES``). Both queries take the
learner's node lock first, so a message commits either before the summary reads it or
before its own link step looks for pending summaries.
"""
LINK_PENDING_SUMMARIES = """
MATCH (:Learner {id: $learner_id})-[:HAS_SUMMARY]->(s:SessionSummary)
WHERE s.pending_message_ids IS NOT NULL
WITH s, [mid IN s.pending_message_ids WHERE mid IN $ids] AS due
WHERE size(due) > 0
CALL (s, due) {
  UNWIND due AS mid
  MATCH (m:Message {id: mid})
  WHERE m.learner_id = $learner_id
  MERGE (s)-[:SUMMARIZES]->(m)
  RETURN collect(mid) AS linked
}
WITH s, [mid IN s.pending_message_ids WHERE NOT mid IN linked] AS rest
SET s.pending_message_ids = CASE WHEN size(rest) = 0 THEN null ELSE rest END
RETURN count(s) AS summaries
"""
"""Link summaries written before the kernel committed the messages they summarise."""

# ----- recall (``agent.memory.recall``) -----

EXISTING_MESSAGES = """
UNWIND $ids AS id
MATCH (m:Message {id: id})
RETURN m.id AS id, m.learner_id AS owner
"""
"""Owners of the messages with ``$ids`` that already exist."""
LOCK_LEARNER = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $now
SET l.last_message_write = $now
RETURN coalesce(l.message_seq, 0) AS base
"""
"""Take the learner's write lock (creating the node) and read its message ``seq`` base."""
CREATE_MESSAGES = """
MATCH (l:Learner {id: $learner_id})
SET l.message_seq = $new_base
WITH l
UNWIND $rows AS row
MERGE (m:Message {id: row.id})
  ON CREATE SET m += row
MERGE (l)-[:SAID]->(m)
RETURN count(m) AS created
"""
"""Create the rows as messages said by the learner and move its ``seq`` base."""
# Relink the session's chain from the first new message on (usually just appends).
RELINK_CHAIN = """
MATCH (m:Message {learner_id: $learner_id, session_id: $session_id})
WHERE m.seq >= $from_seq
WITH m ORDER BY m.seq ASC
WITH collect(m) AS tail
CALL () {
  MATCH (p:Message {learner_id: $learner_id, session_id: $session_id})
  WHERE p.seq < $from_seq
  WITH p ORDER BY p.seq DESC LIMIT 1
  RETURN collect(p) AS prev
}
WITH prev + tail AS chain
CALL (chain) {
  UNWIND chain AS c
  MATCH (c)-[r:NEXT]->()
  DELETE r
}
WITH chain
UNWIND range(0, size(chain) - 2) AS i
WITH chain[i] AS a, chain[i + 1] AS b
MERGE (a)-[:NEXT]->(b)
RETURN count(*) AS links
"""
"""Rebuild a session's ``NEXT`` chain from ``$from_seq`` on."""
COUNT_MESSAGES = "MATCH (m:Message {learner_id: $learner_id}) RETURN count(m) AS n"
"""How many messages the learner has."""
GET_MESSAGES = """
UNWIND $ids AS id
MATCH (m:Message {id: id})
WHERE m.learner_id = $learner_id
RETURN m.id AS id, m.role AS role, m.content AS content, m.created_at AS created_at,
       m.seq AS seq, m.session_id AS session_id, m.metadata_json AS metadata_json
"""
"""The learner's messages with ``$ids``."""
SESSION_MESSAGES = """
MATCH (m:Message {learner_id: $learner_id, session_id: $session_id})
RETURN m.id AS id, m.role AS role, m.content AS content
ORDER BY m.seq
LIMIT $limit
"""
"""A session's messages in ``seq`` order, at most ``$limit``."""

# ----- erasure (``agent.memory.erasure``) -----

DELETE_MEMORIES = "MATCH (n:Memory {learner_id: $learner_id}) DETACH DELETE n"
"""Erasure: the learner's memories and summaries."""
DELETE_MESSAGES = "MATCH (n:Message {learner_id: $learner_id}) DETACH DELETE n"
"""Erasure: the learner's messages."""
DELETE_SENTENCES = "MATCH (n:TurnSentence {learner_id: $learner_id}) DETACH DELETE n"
"""Erasure: the learner's turn sentences (``agent.kernel.sentences``)."""
DELETE_LEARNER = "MATCH (n:Learner {id: $learner_id}) DETACH DELETE n"
"""Erasure: the ``Learner`` node."""
COUNT_OWNED = """
MATCH (n) WHERE (n:Memory OR n:Message OR n:Note OR n:Reminder OR n:SensoryTrace OR n:TurnSentence)
  AND n.learner_id = $learner_id
RETURN count(n) AS owned
"""
"""What the learner still owns: memories, messages, notes, reminders, traces, sentences (0 after erasure)."""

# ----- core memory, durable copy (``agent.memory.core``) -----

# One ``CoreSection`` per learner and section, keyed ``id = learner_id + "/" + name``.
# ``version`` is the Redis server time (µs) of the Lua write that produced ``text``, so a
# late or replayed write never overwrites a newer one.
WRITE_CORE_SECTION = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $now
WITH l
MERGE (s:CoreSection {id: $id})
  ON CREATE SET s.learner_id = $learner_id, s.name = $name, s.version = -1
WITH l, s
WHERE s.learner_id = $learner_id AND s.version <= $version
SET s.text = $text, s.version = $version, s.updated_at = $now
MERGE (l)-[:HAS_CORE]->(s)
RETURN s.version AS version
"""
"""Write one core memory section through to Neo4j unless a newer version is stored."""
READ_CORE_SECTIONS = """
MATCH (:Learner {id: $learner_id})-[:HAS_CORE]->(s:CoreSection)
WHERE s.learner_id = $learner_id
RETURN s.name AS name, s.text AS text
"""
"""The learner's durable core memory sections."""
DELETE_CORE_SECTIONS = "MATCH (n:CoreSection {learner_id: $learner_id}) DETACH DELETE n"
"""Erasure: the learner's durable core memory."""


# ----- episodes (``agent.memory.episodes``, ``agent.memory.sensory`` promotion) -----

# Schema owned by the episodic layer (``EPISODE_SCHEMA_KEY``): trace ids are unique, the
# timeline seeks messages and memories by (learner, time), and consolidation finds the
# learner's unconsolidated messages above a watermark by (learner, seq).
EPISODE_SCHEMA = (
    "CREATE CONSTRAINT sensory_trace_id_unique IF NOT EXISTS FOR (n:SensoryTrace) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX sensory_trace_learner IF NOT EXISTS FOR (n:SensoryTrace) ON (n.learner_id)",
    "CREATE INDEX message_learner_created IF NOT EXISTS FOR (n:Message) ON (n.learner_id, n.created_at)",
    "CREATE INDEX message_learner_seq IF NOT EXISTS FOR (n:Message) ON (n.learner_id, n.seq)",
    "CREATE INDEX memory_learner_created IF NOT EXISTS FOR (n:Memory) ON (n.learner_id, n.created_at)",
)
"""Constraints and range indexes of the episodic layer (idempotent DDL)."""
# ``CREATE_MESSAGES`` plus the promotion of attended sensory items, in one statement, so
# logging a turn that attended to something costs no extra round trip.
CREATE_MESSAGES_ATTENDED = """
MATCH (l:Learner {id: $learner_id})
SET l.message_seq = $new_base
WITH l
UNWIND $rows AS row
MERGE (m:Message {id: row.id})
  ON CREATE SET m += row
MERGE (l)-[:SAID]->(m)
WITH l, count(m) AS created
CALL (l) {
  UNWIND $links AS link
  MATCH (m:Message {id: link.message_id})
  WHERE m.learner_id = $learner_id
  MERGE (s:SensoryTrace {id: link.id})
    ON CREATE SET s.learner_id = $learner_id, s.kind = link.kind,
                  s.captured_at = link.captured_at, s.attended_at = $now
  WITH l, m, s
  WHERE s.learner_id = $learner_id
  MERGE (l)-[:HAS_SENSORY_TRACE]->(s)
  MERGE (m)-[:ATTENDED_TO]->(s)
  RETURN count(s) AS linked
}
RETURN created, linked
"""
"""Create messages (as ``CREATE_MESSAGES``) and link each to the sensory traces it attended to."""
DUE_EPISODES = """
MATCH (l:Learner {id: $learner_id})
WITH coalesce(l.episode_seq, 0) AS mark
MATCH (m:Message {learner_id: $learner_id})
WHERE m.seq > mark AND m.role = 'user' AND NOT coalesce(m.compressed, false)
RETURN m.id AS id, m.content AS content, m.created_at AS created_at,
       m.session_id AS session_id, m.seq AS seq
ORDER BY m.seq ASC
LIMIT $limit
"""
"""The learner's oldest unconsolidated learner messages (role user) above the watermark."""
# Under the learner's lock: only if every message is still unconsolidated (a concurrent or
# repeated run finds them compressed and writes nothing).
LOCK_FOR_CONSOLIDATION = """
MATCH (l:Learner {id: $learner_id})
SET l.last_memory_write = $now
RETURN l.id AS id
"""
"""Take the learner's write lock in a statement of its own, so the consolidation's
checks read what a concurrent run committed while this one waited."""
WRITE_CONSOLIDATION = """
MATCH (l:Learner {id: $learner_id})
SET l.last_memory_write = $props.created_at
WITH l
CALL (l) {
  UNWIND $message_ids AS mid
  MATCH (m:Message {id: mid})
  WHERE m.learner_id = $learner_id AND NOT coalesce(m.compressed, false)
  RETURN count(m) AS free
}
WITH l, free
WHERE free = size($message_ids)
SET l.memory_seq = coalesce(l.memory_seq, 0) + 1,
    l.episode_seq = CASE WHEN coalesce(l.episode_seq, 0) > $last_seq
                         THEN l.episode_seq ELSE $last_seq END
MERGE (e:Memory {id: $id})
  ON CREATE SET e:ConsolidatedEpisode, e += $props, e.seq = l.memory_seq
MERGE (l)-[:HAS_MEMORY]->(e)
WITH e
UNWIND $message_ids AS mid
MATCH (m:Message {id: mid})
WHERE m.learner_id = $learner_id
SET m.compressed = true
MERGE (e)-[:CONSOLIDATES]->(m)
RETURN e.id AS id, e.seq AS seq, count(m) AS consolidated
"""
"""Store one consolidation, link it to its originals and flag them ``compressed``."""
HAS_EPISODES = """
MATCH (l:Learner {id: $learner_id})
RETURN l.episode_seq IS NOT NULL AS any
"""
"""Whether the learner has any consolidated episode (recall search merges them only then)."""
CONSOLIDATED_IN = """
UNWIND $ids AS id
MATCH (e:ConsolidatedEpisode)-[:CONSOLIDATES]->(m:Message {id: id})
WHERE m.learner_id = $learner_id AND e.learner_id = $learner_id
RETURN m.id AS id, collect(e.id) AS episodes
"""
"""For messages among ``$ids``, the consolidations that hold them."""
TIMELINE_TEMPLATE = """
CALL () {
  MATCH (m:Message {learner_id: $learner_id})
  WHERE m.created_at >= $since AND m.created_at <= $until
  RETURN m.id AS id, 'message' AS kind, m.content AS text, m.created_at AS at,
         m.role AS role, m.session_id AS session_id, coalesce(m.compressed, false) AS compressed,
         null AS valid_from, null AS valid_to, null AS session_ids, m.seq AS seq
  UNION ALL
  MATCH (s:Memory {learner_id: $learner_id})
  WHERE (s:SessionSummary OR s:ConsolidatedEpisode)
    AND coalesce(s.valid_to, s.created_at) >= $since
    AND coalesce(s.valid_from, s.created_at) <= $until
  RETURN s.id AS id, CASE WHEN s:ConsolidatedEpisode THEN 'episode' ELSE 'summary' END AS kind,
         s.text AS text, coalesce(s.valid_from, s.created_at) AS at, null AS role,
         s.session_id AS session_id, false AS compressed, s.valid_from AS valid_from,
         s.valid_to AS valid_to, s.session_ids AS session_ids, s.seq AS seq
}
RETURN id, kind, text, at, role, session_id, compressed, valid_from, valid_to, session_ids
ORDER BY at {order}, kind {order}, seq {order}
LIMIT $limit
"""
TIMELINE = {order: TIMELINE_TEMPLATE.replace("{order}", order) for order in ("ASC", "DESC")}
"""The learner's messages, summaries and consolidated episodes in a time window, by time."""
DELETE_SENSORY_TRACES = "MATCH (n:SensoryTrace {learner_id: $learner_id}) DETACH DELETE n"
"""Erasure: the learner's promoted sensory traces."""
