"""Neo4j storage of Zettelkasten notes: ``NoteStore``, the one access path of ``agent.notes``.

``NoteStore`` is a ``Neo4jStore``: explicit transactions, driver errors mapped to
``agent.errors``, outage detection. With a ``WriteBacklog``, note writes made while
Neo4j is down are parked in Redis (op ``notes.upsert``) and replayed when it is back;
``UPSERT_NOTE`` MERGEs on the note id, so a replay never duplicates a note. Reads
(and link/revision writes, which need reads first) raise ``StoreUnavailableError``.

Schema (all ``IF NOT EXISTS``, once per driver, database and index): a unique
constraint on ``Note.id``, range indexes on ``Note.learner_id`` and
``NoteRevision.note_id``, a cosine vector index named after the embedding model
(``index_name_for(provider, "note")``) and a full-text index that carries each note's
``learner_key``, so Lucene itself keeps a query to one learner. Every query filters by
``learner_id``: one learner never reads another's notes. The Cypher lives in
``agent.notes.queries``.
"""

from __future__ import annotations

import hashlib
import json
import logging
import weakref
from typing import Any

import neo4j
from redis.exceptions import RedisError

from agent.errors import InvalidInputError, KAGError, StoreError
from agent.graphdb.schema import ensure_schema, learner_key
from agent.graphdb.store import Neo4jStore, fetch
from agent.kernel.drain import draining
from agent.memory.backlog import WriteBacklog
from agent.models.embeddings import index_name_for, is_index_name
from agent.notes.models import NoteDraft
from agent.notes.queries import (
    ANN_CANDIDATES,
    AWAIT_INDEX,
    CAP_DEGREE,
    COUNT_NOTES,
    DELETE_LEARNER_NOTES,
    EXACT_CANDIDATES,
    EXPAND_DEPTH_1,
    EXPAND_DEPTH_2,
    FULLTEXT_FIELDS,
    FULLTEXT_INDEX,
    FULLTEXT_NOTES,
    GET_NOTES,
    GET_REVISIONS,
    KEYLESS_NOTE_LEARNERS,
    MERGE_LINKS,
    NOTE_DEGREES,
    NOTE_EMBEDDINGS,
    SCHEMA_STATEMENTS,
    SET_NOTE_LEARNER_KEYS,
    UPSERT_NOTE,
    VECTOR_INDEX,
    WRITE_REVISION,
)
from agent.resources import Resources
from agent.search.lucene import LuceneScope
from agent.search.termstats import weighted_query

__all__ = ["COUNT_NOTES", "OP_UPSERT", "NoteStore", "note_id_for"]

log = logging.getLogger(__name__)

OP_UPSERT = "notes.upsert"
OVERSAMPLE = 20  # the vector index is global: fetch k*20, then keep this learner's
KEY_BACKFILL_PAGE = 500  # learners per round when older notes get their learner key

_BY_RESOURCES: weakref.WeakKeyDictionary[Resources, NoteStore] = weakref.WeakKeyDictionary()


def note_id_for(learner_id: str, draft: NoteDraft, embedding_version: str) -> str:
    """Stable id: a hash of the learner, the note's content and the embedding version.

    Metadata (keywords, tags, description) is excluded, so evolution keeps the id. The open
    question joins the hash only when there is one, so notes written before it keep their ids.
    """
    question = [draft.open_question] if draft.open_question else []
    content = json.dumps(
        [
            learner_id,
            draft.concept.lower(),
            draft.definition,
            draft.personal_example,
            draft.key_insight,
            *question,
            embedding_version,
        ],
        ensure_ascii=False,
    )
    return "note_" + hashlib.sha256(content.encode("utf-8")).hexdigest()[:32]


async def _rows(tx: neo4j.AsyncTransaction, statements: list[tuple[str, dict[str, Any]]]) -> list[list[dict]]:
    """Run ``statements`` in order in ``tx``; the rows of each."""
    return [await fetch(tx, query, **params) for query, params in statements]


class NoteStore(Neo4jStore):
    """Notes, links and revisions of every learner, over a caller-owned driver."""

    backlog_ops = frozenset({OP_UPSERT})

    @classmethod
    def for_resources(cls, resources: Resources) -> NoteStore:
        """The bundle's note store, with a degraded-mode backlog on its Redis (cached per bundle)."""
        store = _BY_RESOURCES.get(resources)
        if store is None:
            backlog = WriteBacklog(resources.redis, prefix=resources.settings.kernel_prefix)
            args = (resources.neo4j, resources.embeddings)
            store = cls(*args, database=resources.database, backlog=backlog)
            _BY_RESOURCES[resources] = store
        return store

    @property
    def index_name(self) -> str:
        """The note vector index of this store's embedding model."""
        return index_name_for(self.embeddings, "note")

    # ----- schema -----
    async def ensure_schema(self) -> None:
        """Create the note schema if missing (idempotent; once per driver, database and index)."""
        index, dimension = self.index_name, self.embeddings.dimension
        if not is_index_name(index, 63) or not isinstance(dimension, int) or dimension < 1:
            raise InvalidInputError(f"bad vector index {index!r} / dimension {dimension!r}")

        async def setup() -> None:
            for statement in (*SCHEMA_STATEMENTS, VECTOR_INDEX.format(name=index, dimension=dimension)):
                await self.write(lambda tx, s=statement: fetch(tx, s))
            await self.key_older_notes()
            await self.read(lambda tx: fetch(tx, AWAIT_INDEX, name=index, timeout=60))

        await ensure_schema(self.driver, self.database, setup, key=f"notes:{index}")

    async def key_older_notes(self) -> None:
        """Give notes written before they carried ``learner_key`` their key (idempotent).

        Until then the scoped full-text index cannot see them; the key is a hash, so it is
        computed here and written per learner, a page of learners at a time.
        """
        while True:
            rows = await self.read(lambda tx: fetch(tx, KEYLESS_NOTE_LEARNERS, limit=KEY_BACKFILL_PAGE))
            if not rows:
                return
            keys = [{"learner_id": r["learner_id"], "key": learner_key(str(r["learner_id"]))} for r in rows]
            done = await self.write(lambda tx, k=keys: fetch(tx, SET_NOTE_LEARNER_KEYS, rows=k))
            if not done[0]["keyed"]:
                return  # nothing could be keyed (an id that is no string): never loop on it

    # ----- note writes (parked when Neo4j is down) -----
    async def upsert_notes(self, learner_id: str, notes: list[dict[str, Any]]) -> list[dict[str, Any]] | None:
        """Create each note unless its id exists, in one transaction; seq follows list order.

        Returns ``[{id, created, seq, created_at}]``, or None when Neo4j is down and the
        batch was parked in the backlog (replayed later, whole).
        """
        if not notes:
            return []
        await self._replay_parked(learner_id)
        payload = {"learner_id": learner_id, "notes": notes}
        return await self.write_or_park(learner_id, OP_UPSERT, payload, self._upsert)

    async def _replay_parked(self, learner_id: str) -> None:
        """Replay the learner's parked writes even if another backlog instance skipped them.

        ``write_or_park`` only looks when the process-wide breaker thinks writes may be
        pending; note writes are rare (one batch per session), so check the stream itself.
        """
        backlog = self.backlog
        if backlog is None or backlog.neo4j_suspended() or learner_id in draining():
            return
        try:
            if await backlog.pending(learner_id):
                await backlog.replay(learner_id=learner_id)
        except (KAGError, RedisError, OSError) as exc:
            log.warning("could not replay parked writes before writing notes: %s", exc)

    async def upsert_note(self, learner_id: str, properties: dict[str, Any]) -> dict[str, Any] | None:
        """``upsert_notes`` for one note: ``{id, created, seq, created_at}``, None when parked."""
        rows = await self.upsert_notes(learner_id, [properties])
        return None if rows is None else rows[0]

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked write (MERGE on note ids, so replays are idempotent)."""
        if op != OP_UPSERT:
            raise InvalidInputError(f"note store cannot apply {op!r}")
        await self._upsert(payload)

    async def _upsert(self, payload: dict[str, Any]) -> list[dict[str, Any]]:
        await self.ensure_schema()
        learner_id = payload["learner_id"]
        key = learner_key(learner_id)
        statements = [
            (UPSERT_NOTE, {"learner_id": learner_id, "learner_key": key, "note": n}) for n in payload["notes"]
        ]
        return [rows[0] for rows in await self.write(lambda tx: _rows(tx, statements))]

    # ----- reads -----
    async def candidate_notes(
        self,
        learner_id: str,
        embedding: list[float],
        *,
        k: int,
        exclude: list[str],
        index_name: str | None = None,
    ) -> list[dict[str, Any]]:
        """Top-``k`` most similar notes of this learner, as ``{note, score}`` (score in 0..1).

        Uses the vector index, oversampled and filtered by learner; falls back to an
        exact ``vector.similarity.cosine`` scan when the filter leaves fewer than
        ``k`` and the learner has more notes, or when the index is missing.
        """
        params = {"learner_id": learner_id, "embedding": embedding, "k": k, "exclude": exclude}
        ann = {**params, "index": index_name or self.index_name, "fetch": max(k * OVERSAMPLE, 100)}
        try:
            rows: list[dict[str, Any]] | None = await self.read(lambda tx: fetch(tx, ANN_CANDIDATES, **ann))
        except StoreError:
            rows = None  # index missing or still populating
        if rows is not None and len(rows) >= k:
            return rows
        total = (await self.read(lambda tx: fetch(tx, COUNT_NOTES, learner_id=learner_id)))[0]["n"]
        if rows is not None and len(rows) >= total - len(exclude):
            return rows
        return await self.read(lambda tx: fetch(tx, EXACT_CANDIDATES, **params))

    async def text_hits(
        self, learner_id: str, query: str, *, k: int, prefixes: list[str] | None = None
    ) -> list[dict[str, Any]]:
        """The learner's top-``k`` notes by full text (``{id, score}``, best first).

        Lucene itself is scoped to the learner's key, so other learners' notes never take
        the places of this learner's, and terms are weighted by the learner's own notes
        (``agent.search.termstats``). ``prefixes``: stems also matched as prefixes.
        """
        scope = LuceneScope(FULLTEXT_FIELDS, learner_key(learner_id))
        clauses = scope.term_clauses(query) + scope.prefix_clauses(prefixes or ())
        if not clauses:
            return []

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            lucene = await weighted_query(
                tx, scope, clauses, index=FULLTEXT_INDEX, label="Note", learner_id=learner_id
            )
            if lucene is None:
                return []
            params = {"index": FULLTEXT_INDEX, "lucene": lucene, "learner_id": learner_id, "k": k}
            return await fetch(tx, FULLTEXT_NOTES, **params)

        return await self.read(work)

    async def count_notes(self, learner_id: str) -> int:
        """How many notes the learner has."""
        rows = await self.read(lambda tx: fetch(tx, COUNT_NOTES, learner_id=learner_id))
        return int(rows[0]["n"])

    async def get_notes(self, learner_id: str, note_ids: list[str]) -> list[dict[str, Any]]:
        """Notes (without embeddings) with their outgoing links, heaviest first, in seq order."""
        rows = await self.read(lambda tx: fetch(tx, GET_NOTES, ids=note_ids, learner_id=learner_id))
        return [{**r["note"], "links": r["links"]} for r in rows]

    async def embeddings_of(self, learner_id: str, note_ids: list[str]) -> dict[str, list[float]]:
        """The stored embedding of each of ``note_ids`` (this learner's only)."""
        rows = await self.read(lambda tx: fetch(tx, NOTE_EMBEDDINGS, ids=note_ids, learner_id=learner_id))
        return {r["id"]: list(r["e"]) for r in rows}

    async def get_revisions(self, learner_id: str, note_id: str) -> list[dict[str, Any]]:
        """All revisions of a note, oldest first."""
        rows = await self.read(lambda tx: fetch(tx, GET_REVISIONS, id=note_id, learner_id=learner_id))
        return [dict(r["revision"]) for r in rows]

    async def expand_links(
        self, learner_id: str, note_ids: list[str], *, depth: int, decay: float, limit: int
    ) -> list[dict[str, Any]]:
        """Rows of notes reachable from ``note_ids`` within ``depth`` (1 or 2) links, best first."""
        if depth not in (1, 2):
            raise InvalidInputError("depth must be 1 or 2")
        query = EXPAND_DEPTH_1 if depth == 1 else EXPAND_DEPTH_2
        args = {"ids": note_ids, "learner_id": learner_id, "decay": decay, "limit": limit}
        return await self.read(lambda tx: fetch(tx, query, **args))

    async def degree_rows(self, learner_id: str) -> list[dict[str, Any]]:
        """``[{id, audit_json, degree}]`` for each of the learner's notes."""
        return await self.read(lambda tx: fetch(tx, NOTE_DEGREES, learner_id=learner_id))

    # ----- link and revision writes (need Neo4j; not parked) -----
    async def merge_links(self, learner_id: str, edges: list[dict[str, Any]]) -> int:
        """Write ``LINKS_TO`` edges (both ends must be this learner's); return the count."""
        if not edges:
            return 0
        rows = await self.write(lambda tx: fetch(tx, MERGE_LINKS, learner_id=learner_id, edges=edges))
        return int(rows[0]["written"])

    async def cap_degree(self, learner_id: str, note_ids: list[str], cap: int) -> int:
        """Keep each note's ``cap`` heaviest neighbours; return the edges deleted."""
        # One statement per note (each prune changes degrees), one commit for all.
        statements = [
            (CAP_DEGREE, {"id": note_id, "learner_id": learner_id, "cap": cap})
            for note_id in dict.fromkeys(note_ids)
        ]
        if not statements:
            return 0
        results = await self.write(lambda tx: _rows(tx, statements))
        return sum(int(rows[0]["pruned"]) for rows in results if rows)

    async def write_revisions(self, learner_id: str, revisions: list[dict[str, Any]]) -> None:
        """Snapshot each note's metadata as a ``NoteRevision`` and apply accepted changes.

        ``revisions``: ``{id, kind, reason, proposed_json, violations, keywords, tags,
        description, embedding, now}``; one transaction for all.
        """
        statements = [(WRITE_REVISION, {"learner_id": learner_id, **r}) for r in revisions]
        if statements:
            await self.write(lambda tx: _rows(tx, statements))

    async def delete_learner(self, learner_id: str) -> None:
        """Delete a learner's notes and revisions (tests, right-to-erasure)."""
        await self.write(lambda tx: fetch(tx, DELETE_LEARNER_NOTES, learner_id=learner_id))
