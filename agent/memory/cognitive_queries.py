"""Cypher for the cognitive memory stores: facts (semantic), procedures, reminders (prospective).

Parameters only; no user text is ever formatted in. Index and label names that
are formatted in are this module's own constants (``FACT_VALID``), never input.
"""

# ----- facts -----
# ``agent.memory.facts``: bi-temporal facts, ``(:Learner)-[:HAS_MEMORY]->(:Memory:Fact)``.
# ``FACT_VALID`` is our own constant, formatted into the read queries below; it keeps a
# fact when it is current (``valid_to IS NULL``), or ``$history`` asks for every version,
# and, given ``$as_of``, only versions valid at that instant (``valid_from <= as_of <
# valid_to``; ``$history`` with ``$as_of``: every version begun by then).

FACT_VALID = """
node.kind = 'fact'
AND ($as_of IS NULL OR datetime(node.valid_from) <= datetime($as_of))
AND ($history OR node.valid_to IS NULL
     OR ($as_of IS NOT NULL AND datetime(node.valid_to) > datetime($as_of)))
"""
FACT_INDEXES = (
    "CREATE INDEX fact_slot IF NOT EXISTS FOR (n:Fact) ON (n.learner_id, n.subject, n.predicate)",
)
"""Facts' own index (``ensure_schema`` key ``facts``): the slot lookup of every write."""
FACT_LOCK = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $now
SET l.last_fact_write = $now
RETURN l.id AS id
"""
"""Take the learner's write lock (creating the node): fact writes of one learner serialise."""
FACT_OWNER = "MATCH (f:Memory {id: $id}) RETURN f.learner_id AS owner"
"""Who owns the memory with ``$id`` (idempotent replays, foreign ids)."""
FACT_CURRENT = """
MATCH (:Learner {id: $learner_id})-[:HAS_MEMORY]->(f:Fact)
WHERE f.learner_id = $learner_id AND f.predicate = $predicate AND f.valid_to IS NULL
RETURN f.id AS id, f.subject AS subject, f.text AS text, f.norm AS norm, f.valid_from AS valid_from
"""
"""The learner's current facts with ``$predicate`` (the slot and ``replaced_values`` candidates)."""
FACT_CLOSEST = """
MATCH (:Learner {id: $learner_id})-[:HAS_MEMORY]->(f:Fact)
WHERE f.learner_id = $learner_id AND f.valid_to IS NULL AND f.embedding IS NOT NULL
  AND f.embedding_model = $model
RETURN f.id AS id, f.subject AS subject, f.predicate AS predicate, f.text AS text, f.valid_from AS valid_from,
       2 * vector.similarity.cosine(f.embedding, $embedding) - 1 AS score
ORDER BY score DESC LIMIT $top
"""
"""The learner's current facts closest to ``$embedding`` (cosine in [-1, 1]; Neo4j's function maps
it to [0, 1]): what a statement outside the known slots may give a new value to
(``agent.memory.fact_changes.changed_fact``)."""
FACT_VECTORS = """
UNWIND $ids AS fid
MATCH (f:Fact {id: fid}) WHERE f.learner_id = $learner_id AND f.embedding_model = $model
RETURN f.id AS id, f.embedding AS embedding
"""
"""The stored vectors of the learner's facts ``$ids`` embedded with ``$model`` (the read-time net
compares them, ``agent.memory.fact_order.newest_first``)."""
FACT_CHAIN_VECTORS = """
UNWIND $ids AS fid
MATCH (f:Fact {id: fid})-[:SUPERSEDES*1..12]->(o:Fact)
WHERE f.learner_id = $learner_id AND o.learner_id = $learner_id AND o.embedding_model = $model
RETURN fid AS id, collect(o.embedding) AS embeddings
"""
"""The stored vectors of the versions each of the learner's facts ``$ids`` closed, its chain of
updates back to the first (``agent.memory.fact_reads``: an update answers what its first version did)."""
FACT_CREATE = """
MATCH (l:Learner {id: $learner_id})
MERGE (f:Memory {id: $id})
  ON CREATE SET f += $props
SET f:Fact
MERGE (l)-[:HAS_MEMORY]->(f)
RETURN f.id AS id
"""
"""Create the fact (MERGE on id: replays create nothing new)."""
FACT_RETIRE = """
MATCH (f:Fact {id: $id}) WHERE f.learner_id = $learner_id
UNWIND $old_ids AS old_id
MATCH (o:Fact {id: old_id})
WHERE o.learner_id = $learner_id AND o.valid_to IS NULL AND o.id <> f.id
SET o.valid_to = $valid_from, o.superseded_at = $recorded_at
MERGE (f)-[:SUPERSEDES]->(o)
RETURN o.id AS id
"""
"""Close the validity of ``$old_ids`` at ``$valid_from`` and link ``(new)-[:SUPERSEDES]->(old)``."""
FACT_CLOSE_BACKDATED = """
MATCH (f:Fact {id: $id}), (n:Fact {id: $newer_id})
WHERE f.learner_id = $learner_id AND n.learner_id = $learner_id
SET f.valid_to = n.valid_from
MERGE (n)-[:SUPERSEDES]->(f)
RETURN f.id AS id
"""
"""A back-dated fact is already superseded by the newer current fact of its slot."""
FACT_LINK_EPISODE = """
MATCH (f:Fact {id: $id}) WHERE f.learner_id = $learner_id
MATCH (m:Message {id: $episode_id}) WHERE m.learner_id = $learner_id
MERGE (f)-[:DERIVES_FROM]->(m)
RETURN count(m) AS linked
"""
"""``(:Fact)-[:DERIVES_FROM]->(:Message)``: the episode the fact came from (same learner only)."""
FACT_LINK_SIMILAR = """
MATCH (f:Fact {id: $id}) WHERE f.learner_id = $learner_id
MATCH (o:Fact {learner_id: $learner_id})
WHERE o.id <> f.id AND o.embedding IS NOT NULL AND size(o.embedding) = size(f.embedding)
WITH f, o, 2 * vector.similarity.cosine(f.embedding, o.embedding) - 1 AS cosine
WHERE cosine >= $threshold
WITH f, o, cosine ORDER BY cosine DESC LIMIT $top
MERGE (f)-[r:SIMILAR_TO]->(o)
SET r.score = cosine
RETURN o.id AS id, cosine
"""
"""``SIMILAR_TO`` to the learner's ``$top`` most similar facts (raw cosine >= ``$threshold``;
Neo4j's ``vector.similarity.cosine`` is ``(1 + cos) / 2``, hence ``2 s - 1``)."""
FACT_EXACT = f"""
MATCH (:Learner {{id: $learner_id}})-[:HAS_MEMORY]->(node:Fact)
WHERE node.learner_id = $learner_id AND {FACT_VALID}
  AND node.embedding IS NOT NULL AND size(node.embedding) = size($embedding)
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $limit
"""
"""Exact cosine scan of the learner's facts (when the global vector top-k is short)."""
FACT_PROBE = f"""
CALL () {{
  MATCH (:Learner {{id: $learner_id}})-[:HAS_MEMORY]->(node:Fact)
  WHERE node.learner_id = $learner_id AND {FACT_VALID}
    AND node.embedding IS NOT NULL AND size(node.embedding) = size($embedding)
  WITH node LIMIT $limit
  RETURN collect({{id: node.id, score: vector.similarity.cosine(node.embedding, $embedding)}}) AS few
}}
OPTIONAL CALL (few) {{
  WITH few WHERE size(few) >= $limit
  CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score
  WITH node, score WHERE node.learner_id = $learner_id AND {FACT_VALID}
  WITH node, score ORDER BY score DESC LIMIT $limit
  RETURN collect({{id: node.id, score: score}}) AS indexed
}}
RETURN size(few) AS candidates, few, indexed
"""
"""``FACT_EXACT``'s candidates (the first ``$limit`` found, with their cosine: fewer means all
of them) and, only when that is full, the vector index's top ``$k`` of the learner's valid
facts: one round trip for a learner with few facts (``PROBE_TEMPLATE`` of search, for facts;
read with ``agent.search.probe.probe_choice``)."""
FACT_FULLTEXT = f"""
CALL db.index.fulltext.queryNodes($index, $lucene, {{limit: $k}}) YIELD node, score
WITH node, score
WHERE node.learner_id = $learner_id AND {FACT_VALID}
RETURN node.id AS id, score
ORDER BY score DESC, node.seq, node.id LIMIT $limit
"""
"""Full-text top-k (Lucene scoped by learner key) of the learner's facts valid as asked (ties
in the learner's order)."""
FACT_RECENT = f"""
MATCH (:Learner {{id: $learner_id}})-[:HAS_MEMORY]->(node:Fact)
WHERE node.learner_id = $learner_id AND {FACT_VALID}
RETURN node.id AS id, 1.0 AS score
ORDER BY node.valid_from DESC LIMIT $limit
"""
"""The learner's facts newest first (a query with nothing to match on)."""
FACT_FIELDS = """
f.id AS id, f.text AS text, f.subject AS subject, f.predicate AS predicate,
f.concept AS concept, f.confidence AS confidence, f.source AS source,
f.valid_from AS valid_from, f.valid_to AS valid_to, f.recorded_at AS recorded_at,
f.activation AS activation, f.last_access AS last_access,
coalesce(f.access_count, 0) AS access_count,
[(f)-[:SUPERSEDES]->(o:Fact) WHERE o.learner_id = $learner_id | o.id] AS superseded
"""
FACT_HYDRATE = f"""
UNWIND $ids AS fid
MATCH (f:Fact {{id: fid}}) WHERE f.learner_id = $learner_id
RETURN {FACT_FIELDS}
"""
"""The learner's facts with ``$ids`` (text, slot, validity, activation)."""
FACT_HISTORY = f"""
MATCH (:Learner {{id: $learner_id}})-[:HAS_MEMORY]->(f:Fact)
WHERE f.learner_id = $learner_id
RETURN {FACT_FIELDS}
ORDER BY datetime(f.valid_from) DESC, f.recorded_at DESC, f.id ASC LIMIT $limit
"""
"""Every version of the learner's facts, newest first."""
FACT_TOUCH = """
UNWIND $rows AS row
MATCH (f:Fact {id: row.id}) WHERE f.learner_id = $learner_id
SET f.activation = row.activation, f.last_access = $now,
    f.access_count = coalesce(f.access_count, 0) + 1
RETURN count(f) AS touched
"""
"""A read: store each fact's boosted activation, stamp ``last_access``, count the access."""
FACT_EXPAND = f"""
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Fact {{id: $seeds[rank]}}) WHERE s.learner_id = $learner_id
MATCH p = (s)-[:SIMILAR_TO|DERIVES_FROM*1..2]-(node)
WHERE length(p) <= $depth AND node <> s AND (node:Fact OR node:Message)
  AND all(x IN nodes(p) WHERE x.learner_id = $learner_id)
  AND (node:Message OR ({FACT_VALID}))
WITH node, min(rank) AS best, min(length(p)) AS distance
RETURN node.id AS id, CASE WHEN node:Fact THEN 'fact' ELSE 'message' END AS kind,
       coalesce(node.text, node.content) AS text,
       coalesce(node.valid_from, node.created_at) AS created_at,
       node.session_id AS session_id, distance, best
ORDER BY best ASC, distance ASC LIMIT $limit
"""
"""Facts and episode messages within ``$depth`` (1-2) hops of the seed facts over
``SIMILAR_TO``/``DERIVES_FROM``, the learner's only, facts filtered by validity."""
FACT_BY_SLOT = f"""
MATCH (:Learner {{id: $learner_id}})-[:HAS_MEMORY]->(node:Fact)
WHERE node.learner_id = $learner_id AND node.predicate IN $predicates AND {FACT_VALID}
WITH node, CASE WHEN node.subject IN $subjects THEN 2.0 ELSE 1.0 END AS score
RETURN node.id AS id, score
ORDER BY score DESC, node.valid_to IS NULL DESC, datetime(node.valid_from) DESC LIMIT $limit
"""
"""The learner's facts in the slots a question asks about (``agent.language.facts.query_slots``),
exact subject first, then current, then newest."""


# ----- procedures (``agent.memory.procedures``) -----

# Procedures carry the ``Memory`` label, so the memory vector/full-text indexes and
# erasure cover them. The id is a hash of (learner, normalised name): a re-save MERGEs
# onto the same node and replaces its steps; usage and activation are kept.
SAVE_PROCEDURE = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $now
SET l.last_memory_write = $now
WITH l
OPTIONAL MATCH (old:Memory {id: $id})
WITH l, old IS NULL AS created
SET l.memory_seq = coalesce(l.memory_seq, 0) + CASE WHEN created THEN 1 ELSE 0 END
WITH l, created
MERGE (p:Memory {id: $id})
  ON CREATE SET p:Procedure, p.learner_id = $learner_id, p.learner_key = $learner_key,
                p.kind = 'procedure', p.created_at = $now, p.usage_count = 0,
                p.access_count = 0, p.activation = $activation, p.last_access = $now,
                p.seq = l.memory_seq
WITH l, p, created
WHERE p.learner_id = $learner_id AND p:Procedure
SET p.name = $name, p.steps = $steps, p.prerequisites = $prerequisites, p.text = $text,
    p.episode_id = coalesce($episode_id, p.episode_id),
    p.embedding = $embedding, p.embedding_model = $embedding_model, p.updated_at = $now
MERGE (l)-[:HAS_MEMORY]->(p)
WITH p, created
CALL (p) {
  OPTIONAL MATCH (m:Message {id: $episode_id})
  WHERE m.learner_id = $learner_id
  FOREACH (_ IN CASE WHEN m IS NULL THEN [] ELSE [1] END |
    MERGE (p)-[:PROCEDURE_DERIVES_FROM]->(m))
  RETURN count(m) AS linked
}
RETURN p.id AS id, p.name AS name, p.steps AS steps, p.prerequisites AS prerequisites,
       p.usage_count AS usage_count, p.created_at AS created_at, created, linked
"""
"""Create or re-save one procedure (steps replaced) and link the episode message."""
PROCEDURE_FIELDS = """
UNWIND $ids AS pid
MATCH (p:Memory {id: pid})
WHERE p:Procedure AND p.learner_id = $learner_id
RETURN p.id AS id, p.name AS name, p.steps AS steps, p.prerequisites AS prerequisites,
       p.usage_count AS usage_count, p.activation AS activation, p.last_access AS last_access,
       p.created_at AS created_at
"""
"""Ranking fields of the learner's procedures with ``$ids``."""
RECORD_PROCEDURE_USE = """
UNWIND $uses AS use
MATCH (p:Memory {id: use.id})
WHERE p:Procedure AND p.learner_id = $learner_id
SET p.usage_count = coalesce(p.usage_count, 0) + 1,
    p.access_count = coalesce(p.access_count, 0) + 1,
    p.activation = use.activation, p.last_access = $now
RETURN p.id AS id, p.usage_count AS usage_count
"""
"""A recall: count the use (atomic increment), store the boosted activation."""
LIST_PROCEDURES = """
MATCH (:Learner {id: $learner_id})-[:HAS_MEMORY]->(p:Procedure)
WHERE p.learner_id = $learner_id
RETURN p.id AS id, p.name AS name, p.steps AS steps, p.prerequisites AS prerequisites,
       p.usage_count AS usage_count, p.created_at AS created_at
ORDER BY p.usage_count DESC, p.name ASC
"""
"""The learner's procedures, most used first."""


# ----- reminders (``agent.memory.reminders``) -----

REMINDER_SCHEMA = (
    "CREATE CONSTRAINT reminder_id_unique IF NOT EXISTS FOR (n:Reminder) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX reminder_learner_status IF NOT EXISTS FOR (n:Reminder) ON (n.learner_id, n.status)",
)
"""Reminder schema (idempotent)."""
# The learner node is locked first, so two identical requests cannot both create a
# reminder: the second sees the first's pending one (same ``dedup_key``) and returns it.
SET_REMINDER = """
MERGE (l:Learner {id: $learner_id})
  ON CREATE SET l.created_at = $props.created_at
SET l.last_reminder_write = $props.created_at
WITH l
OPTIONAL MATCH (l)-[:HAS_REMINDER]->(same:Reminder {dedup_key: $props.dedup_key, status: 'pending'})
WITH l, head(collect(same)) AS existing
CALL (l, existing) {
  WITH l, existing
  WHERE existing IS NULL
  MERGE (r:Reminder {id: $props.id})
    ON CREATE SET r += $props
  WITH l, r
  WHERE r.learner_id = $learner_id
  MERGE (l)-[:HAS_REMINDER]->(r)
  RETURN count(r) AS made
}
WITH l, existing
MATCH (l)-[:HAS_REMINDER]->(r:Reminder {id: coalesce(existing.id, $props.id)})
RETURN properties(r) AS reminder
"""
"""Create a pending reminder, or return the same pending one (idempotent on id and content)."""
PENDING_REMINDERS = """
MATCH (:Learner {id: $learner_id})-[:HAS_REMINDER]->(r:Reminder {status: 'pending'})
WHERE r.learner_id = $learner_id
RETURN properties(r) AS reminder
"""
"""The learner's pending reminders (their triggers are matched in Python)."""
# Exactly once: ``SET r._lock`` takes the node's write lock, so a concurrent caller
# waits here and then re-reads ``status`` after the first one committed.
FIRE_REMINDERS = """
UNWIND $ids AS rid
MATCH (r:Reminder {id: rid})
WHERE r.learner_id = $learner_id
SET r._lock = true
WITH r, r.status = 'pending' AS fire
REMOVE r._lock
WITH r, fire
WHERE fire
SET r.status = 'triggered', r.triggered_at = $now
RETURN properties(r) AS reminder
"""
"""Move the learner's still-pending reminders with ``$ids`` to triggered; returns those moved."""
RESOLVE_REMINDER = """
MATCH (r:Reminder {id: $id})
WHERE r.learner_id = $learner_id
SET r.status = 'resolved', r.resolved_at = coalesce(r.resolved_at, $now)
RETURN properties(r) AS reminder
"""
"""Resolve one of the learner's reminders (idempotent); nothing when it is not theirs."""
LIST_REMINDERS = """
MATCH (:Learner {id: $learner_id})-[:HAS_REMINDER]->(r:Reminder)
WHERE r.learner_id = $learner_id AND ($statuses IS NULL OR r.status IN $statuses)
RETURN properties(r) AS reminder
ORDER BY r.priority ASC, r.created_at ASC, r.id ASC
"""
"""The learner's reminders (optionally of some statuses), most urgent first."""
DELETE_REMINDERS = "MATCH (n:Reminder {learner_id: $learner_id}) DETACH DELETE n"
"""Erasure: the learner's reminders."""

# ----- kernel: links to messages written after the memory (``MemoryStores.wire`` hook) -----

LINK_PENDING_EPISODES = """
UNWIND $ids AS mid
MATCH (m:Message {id: mid}) WHERE m.learner_id = $learner_id
CALL (m) {
  OPTIONAL MATCH (f:Fact {learner_id: $learner_id, episode_id: m.id})
  FOREACH (_ IN CASE WHEN f IS NULL THEN [] ELSE [1] END | MERGE (f)-[:DERIVES_FROM]->(m))
  RETURN count(f) AS facts
}
CALL (m) {
  OPTIONAL MATCH (p:Procedure {learner_id: $learner_id, episode_id: m.id})
  FOREACH (_ IN CASE WHEN p IS NULL THEN [] ELSE [1] END | MERGE (p)-[:PROCEDURE_DERIVES_FROM]->(m))
  RETURN count(p) AS procedures
}
RETURN sum(facts) AS facts, sum(procedures) AS procedures
"""
"""Link facts and procedures to their episode once the kernel has written the message
(a tool may store a fact in the step that logged the message, before the worker drains it)."""
