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
# One round trip for the whole layer: each part is a subquery that keeps its own order
# and limit and collects its rows.
LAYER = f"""
CALL () {{
  MATCH (n:Memory) WHERE n.learner_id = $learner_id AND n:Fact AND n.valid_to IS NULL AND {TOPIC_MATCH}
  WITH n ORDER BY coalesce(n.activation, 0.0) DESC, n.valid_from DESC, n.id ASC LIMIT $core_limit
  RETURN collect({{id: n.id, text: n.text, concept: n.concept, subject: n.subject,
                  predicate: n.predicate, valid_from: n.valid_from, activation: n.activation,
                  last_access: n.last_access, access_count: coalesce(n.access_count, 0)}}) AS core
}}
CALL () {{
  MATCH (n:Memory) WHERE n.learner_id = $learner_id AND n:Pattern AND {TOPIC_MATCH}
  WITH n ORDER BY coalesce(n.activation, 0.0) DESC, coalesce(n.count, 0) DESC, n.id ASC LIMIT $limit
  RETURN collect({{id: n.id, kind: n.kind, concept: n.concept, description: n.description,
                  count: n.count, activation: n.activation, last_access: n.last_access}}) AS patterns
}}
CALL () {{
  MATCH (n:Memory) WHERE $reflective AND n.learner_id = $learner_id AND n:Insight AND {TOPIC_MATCH}
  WITH n ORDER BY coalesce(n.activation, 0.0) DESC, n.created_at DESC, n.id ASC LIMIT $limit
  RETURN collect({{id: n.id, text: n.text, concept: n.concept, evidence_count: n.evidence_count,
                  confidence: n.confidence, activation: n.activation, last_access: n.last_access,
                  created_at: n.created_at}}) AS insights
}}
CALL () {{
  MATCH (f:Memory) WHERE f.learner_id = $learner_id AND f:Fact AND f.valid_to IS NOT NULL
  WITH f ORDER BY f.valid_to DESC, f.id ASC LIMIT $stale_limit
  CALL (f) {{
    OPTIONAL MATCH (n:Fact)-[:SUPERSEDES]->(f) WHERE n.learner_id = $learner_id
    RETURN n.id AS by_id, n.text AS by_text ORDER BY n.valid_from DESC LIMIT 1
  }}
  CALL (f) {{
    OPTIONAL MATCH (f)-[:DERIVES_FROM]->(m:Message) WHERE m.learner_id = $learner_id
    RETURN collect(m {{.id, .content}}) AS episodes
  }}
  RETURN collect({{id: f.id, text: f.text, valid_to: f.valid_to, by_id: by_id, by_text: by_text,
                  episodes: episodes}}) AS stale
}}
RETURN core, patterns, insights, stale
"""
"""The learner's layer in one row, each list in its order:

- ``core``: current facts with the highest stored activation (decay is applied in Python);
- ``patterns``: reflection's anticipation, most active first;
- ``insights``: reflection's synthesis, most active first (only when ``$reflective``);
- ``stale``: superseded facts (``valid_to`` set), most recently closed first, each with
  the fact that superseded it (``SUPERSEDES``) and the episodes it came from
  (``(:Fact)-[:DERIVES_FROM]->(:Message)``).

``core``, ``patterns`` and ``insights`` pass ``TOPIC_MATCH``; ``stale`` does not (a
superseded fact is resolved whatever its topic)."""
TOUCH = """
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
WHERE n.learner_id = $learner_id AND (n:Fact OR n:Insight OR n:Pattern)
SET n.activation = row.activation, n.last_access = $now,
    n.access_count = coalesce(n.access_count, 0) + 1
RETURN count(n) AS touched
"""
"""A consultation read these: store each one's boosted activation, stamp and count the access."""
HIT_SOURCES = """
UNWIND $ids AS hid
MATCH (c:Memory {id: hid})-[:DERIVED_FROM]->(m:Message)
WHERE c.learner_id = $learner_id AND m.learner_id = $learner_id
RETURN hid AS id, m.id AS message_id, m.role AS role, m.content AS content
"""
"""The source message of each derived memory in ``$ids`` (a turn context is
``(:Memory {kind: 'turn_context'})-[:DERIVED_FROM]->(:Message)``)."""
