"""Every Cypher statement of the notes package (``agent/notes``).

Statements are parameterised; every one filters by ``$learner_id`` so one learner never
reads or writes another's notes. ``agent.notes.store.NoteStore`` runs them.
"""

from __future__ import annotations

FULLTEXT_INDEX = "note_learner_fulltext"
"""Full-text index over note text, description and concept, and the learner's key.

``learner_key`` is indexed beside the text, as for memories and messages, so Lucene itself
keeps a query to one learner's notes. The index it replaces (``note_fulltext``) had no key:
a query took the global top-k and then kept the learner's rows, so another learner's notes
on the same words crowded the learner's own out.
"""
UNSCOPED_FULLTEXT_INDEX = "note_fulltext"
"""The former, unscoped note index: dropped by the schema setup."""

FULLTEXT_FIELDS = ("text", "description", "concept")
"""The note properties ``FULLTEXT_INDEX`` holds beside ``learner_key``."""

SCHEMA_STATEMENTS = (
    "CREATE CONSTRAINT note_id_unique IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX note_learner_id IF NOT EXISTS FOR (n:Note) ON (n.learner_id)",
    "CREATE INDEX note_revision_note_id IF NOT EXISTS FOR (r:NoteRevision) ON (r.note_id)",
    f"DROP INDEX {UNSCOPED_FULLTEXT_INDEX} IF EXISTS",
    f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS "
    f"FOR (n:Note) ON EACH [{', '.join(f'n.{f}' for f in (*FULLTEXT_FIELDS, 'learner_key'))}]",
)
"""Constraint and indexes of the note graph (all ``IF NOT EXISTS``)."""

VECTOR_INDEX = (
    "CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:Note) ON (n.embedding) "
    "OPTIONS {{indexConfig: {{`vector.dimensions`: {dimension}, "
    "`vector.similarity_function`: 'cosine'}}}}"
)
"""The note vector index; ``name`` and ``dimension`` are validated, then formatted in."""

AWAIT_INDEX = "CALL db.awaitIndex($name, $timeout)"
"""Wait until an index is online."""

UPSERT_NOTE = """
MERGE (l:Learner {id: $learner_id})
MERGE (n:Note {id: $note.id})
ON CREATE SET n += $note, n.learner_key = $learner_key, n.seq = -1, n.version = 1
WITH l, n, n.seq = -1 AS created
FOREACH (_ IN CASE WHEN created THEN [1] ELSE [] END |
  SET l.note_seq = coalesce(l.note_seq, 0) + 1
  SET n.seq = l.note_seq)
MERGE (l)-[:HAS_NOTE]->(n)
RETURN n.id AS id, created, n.seq AS seq, n.created_at AS created_at
"""
"""Create a note unless its id exists (idempotent MERGE); a new note gets the learner's next ``seq``."""

KEYLESS_NOTE_LEARNERS = """
MATCH (n:Note) WHERE n.learner_key IS NULL AND n.learner_id IS NOT NULL
RETURN DISTINCT n.learner_id AS learner_id LIMIT $limit
"""
"""Learners with notes written before notes carried ``learner_key`` (a page of them)."""
SET_NOTE_LEARNER_KEYS = """
UNWIND $rows AS row
MATCH (n:Note {learner_id: row.learner_id}) WHERE n.learner_key IS NULL
SET n.learner_key = row.key
RETURN count(n) AS keyed
"""
"""Give those learners' notes their key (``rows``: ``{learner_id, key}``); how many got one."""
FULLTEXT_NOTES = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $k}) YIELD node, score
WITH node, score WHERE node:Note AND node.learner_id = $learner_id
RETURN node.id AS id, score
ORDER BY score DESC, node.seq, node.id
"""
"""The learner's notes by full text, best first (ties in the learner's order); ``$lucene`` must
carry the learner's key (``agent.search.lucene.LuceneScope``), the ``learner_id`` test is a
second guard."""

COUNT_NOTES = "MATCH (n:Note {learner_id: $learner_id}) RETURN count(n) AS n"
"""How many notes a learner has."""

ANN_CANDIDATES = """
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node
WHERE node.learner_id = $learner_id AND NOT node.id IN $exclude
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
ORDER BY score DESC LIMIT $k
RETURN node {.id, .concept, .text, .definition, .personal_example, .keywords, .tags, .description,
             .created_at} AS note, score
"""
"""Vector-index candidates of one learner; scores are recomputed exactly (index scores may be quantized)."""

EXACT_CANDIDATES = """
MATCH (node:Note {learner_id: $learner_id})
WHERE NOT node.id IN $exclude AND node.embedding IS NOT NULL
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
ORDER BY score DESC LIMIT $k
RETURN node {.id, .concept, .text, .definition, .personal_example, .keywords, .tags, .description,
             .created_at} AS note, score
"""
"""Exact cosine scan over one learner's notes (fallback when the index is missing or too sparse)."""

GET_NOTES = """
MATCH (n:Note) WHERE n.id IN $ids AND n.learner_id = $learner_id
OPTIONAL MATCH (n)-[r:LINKS_TO]->(m:Note)
WITH n, r, m ORDER BY r.weight DESC
WITH n, [x IN collect(CASE WHEN m IS NULL THEN NULL ELSE {
    target: m.id, target_concept: m.concept, relation: r.relation, weight: r.weight,
    confidence: r.confidence, cosine: r.cosine, rationale: r.rationale,
    created_at: r.created_at, last_touch: r.last_touch, directional: r.directional
  } END) WHERE x IS NOT NULL] AS links
RETURN n {.*, embedding: null} AS note, links
ORDER BY n.seq
"""
"""Notes (without embeddings) with their outgoing links, heaviest first, in seq order."""

NOTE_EMBEDDINGS = """
MATCH (n:Note) WHERE n.id IN $ids AND n.learner_id = $learner_id
RETURN n.id AS id, n.embedding AS e
"""
"""The stored embeddings of some notes of one learner."""

MERGE_LINKS = """
UNWIND $edges AS e
MATCH (a:Note {id: e.source}) WHERE a.learner_id = $learner_id
MATCH (b:Note {id: e.target}) WHERE b.learner_id = $learner_id AND a <> b
MERGE (a)-[r:LINKS_TO]->(b)
ON CREATE SET r.created_at = e.now
SET r.relation = e.relation, r.weight = e.weight, r.confidence = e.confidence,
    r.cosine = e.cosine, r.rationale = e.rationale, r.directional = e.directional,
    r.last_touch = e.now, r.last_validated = e.now
RETURN count(r) AS written
"""
"""Write ``LINKS_TO`` edges between two notes of the same learner."""

CAP_DEGREE = """
MATCH (n:Note {id: $id})-[r:LINKS_TO]-(m:Note)
WHERE n.learner_id = $learner_id
WITH n, m, max(r.weight) AS w
ORDER BY w DESC, m.id
WITH n, collect(m)[$cap..] AS dropped
UNWIND dropped AS m
MATCH (n)-[r:LINKS_TO]-(m)
DELETE r
RETURN count(r) AS pruned
"""
"""Keep a note's ``$cap`` heaviest neighbours (either direction); delete the rest."""

WRITE_REVISION = """
MATCH (n:Note {id: $id}) WHERE n.learner_id = $learner_id
CREATE (rev:NoteRevision {
  note_id: n.id, learner_id: n.learner_id, version: coalesce(n.version, 1), kind: $kind,
  keywords: n.keywords, tags: n.tags, description: n.description,
  proposed_json: $proposed_json, violations: $violations, reason: $reason, created_at: $now})
CREATE (n)-[:HAS_REVISION]->(rev)
WITH n
FOREACH (_ IN CASE WHEN $kind = 'previous' THEN [1] ELSE [] END |
  SET n.keywords = $keywords, n.tags = $tags, n.description = $description,
      n.embedding = $embedding, n.version = coalesce(n.version, 1) + 1, n.updated_at = $now)
RETURN n.version AS version
"""
"""Snapshot a note's metadata as a ``NoteRevision``; ``kind = 'previous'`` also applies the new metadata."""

GET_REVISIONS = """
MATCH (n:Note {id: $id})-[:HAS_REVISION]->(rev:NoteRevision)
WHERE n.learner_id = $learner_id
RETURN rev {.*} AS revision ORDER BY rev.created_at, rev.version
"""
"""All revisions of one note, oldest first."""

DELETE_LEARNER_NOTES = """
MATCH (n:Note {learner_id: $learner_id})
OPTIONAL MATCH (n)-[:HAS_REVISION]->(rev:NoteRevision)
DETACH DELETE rev, n
"""
"""Delete a learner's notes and their revisions."""

_EXPAND = """
MATCH p = (s:Note)-[:LINKS_TO*1..{depth}]-(m:Note)
WHERE s.id IN $ids AND s.learner_id = $learner_id AND m.learner_id = $learner_id
  AND NOT m.id IN $ids
WITH m, length(p) AS hops, reduce(w = 1.0, r IN relationships(p) | w * r.weight) AS w
WITH m, max(w * $decay ^ (hops - 1)) AS score, min(hops) AS hops
RETURN m.id AS id, m.concept AS concept, m.text AS text, m.description AS description,
       m.tags AS tags, score, hops
ORDER BY score DESC, id LIMIT $limit
"""
"""Link expansion template; ``{depth}`` is replaced by a literal 1 or 2 below."""

EXPAND_DEPTH_1 = _EXPAND.replace("{depth}", "1")
"""Notes one link away from the seeds, scored by edge weight."""

EXPAND_DEPTH_2 = _EXPAND.replace("{depth}", "2")
"""Notes up to two links away from the seeds; score = weight product × ``$decay^(hops-1)``."""

NOTE_DEGREES = """
MATCH (n:Note {learner_id: $learner_id})
OPTIONAL MATCH (n)-[:LINKS_TO]-(m:Note)
RETURN n.id AS id, n.audit_json AS audit_json, count(DISTINCT m) AS degree
"""
"""Each note's audit and distinct linked-neighbour count (Zettelkasten health metrics)."""
