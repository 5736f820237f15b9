"""Cypher for reflection (``agent.kernel.reflection``) and system learning (``agent.kernel.system_learning``).

Parameters only; no user text is ever formatted in. The fragments formatted into
queries (``_ITEM``, ``_OWN``) are this module's own constants.

A learner's reflection reads the messages the learner sent, their facts (not those derived
from a message, which already counts) and their notes. A scanned item keeps
``reflected_at`` and its signals, so a rerun scans nothing twice.
"""

REFLECTION_SCHEMA = (
    "CREATE INDEX insight_learner IF NOT EXISTS FOR (n:Insight) ON (n.learner_id)",
    "CREATE INDEX pattern_learner_kind IF NOT EXISTS FOR (n:Pattern) ON (n.learner_id, n.kind)",
    "CREATE INDEX pattern_kind_concept IF NOT EXISTS FOR (n:Pattern) ON (n.kind, n.concept)",
)
"""Reflection's own indexes (``ensure_schema`` key ``reflection``); ids are unique through ``Memory``."""

# One of the learner's source items by (source, id); ``row`` and ``$learner_id`` in scope.
_ITEM = """
CALL (row) {
  MATCH (n:Message {id: row.id}) WHERE row.source = 'message' AND n.learner_id = $learner_id
  RETURN n
  UNION
  MATCH (n:Memory {id: row.id}) WHERE row.source = 'fact' AND n:Fact AND n.learner_id = $learner_id
  RETURN n
  UNION
  MATCH (n:Note {id: row.id}) WHERE row.source = 'note' AND n.learner_id = $learner_id
  RETURN n
}
"""

# The learner's source items: ``$unreflected`` keeps the unscanned ones, else those with signals.
_PICK = (
    "CASE WHEN $unreflected THEN n.reflected_at IS NULL ELSE size(coalesce(n.reflection_signals, [])) > 0 END"
)
_SOURCES = f"""
CALL () {{
  MATCH (n:Message {{learner_id: $learner_id}})
  WHERE n.role = 'user'
    AND {_PICK}
  RETURN n, 'message' AS source, n.content AS text, null AS concept, n.created_at AS at,
         n.session_id AS session_id
  UNION ALL
  MATCH (n:Memory {{learner_id: $learner_id}})
  WHERE n:Fact AND NOT (n)-[:DERIVES_FROM]->(:Message)
    AND {_PICK}
  RETURN n, 'fact' AS source, n.text AS text, n.concept AS concept, n.recorded_at AS at, null AS session_id
  UNION ALL
  MATCH (n:Note {{learner_id: $learner_id}})
  WHERE {_PICK}
  RETURN n, 'note' AS source, n.text AS text, n.concept AS concept, n.created_at AS at, null AS session_id
}}
"""

UNREFLECTED = f"""
{_SOURCES}
WITH n, source, text, concept, at, session_id
ORDER BY datetime(coalesce(at, '1970-01-01T00:00:00Z')) ASC, n.id ASC LIMIT $limit
RETURN n.id AS id, source, text, concept, at, session_id
"""
"""Up to ``$limit`` of the learner's items not scanned yet, oldest first (``$unreflected`` = true)."""
SIGNAL_ITEMS = f"""
{_SOURCES}
WITH n, source, at, session_id
ORDER BY datetime(coalesce(at, '1970-01-01T00:00:00Z')) DESC, n.id ASC LIMIT $cap
RETURN n.id AS id, source, at, session_id, n.reflection_signals AS signals
"""
"""The learner's scanned items that carry signals, newest ``$cap`` (``$unreflected`` = false)."""
KNOWN_CONCEPTS = """
CALL () {
  MATCH (n:Note {learner_id: $learner_id}) WHERE n.concept IS NOT NULL RETURN n.concept AS concept
  UNION
  MATCH (n:Memory {learner_id: $learner_id}) WHERE n:Fact AND n.concept IS NOT NULL
  RETURN n.concept AS concept
  UNION
  MATCH (n:Memory {learner_id: $learner_id}) WHERE n:Insight RETURN n.concept_name AS concept
}
WITH concept WHERE concept IS NOT NULL
RETURN DISTINCT concept LIMIT 1000
"""
"""Concept names the learner already has (notes, facts, insights): signals map onto them."""
MARK_REFLECTED = f"""
UNWIND $rows AS row
{_ITEM}
SET n.reflected_at = $now, n.reflection_signals = row.signals, n.reflection_struggles = row.struggles
RETURN count(n) AS marked
"""
"""Stamp scanned items ``reflected_at`` and keep their signals (only the learner's own items);
``reflection_struggles`` lists the concept keys the item shows a struggle or error on."""

# ----- insights and patterns -----

EXISTING = """
MATCH (n:Memory {learner_id: $learner_id})
WHERE $label IN labels(n)
RETURN n.id AS id, properties(n) AS props,
       [(n)-[:EVIDENCED_BY]->(e) WHERE e.learner_id = $learner_id | e.id] AS evidence
"""
"""The learner's insights or patterns (``$label``), with their evidence ids."""
UPSERT = f"""
MERGE (l:Learner {{id: $learner_id}})
  ON CREATE SET l.created_at = $now
WITH l
UNWIND $nodes AS node
MERGE (m:Memory {{id: node.id}})
  ON CREATE SET m.learner_id = $learner_id, m.learner_key = $learner_key, m.created_at = $now,
                m.activation = 0.0, m.last_access = $now, m.decayed_at = $now, m.access_count = 0,
                m.revision = 0
WITH l, m, node
WHERE m.learner_id = $learner_id
FOREACH (_ IN CASE WHEN $label = 'Insight' THEN [1] ELSE [] END | SET m:Insight)
FOREACH (_ IN CASE WHEN $label = 'Pattern' THEN [1] ELSE [] END | SET m:Pattern)
SET m += node.props, m.updated_at = $now, m.revision = coalesce(m.revision, 0) + 1
MERGE (l)-[:HAS_MEMORY]->(m)
WITH m, node
CALL (m, node) {{
  UNWIND node.evidence AS row
  {_ITEM}
  MERGE (m)-[r:EVIDENCED_BY]->(n)
    ON CREATE SET r.linked_at = $now
  RETURN count(n) AS linked
}}
RETURN m.id AS id, linked
"""
"""Create or update the learner's insights/patterns (``$label``) and link their evidence items
(a new link is not ``counted`` yet: prioritisation counts it as one access)."""

DUE_PRIORITY = """
MATCH (n:Memory {learner_id: $learner_id})-[r:EVIDENCED_BY]->(e)
WHERE (n:Insight OR n:Pattern) AND r.counted IS NULL AND e.learner_id = $learner_id
WITH n, collect({id: e.id, at: coalesce(e.created_at, e.recorded_at)}) AS fresh
ORDER BY n.updated_at ASC, n.id ASC LIMIT $limit
RETURN n.id AS id, n.activation AS activation, n.last_access AS last_access, fresh
"""
"""The learner's insights/patterns with evidence links not counted yet, and those links' times."""
SET_PRIORITY = """
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
WHERE n.learner_id = $learner_id AND (n:Insight OR n:Pattern)
SET n.activation = row.activation, n.last_access = $now, n.decayed_at = $now,
    n.access_count = coalesce(n.access_count, 0) + size(row.evidence)
WITH n, row
MATCH (n)-[r:EVIDENCED_BY]->(e)
WHERE e.id IN row.evidence AND r.counted IS NULL
SET r.counted = true
RETURN count(DISTINCT n) AS updated
"""
"""Store the activation with the new evidence counted in, and mark those links counted."""
DUE_DECAY = """
MATCH (n:Memory {learner_id: $learner_id})
WHERE (n:Insight OR n:Pattern) AND n.last_access IS NOT NULL
  AND datetime(n.last_access) <= datetime($cutoff)
WITH n ORDER BY datetime(n.last_access) ASC, n.id ASC LIMIT $limit
RETURN n.id AS id, n.activation AS activation, n.last_access AS last_access
"""
"""The learner's insights/patterns whose activation was stored an hour ago or more (``$cutoff``)."""
SET_DECAY = """
UNWIND $rows AS row
MATCH (n:Memory {id: row.id})
WHERE n.learner_id = $learner_id AND (n:Insight OR n:Pattern) AND n.last_access = row.was
SET n.activation = row.activation, n.last_access = row.until, n.decayed_at = row.until
RETURN n.id AS id
"""
"""Store decayed activations (only where ``last_access`` is still what was read: no double decay,
and a read's boost in between wins)."""

# ----- curation -----

DUPLICATE_SLOTS = """
MATCH (:Learner {id: $learner_id})-[:HAS_MEMORY]->(f:Fact)
WHERE f.learner_id = $learner_id AND f.valid_to IS NULL
WITH f ORDER BY datetime(f.valid_from) DESC, f.recorded_at DESC, f.id DESC
WITH f.subject AS subject, f.predicate AS predicate, collect({id: f.id, valid_from: f.valid_from}) AS facts
WHERE size(facts) > 1
RETURN subject, predicate, facts
ORDER BY subject, predicate LIMIT $limit
"""
"""Slots holding more than one current fact (newest first in each)."""
OPEN_SLOT_FACTS = """
MATCH (:Learner {id: $learner_id})-[:HAS_MEMORY]->(f:Fact)
WHERE f.learner_id = $learner_id AND f.valid_to IS NULL AND f.predicate STARTS WITH 'fact:'
RETURN f.id AS id, f.text AS text, f.valid_from AS valid_from, f.recorded_at AS recorded_at
ORDER BY datetime(f.valid_from) DESC, f.recorded_at DESC, f.id DESC LIMIT $cap
"""
"""Current facts in slots of their own (``fact:<hash>``): candidates for contradiction by negation."""

# ----- learners due -----

LEARNERS_DUE = """
CALL () {
  MATCH (n:Message) WHERE n.role = 'user' AND n.reflected_at IS NULL AND n.learner_id IS NOT NULL
  RETURN DISTINCT n.learner_id AS learner_id
  UNION
  MATCH (n:Memory) WHERE n:Fact AND n.reflected_at IS NULL RETURN DISTINCT n.learner_id AS learner_id
  UNION
  MATCH (n:Note) WHERE n.reflected_at IS NULL RETURN DISTINCT n.learner_id AS learner_id
  UNION
  MATCH (n:Memory) WHERE (n:Insight OR n:Pattern) AND datetime(n.last_access) <= datetime($cutoff)
  RETURN DISTINCT n.learner_id AS learner_id
}
WITH learner_id WHERE learner_id IS NOT NULL
RETURN learner_id ORDER BY learner_id LIMIT $max
"""
"""Learners with something to reflect on: unscanned items, or insights/patterns due to decay."""

# ----- system learning: counts across learners, never content -----

_STRUGGLE_SIGNALS = """
CALL () {
  MATCH (n:Message) WHERE size(coalesce(n.reflection_struggles, [])) > 0 RETURN n
  UNION ALL
  MATCH (n:Memory) WHERE n:Fact AND size(coalesce(n.reflection_struggles, [])) > 0 RETURN n
  UNION ALL
  MATCH (n:Note) WHERE size(coalesce(n.reflection_struggles, [])) > 0 RETURN n
}
UNWIND n.reflection_struggles AS concept
"""
"""Every struggled-on concept of every learner's messages, facts and notes (one row each)."""

SYSTEM_BOTTLENECKS = (
    _STRUGGLE_SIGNALS
    + """WITH concept, n.learner_id AS learner WHERE concept <> ''
WITH concept, collect(DISTINCT learner) AS own
WITH collect({key: concept, words: split(concept, ' '), own: own}) AS keys
UNWIND keys AS k
WITH k, [o IN keys WHERE all(w IN o.words WHERE w IN k.words) OR all(w IN k.words WHERE w IN o.words)]
     AS related
WHERE size(k.own) >= $min_learners
  AND none(o IN related WHERE size(o.own) > size(k.own) OR (size(o.own) = size(k.own) AND o.key < k.key))
WITH k, related, reduce(acc = [], o IN related | acc + [l IN o.own WHERE NOT l IN acc]) AS struggling
OPTIONAL MATCH (p:Pattern {kind: 'bottleneck'}) WHERE p.concept IN [o IN related | o.key]
WITH k.key AS concept, struggling,
     collect(DISTINCT CASE WHEN p.status = 'resolved' THEN p.learner_id END) AS resolved,
     collect(DISTINCT CASE WHEN p.status = 'active' THEN p.learner_id END) AS active
WITH concept, [l IN struggling WHERE NOT l IN resolved] AS open, active
WITH concept, size(open) AS learners, size([l IN open WHERE l IN active]) AS persistent
WHERE learners >= $min_learners
RETURN concept, learners, persistent
ORDER BY learners DESC, persistent DESC, concept ASC LIMIT $top
"""
)
"""System bottlenecks: per concept, the learners who showed a struggle or error on it and have not
resolved it since (no resolved ``bottleneck`` pattern), spellings whose words contain one
another counted as one concept ("group" and "group by"; a learner counted once) under the
spelling most learners used, which must itself be shared by ``$min_learners``; ``persistent``
= those of them with an active per-learner ``bottleneck`` pattern. Counts only: learner ids
are collected and counted inside the query and never returned."""
SYSTEM_ERRORS = """
MATCH (p:Pattern {kind: 'recurring_error'})
WITH p.error_kind AS error_kind, count(DISTINCT p.learner_id) AS learners, count(p) AS patterns,
     sum(coalesce(p.count, 0)) AS occurrences
WHERE error_kind IS NOT NULL AND learners >= $min_learners
RETURN error_kind, learners, patterns, occurrences
ORDER BY learners DESC, occurrences DESC, error_kind ASC LIMIT $top
"""
"""Recurring error kinds shared by at least ``$min_learners`` learners: counts only."""
SYSTEM_STRUGGLES = (
    _STRUGGLE_SIGNALS
    + """WITH concept, count(DISTINCT n.learner_id) AS learners, count(*) AS signals
WHERE concept <> '' AND learners >= $min_learners
RETURN concept, learners, signals
ORDER BY learners DESC, signals DESC, concept ASC LIMIT $top
"""
)
"""Concepts at least ``$min_learners`` learners showed a struggle or error on (one signal is
enough): counts only."""
SYSTEM_TOTALS = """
CALL () {
  MATCH (p:Pattern) RETURN count(DISTINCT p.learner_id) AS with_patterns, count(p) AS patterns
}
CALL () {
  MATCH (i:Insight) RETURN count(DISTINCT i.learner_id) AS with_insights, count(i) AS insights
}
RETURN with_patterns, patterns, with_insights, insights
"""
"""How many learners have patterns/insights, and how many there are."""

# ----- time of day -----

STUDY_HOURS = """
MATCH (n:Message {learner_id: $learner_id})
WHERE n.role = 'user' AND n.created_at IS NOT NULL
WITH datetime({datetime: datetime(n.created_at), timezone: 'UTC'}).hour AS hour
RETURN hour, count(*) AS messages
ORDER BY hour
"""
"""How many messages the learner sent in each UTC hour (the study-time histogram)."""
STUDY_EVIDENCE = """
MATCH (n:Message {learner_id: $learner_id})
WHERE n.role = 'user' AND n.created_at IS NOT NULL
  AND datetime({datetime: datetime(n.created_at), timezone: 'UTC'}).hour IN $hours
WITH n ORDER BY datetime(n.created_at) DESC, n.id ASC LIMIT $cap
RETURN n.id AS id, n.created_at AS at
"""
"""The learner's newest messages sent in ``$hours`` (UTC): a study-time pattern's evidence."""
