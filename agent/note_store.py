"""Neo4j storage of Zettelkasten notes: schema, writes, candidate search, edges.

Schema (all ``IF NOT EXISTS``): a unique constraint on ``Note.id``, a range
index on ``Note.learner_id``, a cosine vector index on ``Note.embedding`` named
after the embedding model (``index_name_for(provider, "note")``) and a
full-text index on text, description and concept. The caller owns the driver.
Every query filters by ``learner_id``: one learner never reads another's notes.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import neo4j
from neo4j.exceptions import DriverError, Neo4jError, ServiceUnavailable, SessionExpired

from agent.errors import InvalidInputError, StoreError, StoreUnavailableError
from agent.note_models import NoteDraft

R = TypeVar("R")
FULLTEXT_INDEX = "note_fulltext"
OVERSAMPLE = 20  # the vector index is global: fetch k*20, then keep this learner's
_INDEX_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,62}$")

SCHEMA_STATEMENTS = (
    "CREATE CONSTRAINT note_id_unique IF NOT EXISTS FOR (n:Note) REQUIRE n.id IS UNIQUE",
    "CREATE INDEX note_learner_id IF NOT EXISTS FOR (n:Note) ON (n.learner_id)",
    "CREATE INDEX note_revision_note_id IF NOT EXISTS FOR (r:NoteRevision) ON (r.note_id)",
    f"CREATE FULLTEXT INDEX {FULLTEXT_INDEX} IF NOT EXISTS "
    "FOR (n:Note) ON EACH [n.text, n.description, n.concept]",
)
# Identifiers cannot be parameters; the name is validated before formatting.
VECTOR_INDEX = (
    "CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:Note) ON (n.embedding) "
    "OPTIONS {{indexConfig: {{`vector.dimensions`: {dimension}, "
    "`vector.similarity_function`: 'cosine'}}}}"
)
AWAIT_INDEX = "CALL db.awaitIndex($name, $timeout)"

UPSERT_NOTE = """
MERGE (l:Learner {id: $learner_id})
MERGE (n:Note {id: $note.id})
ON CREATE SET n += $note, n.seq = -1, n.version = 1
WITH l, n, n.seq = -1 AS created
FOREACH (_ IN CASE WHEN created THEN [1] ELSE [] END |
  SET l.note_seq = coalesce(l.note_seq, 0) + 1
  SET n.seq = l.note_seq)
MERGE (l)-[:HAS_NOTE]->(n)
RETURN n.id AS id, created, n.seq AS seq, n.created_at AS created_at
"""

# The index finds candidates; their scores are recomputed exactly, because index scores
# may come from quantized vectors and link weights need the true cosine.
ANN_CANDIDATES = """
CALL db.index.vector.queryNodes($index, $fetch, $embedding) YIELD node
WHERE node.learner_id = $learner_id AND NOT node.id IN $exclude
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
ORDER BY score DESC LIMIT $k
RETURN node {.id, .concept, .text, .keywords, .tags, .description, .created_at} AS note, score
"""

EXACT_CANDIDATES = """
MATCH (node:Note {learner_id: $learner_id})
WHERE NOT node.id IN $exclude AND node.embedding IS NOT NULL
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
ORDER BY score DESC LIMIT $k
RETURN node {.id, .concept, .text, .keywords, .tags, .description, .created_at} AS note, score
"""

COUNT_NOTES = "MATCH (n:Note {learner_id: $learner_id}) RETURN count(n) AS n"

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

# Degree = distinct neighbours in either direction; drop the lightest beyond the cap.
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

GET_REVISIONS = """
MATCH (n:Note {id: $id})-[:HAS_REVISION]->(rev:NoteRevision)
WHERE n.learner_id = $learner_id
RETURN rev {.*} AS revision ORDER BY rev.created_at, rev.version
"""

DELETE_LEARNER_NOTES = """
MATCH (n:Note {learner_id: $learner_id})
OPTIONAL MATCH (n)-[:HAS_REVISION]->(rev:NoteRevision)
DETACH DELETE rev, n
"""


async def run(
    driver: neo4j.AsyncDriver,
    query: str,
    params: dict[str, Any] | None = None,
    *,
    database: str | None = None,
    write: bool = False,
) -> list[neo4j.Record]:
    """Run one query (auto-retried by the driver); wrap driver errors."""
    routing = neo4j.RoutingControl.WRITE if write else neo4j.RoutingControl.READ
    return await guard(
        lambda: driver.execute_query(query, params or {}, database_=database, routing_=routing)
    )


async def guard(call: Callable[[], Awaitable[Any]]) -> Any:
    """Await ``call()``; map unreachability to StoreUnavailableError, the rest to StoreError."""
    try:
        result = await call()
    except (ServiceUnavailable, SessionExpired, OSError) as exc:
        raise StoreUnavailableError("Neo4j", str(exc)) from exc
    except (Neo4jError, DriverError) as exc:
        raise StoreError(f"Neo4j: {exc}") from exc
    return result.records if isinstance(result, neo4j.EagerResult) else result


async def write_batch(
    driver: neo4j.AsyncDriver,
    statements: list[tuple[str, dict[str, Any]]],
    *,
    database: str | None = None,
) -> list[list[dict[str, Any]]]:
    """Run ``statements`` in order in ONE write transaction (one commit); rows per statement."""

    async def work(tx: neo4j.AsyncManagedTransaction) -> list[list[dict[str, Any]]]:
        out = []
        for query, params in statements:
            result = await tx.run(query, params)
            out.append([dict(r) async for r in result])
        return out

    if not statements:
        return []

    async def call() -> list[list[dict[str, Any]]]:
        async with driver.session(database=database) as session:
            return await session.execute_write(work)

    return await guard(call)


_schema_done: set[tuple[int, str | None, str]] = set()


async def ensure_note_schema(
    driver: neo4j.AsyncDriver, index_name: str, dimension: int, *, database: str | None = None
) -> None:
    """Create the note schema if missing (idempotent, once per driver and index)."""
    key = (id(driver), database, index_name)
    if key in _schema_done:
        return
    if not _INDEX_NAME.match(index_name) or not isinstance(dimension, int) or dimension < 1:
        raise InvalidInputError(f"bad vector index {index_name!r} / dimension {dimension!r}")
    for statement in (
        *SCHEMA_STATEMENTS,
        VECTOR_INDEX.format(name=index_name, dimension=dimension),
    ):
        await run(driver, statement, database=database, write=True)
    await run(driver, AWAIT_INDEX, {"name": index_name, "timeout": 60}, database=database)
    _schema_done.add(key)


def note_id_for(learner_id: str, draft: NoteDraft, embedding_version: str) -> str:
    """Stable id: a hash of the learner, the note's content and the embedding version.

    Metadata (keywords, tags, description) is excluded, so evolution keeps the id.
    """
    content = json.dumps(
        [
            learner_id,
            draft.concept.lower(),
            draft.definition,
            draft.personal_example,
            draft.key_insight,
            embedding_version,
        ],
        ensure_ascii=False,
    )
    return "note_" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:32]


async def upsert_note(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    properties: dict[str, Any],
    *,
    database: str | None = None,
) -> dict[str, Any]:
    """Create the note unless its id exists; return ``{id, created, seq, created_at}``."""
    return (await upsert_notes(driver, learner_id, [properties], database=database))[0]


async def upsert_notes(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    notes: list[dict[str, Any]],
    *,
    database: str | None = None,
) -> list[dict[str, Any]]:
    """``upsert_note`` for several notes in one transaction; seq follows list order."""
    statements = [(UPSERT_NOTE, {"learner_id": learner_id, "note": n}) for n in notes]
    return [rows[0] for rows in await write_batch(driver, statements, database=database)]


async def candidate_notes(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    embedding: list[float],
    *,
    index_name: str,
    k: int,
    exclude: list[str],
    database: str | None = None,
) -> list[dict[str, Any]]:
    """Top-``k`` most similar notes of this learner, as ``{note, score}`` (score in 0..1).

    Uses the vector index, oversampled and filtered by learner; falls back to an
    exact ``vector.similarity.cosine`` scan when the filter leaves fewer than
    ``k`` and the learner has more notes, or when the index is missing.
    """
    params = {"learner_id": learner_id, "embedding": embedding, "k": k, "exclude": exclude}
    try:
        records = await run(
            driver,
            ANN_CANDIDATES,
            {**params, "index": index_name, "fetch": max(k * OVERSAMPLE, 100)},
            database=database,
        )
    except StoreError:
        records = None  # index missing or still populating
    if records is not None and len(records) >= k:
        return [dict(r) for r in records]
    total = (await run(driver, COUNT_NOTES, {"learner_id": learner_id}, database=database))[0]["n"]
    if records is not None and len(records) >= total - len(exclude):
        return [dict(r) for r in records]
    records = await run(driver, EXACT_CANDIDATES, params, database=database)
    return [dict(r) for r in records]


async def merge_links(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    edges: list[dict[str, Any]],
    *,
    database: str | None = None,
) -> int:
    """Write ``LINKS_TO`` edges (both ends must be this learner's); return the count."""
    if not edges:
        return 0
    records = await run(
        driver,
        MERGE_LINKS,
        {"learner_id": learner_id, "edges": edges},
        database=database,
        write=True,
    )
    return int(records[0]["written"])


async def cap_degree(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    note_ids: list[str],
    cap: int,
    *,
    database: str | None = None,
) -> int:
    """Keep each note's ``cap`` heaviest neighbours; return the edges deleted."""
    # One statement per note (each prune changes degrees), one commit for all.
    statements = [
        (CAP_DEGREE, {"id": note_id, "learner_id": learner_id, "cap": cap})
        for note_id in dict.fromkeys(note_ids)
    ]
    results = await write_batch(driver, statements, database=database)
    return sum(int(rows[0]["pruned"]) for rows in results if rows)


async def get_notes(
    driver: neo4j.AsyncDriver, learner_id: str, note_ids: list[str], *, database: str | None = None
) -> list[dict[str, Any]]:
    """Notes (without embeddings) with their outgoing links, heaviest first, in seq order."""
    records = await run(driver, GET_NOTES, {"ids": note_ids, "learner_id": learner_id}, database=database)
    return [{**r["note"], "links": r["links"]} for r in records]


async def write_revisions(
    driver: neo4j.AsyncDriver,
    learner_id: str,
    revisions: list[dict[str, Any]],
    *,
    database: str | None = None,
) -> None:
    """Snapshot each note's metadata as a ``NoteRevision`` and apply accepted changes.

    ``revisions``: ``{id, kind, reason, proposed_json, violations, keywords, tags,
    description, embedding, now}``; one transaction for all.
    """
    statements = [(WRITE_REVISION, {"learner_id": learner_id, **r}) for r in revisions]
    await write_batch(driver, statements, database=database)


async def get_revisions(
    driver: neo4j.AsyncDriver, learner_id: str, note_id: str, *, database: str | None = None
) -> list[dict[str, Any]]:
    """All revisions of a note, oldest first."""
    records = await run(driver, GET_REVISIONS, {"id": note_id, "learner_id": learner_id}, database=database)
    return [dict(r["revision"]) for r in records]


async def delete_learner_notes(
    driver: neo4j.AsyncDriver, learner_id: str, *, database: str | None = None
) -> None:
    """Delete a learner's notes and revisions (tests, right-to-erasure)."""
    await run(driver, DELETE_LEARNER_NOTES, {"learner_id": learner_id}, database=database, write=True)
