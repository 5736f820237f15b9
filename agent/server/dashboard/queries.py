"""Every Cypher statement of the learner dashboard (read-only views of one learner's graph).

Each statement filters by ``$learner_id`` on every node it returns, so a dashboard
request never reads another learner's notes, links or memories.
"""

from __future__ import annotations

LIST_NOTES = """
MATCH (n:Note {learner_id: $learner_id})
OPTIONAL MATCH (n)-[r:LINKS_TO]-(m:Note {learner_id: $learner_id})
WITH n, count(DISTINCT CASE WHEN m IS NULL THEN NULL ELSE [m.id, r.relation] END) AS degree
RETURN n {.id, .concept, .tags, .keywords, .description, .definition, .created_at, .seq,
          .activation} AS note, degree
ORDER BY n.seq DESC
LIMIT $limit
"""
"""The learner's newest notes (no embeddings) with their link count.

A link is a (neighbour, relation) pair in either direction, as the note's page lists its
links (``DashboardReads.note``): a symmetric relation stored both ways counts once, two
relations to the same neighbour count twice, so a card and its page agree."""

NOTES_BY_ID = """
MATCH (n:Note) WHERE n.id IN $ids AND n.learner_id = $learner_id
OPTIONAL MATCH (n)-[r:LINKS_TO]-(m:Note {learner_id: $learner_id})
WITH n, count(DISTINCT CASE WHEN m IS NULL THEN NULL ELSE [m.id, r.relation] END) AS degree
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

SESSIONS = """
MATCH (m:Message {learner_id: $learner_id})
WHERE m.session_id IS NOT NULL
WITH m ORDER BY m.seq
WITH m.session_id AS session_id, min(m.created_at) AS started, max(m.created_at) AS ended,
     sum(CASE WHEN m.role = 'user' THEN 1 ELSE 0 END) AS turns,
     [x IN collect(CASE WHEN m.role = 'user' THEN m.content END) WHERE x IS NOT NULL][0] AS first_words
RETURN session_id, started, ended, turns, first_words
ORDER BY started DESC
LIMIT $limit
"""
"""The learner's sessions from their recall messages (server and CLI alike), newest first."""

SESSION_NOTES = """
MATCH (n:Note {learner_id: $learner_id})
WHERE n.session_id IN $sessions
WITH n ORDER BY n.seq
RETURN n.session_id AS session_id, collect(n.concept) AS concepts
"""
"""The concepts of each session's notes, oldest first (a session's topic is its first)."""

LEARNED_BY_DAY = """
CALL () {
  MATCH (n:Note {learner_id: $learner_id})
  WHERE n.created_at >= $since
  RETURN substring(n.created_at, 0, 10) AS day, 'notes' AS kind
  UNION ALL
  MATCH (f:Fact {learner_id: $learner_id})
  WHERE f.recorded_at >= $since
  RETURN substring(f.recorded_at, 0, 10) AS day, 'facts' AS kind
  UNION ALL
  MATCH (r:Memory {learner_id: $learner_id})
  WHERE r.last_access >= $since AND coalesce(r.access_count, 0) > 0
  RETURN substring(r.last_access, 0, 10) AS day, 'recalled' AS kind
}
RETURN day, kind, count(*) AS n
ORDER BY day
"""
"""Per day since ``$since``: notes written, facts told, memories that came back (last recalled)."""

RECALLED = """
MATCH (r:Memory {learner_id: $learner_id})
WHERE r.last_access IS NOT NULL AND coalesce(r.access_count, 0) > 0
RETURN coalesce(r.text, r.content, r.description, r.name) AS text, r.last_access AS last_access,
       r.access_count AS times
ORDER BY r.last_access DESC
LIMIT $limit
"""
"""The learner's memories that came back most recently, with how often they did."""
