"""Every Cypher statement of the learner dashboard (read-only views of one learner's graph).

Each statement filters by ``$learner_id`` on every node it returns, so a dashboard
request never reads another learner's notes, links or memories.
"""

from __future__ import annotations

LIST_NOTES = """
MATCH (n:Note {learner_id: $learner_id})
OPTIONAL MATCH (n)-[:LINKS_TO]-(m:Note {learner_id: $learner_id})
WITH n, count(DISTINCT m) AS degree
RETURN n {.id, .concept, .tags, .keywords, .description, .definition, .created_at, .seq,
          .activation} AS note, degree
ORDER BY n.seq DESC
LIMIT $limit
"""
"""The learner's newest notes (no embeddings) with their link degree."""

NOTES_BY_ID = """
MATCH (n:Note) WHERE n.id IN $ids AND n.learner_id = $learner_id
OPTIONAL MATCH (n)-[:LINKS_TO]-(m:Note {learner_id: $learner_id})
WITH n, count(DISTINCT m) AS degree
RETURN n {.id, .concept, .tags, .keywords, .description, .definition, .created_at, .seq,
          .activation} AS note, degree
"""
"""Note cards for search hits, in any order (the caller keeps the ranking)."""

NOTE_DETAIL = """
MATCH (n:Note {id: $id, learner_id: $learner_id})
OPTIONAL MATCH (n)-[r:LINKS_TO]-(m:Note {learner_id: $learner_id})
WITH n, r, m ORDER BY r.weight DESC
WITH n, [x IN collect(CASE WHEN m IS NULL THEN NULL ELSE {
    id: m.id, concept: m.concept, relation: r.relation, weight: r.weight,
    rationale: r.rationale, outgoing: startNode(r) = n,
    directional: coalesce(r.directional, false)
  } END) WHERE x IS NOT NULL] AS links
RETURN n {.*, embedding: null} AS note, links
"""
"""One note (all properties but the embedding) and its typed links, either direction."""

ALL_NOTES_FULL = """
MATCH (n:Note {learner_id: $learner_id})
OPTIONAL MATCH (n)-[r:LINKS_TO]->(m:Note {learner_id: $learner_id})
WITH n, r, m ORDER BY r.weight DESC
WITH n, [x IN collect(CASE WHEN m IS NULL THEN NULL ELSE {
    id: m.id, concept: m.concept, relation: r.relation, directional: coalesce(r.directional, false)
  } END) WHERE x IS NOT NULL] AS links
RETURN n {.*, embedding: null} AS note, links
ORDER BY n.seq
"""
"""Every note of the learner with its outgoing links (the Markdown export)."""

GRAPH_EDGES = """
MATCH (a:Note {learner_id: $learner_id})-[r:LINKS_TO]->(b:Note {learner_id: $learner_id})
RETURN a.id AS source, b.id AS target, r.relation AS relation, r.weight AS weight,
       coalesce(r.directional, false) AS directional
"""
"""The learner's note links (mirrored relations appear once per direction)."""

SUMMARIES = """
MATCH (:Learner {id: $learner_id})-[:HAS_SUMMARY]->(s:SessionSummary {learner_id: $learner_id})
OPTIONAL MATCH (s)-[:SUMMARIZES]->(m:Message {learner_id: $learner_id})
WITH s, m ORDER BY m.seq
WITH s, collect(m {.id, .role, .content, .created_at, .session_id}) AS turns
RETURN s {.id, .text, .kind, .created_at, .session_id} AS summary, turns[..$turns] AS turns,
       size(turns) AS turn_count
ORDER BY s.created_at DESC
LIMIT $limit
"""
"""The learner's archived session summaries, newest first, with the turns they summarise."""
