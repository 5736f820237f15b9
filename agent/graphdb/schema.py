"""Idempotent Neo4j schema for archival memory and recall storage.

Labels: ``Learner``, ``Memory`` (archival; summaries are ``:Memory:SessionSummary``),
``Message`` (recall), ``CoreSection`` (the durable copy of core memory),
``EmbeddingIndex`` (which model and size built a vector index).
Index and constraint names are identifiers, which Cypher cannot take as
parameters; they come from ``index_name_for`` (letters, digits, ``_``) and are
checked by ``is_index_name`` before they are formatted into DDL. Everything
else goes through ``$params``.
"""

from __future__ import annotations

import asyncio
import hashlib
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import neo4j
from neo4j.exceptions import ClientError

from agent.errors import StoreError
from agent.models.embeddings import EmbeddingProvider, index_name_for, is_index_name

MEMORY_FULLTEXT = "memory_text_fulltext"
MESSAGE_FULLTEXT = "message_content_fulltext"

CONSTRAINTS = (
    "CREATE CONSTRAINT learner_id_unique IF NOT EXISTS FOR (n:Learner) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT memory_id_unique IF NOT EXISTS FOR (n:Memory) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT message_id_unique IF NOT EXISTS FOR (n:Message) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT session_summary_id_unique IF NOT EXISTS FOR (n:SessionSummary) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT embedding_index_name_unique IF NOT EXISTS "
    "FOR (n:EmbeddingIndex) REQUIRE n.name IS UNIQUE",
    "CREATE CONSTRAINT turn_sentence_id_unique IF NOT EXISTS FOR (n:TurnSentence) REQUIRE n.id IS UNIQUE",
    "CREATE CONSTRAINT core_section_id_unique IF NOT EXISTS FOR (n:CoreSection) REQUIRE n.id IS UNIQUE",
)
RANGE_INDEXES = (
    "CREATE INDEX memory_learner IF NOT EXISTS FOR (n:Memory) ON (n.learner_id)",
    # Search reads one session's memories (the ``session`` and ``context`` retrievers): without
    # this it scans every memory of the learner once per session asked for.
    "CREATE INDEX memory_learner_session IF NOT EXISTS FOR (n:Memory) ON (n.learner_id, n.session_id)",
    "CREATE INDEX turn_sentence_learner IF NOT EXISTS FOR (n:TurnSentence) ON (n.learner_id)",
    "CREATE INDEX message_learner IF NOT EXISTS FOR (n:Message) ON (n.learner_id)",
    "CREATE INDEX message_learner_session IF NOT EXISTS FOR (n:Message) ON (n.learner_id, n.session_id)",
)
# ``learner_key`` is indexed next to the text so Lucene itself scopes a query to
# one learner (the full-text top-k is global otherwise).
FULLTEXT_INDEXES = (
    f"CREATE FULLTEXT INDEX {MEMORY_FULLTEXT} IF NOT EXISTS "
    "FOR (n:Memory|SessionSummary) ON EACH [n.text, n.learner_key]",
    f"CREATE FULLTEXT INDEX {MESSAGE_FULLTEXT} IF NOT EXISTS "
    "FOR (n:Message) ON EACH [n.content, n.learner_key]",
)
VECTOR_INDEX_TEMPLATE = (
    "CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:{label}) ON (n.embedding) "
    "OPTIONS {{indexConfig: {{`vector.dimensions`: {dimension}, "
    "`vector.similarity_function`: 'cosine'}}}}"
)
SHOW_VECTOR_INDEXES = (
    "SHOW VECTOR INDEXES YIELD name, labelsOrTypes, properties, options "
    "WHERE $label IN labelsOrTypes AND properties = ['embedding'] "
    "RETURN name, options.indexConfig['vector.dimensions'] AS dimension"
)
RECORD_EMBEDDING_INDEX = """
MERGE (e:EmbeddingIndex {name: $name})
  ON CREATE SET e.label = $label, e.model = $model, e.version = $version,
                e.dimension = $dimension, e.created_at = datetime()
RETURN e.model AS model, e.version AS version, e.dimension AS dimension
"""
UPDATE_EMBEDDING_VERSION = "MATCH (e:EmbeddingIndex {name: $name}) SET e.version = $version"
AWAIT_INDEXES = "CALL db.awaitIndexes($seconds)"

MEMORY_SCHEMA_KEY = "memory"
"""``ensure_schema`` key of the archival/recall schema (``setup_schema``)."""

# Schema setups done per driver: {(database, key)}. Weak keys: a closed, dropped
# driver takes its entries with it, and a new driver (same ``id``) starts afresh.
_SCHEMA_DONE: weakref.WeakKeyDictionary[neo4j.AsyncDriver, set[tuple[str, str]]] = weakref.WeakKeyDictionary()
# asyncio locks bind to one event loop, so keep them per loop; one lock per
# (driver, database, key), so a setup may itself run another key's setup.
_SCHEMA_LOCKS: weakref.WeakKeyDictionary[
    asyncio.AbstractEventLoop, dict[tuple[int, str, str], asyncio.Lock]
] = weakref.WeakKeyDictionary()


class SchemaMismatchError(StoreError):
    """An existing vector index was built for another embedding model or size."""


@dataclass(frozen=True)
class SchemaNames:
    """Index names the stores query, derived from the embedding model."""

    memory_vector: str
    message_vector: str
    sentence_vector: str
    """Over ``:TurnSentence`` (``agent.kernel.sentences``), read by the ``sentence`` retriever."""
    memory_fulltext: str = MEMORY_FULLTEXT
    message_fulltext: str = MESSAGE_FULLTEXT


def schema_names(embeddings: EmbeddingProvider) -> SchemaNames:
    """Vector index names for ``embeddings`` (model slug + dimension)."""
    return SchemaNames(
        memory_vector=index_name_for(embeddings, "memory"),
        message_vector=index_name_for(embeddings, "message"),
        sentence_vector=index_name_for(embeddings, "sentence"),
    )


def learner_key(learner_id: str) -> str:
    """One alphanumeric token per learner, indexed in full text to scope Lucene queries."""
    return "lk" + hashlib.sha256(learner_id.encode()).hexdigest()[:32]


def _identifier(name: str) -> str:
    if not is_index_name(name, 128):
        raise StoreError(f"refusing to use {name!r} as a Neo4j index name")
    return name


async def _ddl(session: neo4j.AsyncSession, statement: str) -> None:
    try:
        await (await session.run(statement)).consume()
    except ClientError as exc:
        # Another process created the same rule between our check and our create.
        if "EquivalentSchemaRule" not in (exc.code or "") and "AlreadyExists" not in (exc.code or ""):
            raise


async def _vector_index(
    session: neo4j.AsyncSession, label: str, name: str, embeddings: EmbeddingProvider
) -> None:
    dimension = int(embeddings.dimension)
    rows = await (await session.run(SHOW_VECTOR_INDEXES, label=label)).data()
    for row in rows:
        if row["name"] != name or int(row["dimension"] or 0) != dimension:
            raise SchemaMismatchError(
                f"{label}.embedding is already indexed by {row['name']!r} with dimension "
                f"{row['dimension']}, but the embeddings are {embeddings.model_name!r} with "
                f"dimension {dimension} (index {name!r}). Use the matching embeddings "
                "(KAG_EMBEDDINGS) or re-embed into a new database."
            )
    if not rows:
        await _ddl(
            session,
            VECTOR_INDEX_TEMPLATE.format(
                name=_identifier(name), label=_identifier(label), dimension=dimension
            ),
        )
    record = await (
        await session.run(
            RECORD_EMBEDDING_INDEX,
            name=name,
            label=label,
            model=embeddings.model_name,
            version=embeddings.version,
            dimension=dimension,
        )
    ).single()
    if record is not None and int(record["dimension"]) != dimension:
        raise SchemaMismatchError(
            f"EmbeddingIndex {name!r} records dimension {record['dimension']} "
            f"(model {record['model']!r}), but the embeddings have dimension {dimension}"
        )
    if record is not None and record["version"] != embeddings.version:
        await (await session.run(UPDATE_EMBEDDING_VERSION, name=name, version=embeddings.version)).consume()


async def setup_schema(
    driver: neo4j.AsyncDriver,
    database: str,
    embeddings: EmbeddingProvider,
    *,
    await_seconds: int = 120,
) -> SchemaNames:
    """Create constraints and indexes if missing (idempotent) and return their names.

    Raises ``SchemaMismatchError`` when ``Memory``/``Message`` embeddings are already
    indexed for a different model or dimension. Driver errors propagate; stores wrap them.
    """
    names = schema_names(embeddings)
    async with driver.session(database=database) as session:
        for statement in (*CONSTRAINTS, *RANGE_INDEXES, *FULLTEXT_INDEXES):
            await _ddl(session, statement)
        await _vector_index(session, "Memory", names.memory_vector, embeddings)
        await _vector_index(session, "Message", names.message_vector, embeddings)
        await _vector_index(session, "TurnSentence", names.sentence_vector, embeddings)
        await (await session.run(AWAIT_INDEXES, seconds=await_seconds)).consume()
    return names


async def ensure_schema(
    driver: neo4j.AsyncDriver,
    database: str,
    setup_fn: Callable[[], Awaitable[object]],
    *,
    key: str,
) -> bool:
    """Run ``setup_fn()`` once per driver, database and ``key`` in this process.

    Concurrent callers wait for one setup; one that raises is not marked done, so the next
    call retries it. True when this call ran the setup.
    """
    done = _SCHEMA_DONE.setdefault(driver, set())
    mark = (database, key)
    if mark in done:
        return False
    locks = _SCHEMA_LOCKS.setdefault(asyncio.get_running_loop(), {})
    lock = locks.setdefault((id(driver), database, key), asyncio.Lock())
    async with lock:
        if mark in done:
            return False
        await setup_fn()
        done.add(mark)
        return True
