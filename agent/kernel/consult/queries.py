"""Cypher of the consultation: the reflective layer, core knowledge, provenance, and the read boost.

Parameters only; no user text is ever formatted in. Every query filters on
``$learner_id`` (the ``memory_learner`` range index on ``Memory.learner_id``), so one
learner's consultation never reads another's nodes. ``TOPIC_MATCH`` is this module's
own constant: a node passes when ``$topics`` is empty, or its ``concept`` (lower case)
equals a topic or lies under it (``sql`` covers ``sql.joins``).
"""

TOPIC_MATCH = """
(size($topics) = 0 OR any(t IN $topics WHERE toLower(coalesce(n.concept, '')) = t
                                          OR toLower(coalesce(n.concept, '')) STARTS WITH t + '.'))
"""
INSIGHTS = f"""
MATCH (n:Memory) WHERE n.learner_id = $learner_id AND n:Insight AND {TOPIC_MATCH}
RETURN n.id AS id, n.text AS text, n.concept AS concept, n.evidence_count AS evidence_count,
       n.confidence AS confidence, n.activation AS activation, n.last_access AS last_access,
       n.created_at AS created_at
ORDER BY coalesce(n.activation, 0.0) DESC, n.created_at DESC, n.id ASC LIMIT $limit
"""
"""The learner's insights (reflection's synthesis), most active first."""
PATTERNS = f"""
MATCH (n:Memory) WHERE n.learner_id = $learner_id AND n:Pattern AND {TOPIC_MATCH}
RETURN n.id AS id, n.kind AS kind, n.concept AS concept, n.description AS description,
       n.count AS count, n.activation AS activation, n.last_access AS last_access
ORDER BY coalesce(n.activation, 0.0) DESC, coalesce(n.count, 0) DESC, n.id ASC LIMIT $limit
"""
"""The learner's patterns (reflection's anticipation), most active first."""
CORE_FACTS = f"""
MATCH (n:Memory) WHERE n.learner_id = $learner_id AND n:Fact AND n.valid_to IS NULL AND {TOPIC_MATCH}
RETURN n.id AS id, n.text AS text, n.concept AS concept, n.subject AS subject,
       n.predicate AS predicate, n.valid_from AS valid_from, n.activation AS activation,
       n.last_access AS last_access, coalesce(n.access_count, 0) AS access_count
ORDER BY coalesce(n.activation, 0.0) DESC, n.valid_from DESC, n.id ASC LIMIT $limit
"""
"""The learner's current facts with the highest stored activation (decay is applied in Python)."""
TOUCH = """
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
WHERE n.learner_id = $learner_id AND (n:Fact OR n:Insight OR n:Pattern)
SET n.activation = row.activation, n.last_access = $now,
    n.access_count = coalesce(n.access_count, 0) + 1
RETURN count(n) AS touched
"""
"""A consultation read these: store each one's boosted activation, stamp and count the access."""
STALE_FACTS = """
MATCH (f:Memory) WHERE f.learner_id = $learner_id AND f:Fact AND f.valid_to IS NOT NULL
CALL (f) {
  OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f) WHERE n.learner_id = $learner_id
  RETURN n.id AS by_id, n.text AS by_text ORDER BY n.valid_from DESC LIMIT 1
}
CALL (f) {
  OPTIONAL MATCH (f)-[:DERIVES_FROM]->(m:Message) WHERE m.learner_id = $learner_id
  RETURN collect(m {.id, .content}) AS episodes
}
RETURN f.id AS id, f.text AS text, f.valid_to AS valid_to, by_id, by_text, episodes
ORDER BY f.valid_to DESC, f.id ASC LIMIT $limit
"""
"""The learner's superseded facts (``valid_to`` set), most recently closed first: the fact
that superseded each (``SUPERSEDES``) and the episodes it came from
(``(:Fact)-[:DERIVES_FROM]->(:Message)``)."""
HIT_SOURCES = """
UNWIND $ids AS hid
MATCH (c:Memory {id: hid})-[:DERIVED_FROM]->(m:Message)
WHERE c.learner_id = $learner_id AND m.learner_id = $learner_id
RETURN hid AS id, m.id AS message_id, m.role AS role, m.content AS content
"""
"""The source message of each derived memory in ``$ids`` (a turn context is
``(:Memory {kind: 'turn_context'})-[:DERIVED_FROM]->(:Message)``)."""
