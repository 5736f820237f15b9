"""Archival memory in Neo4j: memories and session summaries, searched with hybrid retrieval.

Graph: ``(:Learner {id})-[:HAS_MEMORY]->(:Memory {id, learner_id, text, tags, kind,
created_at, occurred_at, seq, session_id, source_ids, embedding, embedding_model})``,
``(:Memory)-[:DERIVED_FROM]->(:Message|:Memory)``, and summaries as
``(:Learner)-[:HAS_SUMMARY]->(:Memory:SessionSummary {kind: 'summary'|'raw_summary'})``
with ``-[:SUMMARIZES]->(:Message)`` and ``-[:FOLDS]->(previous summary)``.
Summaries share the ``Memory`` label, so the same indexes search them.
When Neo4j is down and a ``WriteBacklog`` is given, writes are parked in Redis
(results carry ``degraded=True``) and searches fall back to Redis keyword search.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import neo4j

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.schema import learner_key
from agent.graphdb.store import (
    Neo4jStore,
    check_page,
    check_text,
    fetch,
    is_neo4j_down,
)
from agent.memory.queries import INSERT_MEMORIES, WRITE_SUMMARY
from agent.memory.recent import search_recent
from agent.memory.records import (
    ID,
    ArchivalRecord,
    WriteResult,
    memory_payload,
    summary_id_for,
    valid_ids,
)
from agent.search.hybrid import HybridSearch
from agent.search.recipes import DEFAULT_RECIPE, SearchRecipe, get_recipe
from agent.search.results import SearchHit, SearchPage
from agent.search.targets import memory_target, turn_target
from agent.validation import validate_learner_id, validate_text

log = logging.getLogger(__name__)

OP_INSERT = "archival.insert"
OP_SUMMARY = "archival.summary"


class ArchivalStore(Neo4jStore):
    """Long-term archival memory for every learner (the MemGPT 'disk')."""

    backlog_ops = frozenset({OP_INSERT, OP_SUMMARY})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Same arguments as ``Neo4jStore``: driver, embeddings, database, backlog."""
        super().__init__(*args, **kwargs)
        self._search = HybridSearch(memory_target(self.names))
        self._turns = HybridSearch(turn_target(self.names))

    # ----- writes -----
    async def insert(
        self,
        learner_id: str,
        content: str,
        *,
        tags: Sequence[str] = (),
        kind: str = "memory",
        source_ids: Sequence[str] = (),
        occurred_at: str | None = None,
        session_id: str | None = None,
        memory_id: str | None = None,
    ) -> ArchivalRecord:
        """Store ``content`` once (idempotent on ``memory_id``, default a stable hash)."""
        draft = {"content": content, "tags": tags, "kind": kind, "source_ids": source_ids}
        draft.update(occurred_at=occurred_at, session_id=session_id, memory_id=memory_id)
        [record] = await self.insert_many(learner_id, [draft])
        return record

    async def insert_many(self, learner_id: str, drafts: Sequence[Mapping[str, Any]]) -> list[ArchivalRecord]:
        """Store several memories (each a dict of :meth:`insert`'s arguments) in order.

        One embedding call and one Neo4j transaction for the batch, parked whole in the
        backlog when Neo4j is down. Everything is validated before anything is written.
        """
        learner_id = validate_learner_id(learner_id)
        created_at = self.now_iso()
        items = [memory_payload(learner_id, created_at, **draft) for draft in drafts]
        if not items:
            return []
        batch = {"learner_id": learner_id, "created_at": created_at, "items": items}
        records = await self.write_or_park(learner_id, OP_INSERT, batch, self._insert)
        if records is None:
            records = [self._record(p, seq=None, created=None, linked=0, degraded=True) for p in items]
        await self._remember(items)
        return records

    async def write_summary(
        self,
        learner_id: str,
        text: str,
        *,
        message_ids: Sequence[str],
        previous_summary_id: str | None,
        session_id: str | None,
        raw: bool = False,
    ) -> WriteResult:
        """Write a session summary folding ``previous_summary_id``.

        Returns its id, with ``degraded=True`` when the write was parked in the backlog.
        """
        learner_id = validate_learner_id(learner_id)
        check_text(text, "summary text")
        ids = valid_ids(message_ids, "message_ids")
        if previous_summary_id is not None and not ID.match(previous_summary_id):
            raise InvalidInputError(f"invalid previous_summary_id {previous_summary_id[:80]!r}")
        if session_id is not None and not ID.match(str(session_id)):
            raise InvalidInputError(f"invalid session_id {str(session_id)[:80]!r}")
        created_at = self.now_iso()
        payload = {
            "learner_id": learner_id,
            "id": summary_id_for(learner_id, text, ids, previous_summary_id),
            "text": text,
            "tags": ["summary"],
            "kind": "raw_summary" if raw else "summary",
            "message_ids": ids,
            "previous_summary_id": previous_summary_id,
            "session_id": session_id,
            "created_at": created_at,
            "occurred_at": created_at,
        }
        result = await self.write_or_park(learner_id, OP_SUMMARY, payload, self._summary)
        await self._remember([payload])
        return WriteResult(payload["id"], degraded=result is None)

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked write (MERGE on ids, so replays are idempotent)."""
        if op == OP_INSERT:
            await self._insert(payload)
        elif op == OP_SUMMARY:
            await self._summary(payload)
        else:
            raise InvalidInputError(f"archival store cannot apply {op!r}")

    def _props(self, payload: dict[str, Any], embedding: list[float]) -> dict[str, Any]:
        keys = ("learner_id", "text", "tags", "kind", "created_at", "occurred_at", "session_id", "disclosure")
        props = {k: payload.get(k) for k in keys if payload.get(k) is not None}
        props.update(
            id=payload["id"],
            learner_key=learner_key(payload["learner_id"]),
            embedding=embedding,
            embedding_model=self.embeddings.model_name,
        )
        return props

    async def _insert(self, batch: dict[str, Any]) -> list[ArchivalRecord]:
        items = batch.get("items") or [batch]  # a single payload: parked before batches existed
        embeddings = await self.embed_documents([p["text"] for p in items])
        rows = [
            {
                "id": p["id"],
                "source_ids": p["source_ids"],
                "props": {**self._props(p, e), "source_ids": p["source_ids"]},
            }
            for p, e in zip(items, embeddings, strict=True)
        ]

        async def work(tx: neo4j.AsyncTransaction) -> dict[int, dict[str, Any]]:
            args = {"learner_id": batch["learner_id"], "created_at": batch["created_at"], "rows": rows}
            stored = {r["i"]: r for r in await fetch(tx, INSERT_MEMORIES, **args)}
            foreign = [p["id"] for i, p in enumerate(items) if i not in stored]
            if foreign:  # raised inside the transaction: the whole batch rolls back
                raise InvalidInputError(f"memory id {foreign[0]!r} belongs to another learner")
            return stored

        stored = await self.write(work)
        return [
            self._record(
                {**p, "created_at": r["created_at"]},
                seq=r["seq"],
                created=r["created"],
                linked=r["linked"],
                degraded=False,
            )
            for p, r in ((p, stored[i]) for i, p in enumerate(items))
        ]

    async def _summary(self, payload: dict[str, Any]) -> dict[str, Any]:
        [embedding] = await self.embed_documents([payload["text"]])
        props = {**self._props(payload, embedding), "raw": payload["kind"] == "raw_summary"}
        props["message_ids"] = payload["message_ids"]

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(
                tx,
                WRITE_SUMMARY,
                learner_id=payload["learner_id"],
                id=payload["id"],
                props=props,
                message_ids=payload["message_ids"],
                previous_id=payload["previous_summary_id"],
            )

        rows = await self.write(work)
        if not rows:
            raise InvalidInputError(f"summary id {payload['id']!r} belongs to another learner")
        if rows[0]["summarized"] < len(payload["message_ids"]):
            log.debug(  # the normal case in a turn: the worker commits (and links) the rest
                "summary %s links %d of %d messages now, the rest when the kernel commits them",
                payload["id"],
                rows[0]["summarized"],
                len(payload["message_ids"]),
            )
        return rows[0]

    @staticmethod
    def _record(
        payload: dict[str, Any],
        *,
        seq: int | None,
        created: bool | None,
        linked: int,
        degraded: bool,
    ) -> ArchivalRecord:
        return ArchivalRecord(
            id=payload["id"],
            learner_id=payload["learner_id"],
            text=payload["text"],
            kind=payload["kind"],
            tags=list(payload["tags"]),
            created_at=payload["created_at"],
            seq=seq,
            session_id=payload.get("session_id"),
            occurred_at=payload.get("occurred_at"),
            source_ids=list(payload.get("source_ids", [])),
            created=created,
            linked_sources=linked,
            degraded=degraded,
        )

    async def _remember(self, payloads: Sequence[dict[str, Any]]) -> None:
        if self.backlog is not None and payloads:
            keys = ("id", "text", "kind", "tags", "created_at", "session_id")
            items = [{k: p.get(k) for k in keys} for p in payloads]
            await self.backlog.remember("archival", payloads[0]["learner_id"], items)

    # ----- reads -----
    async def search(
        self,
        learner_id: str,
        query: str,
        *,
        page: int = 0,
        page_size: int = 5,
        recipe: str | SearchRecipe = DEFAULT_RECIPE,
        kinds: Sequence[str] | None = None,
    ) -> SearchPage:
        """Hybrid search of the learner's memories and summaries, one page at a time."""
        return await self._page(self._search, learner_id, query, page, page_size, recipe, kinds)

    async def search_turns(
        self,
        learner_id: str,
        query: str,
        *,
        page: int = 0,
        page_size: int = 5,
        recipe: str | SearchRecipe = DEFAULT_RECIPE,
        kinds: Sequence[str] | None = None,
    ) -> SearchPage:
        """:meth:`search`, each turn context answered with the message it was derived from.

        The messages are read in the search's own round trips (``turn_target``); a memory
        without one (or the degraded search's hits, when Neo4j is down) comes as it is.
        """
        return await self._page(self._turns, learner_id, query, page, page_size, recipe, kinds)

    async def _page(
        self,
        searcher: HybridSearch,
        learner_id: str,
        query: str,
        page: int,
        page_size: int,
        recipe: str | SearchRecipe,
        kinds: Sequence[str] | None,
    ) -> SearchPage:
        """One page from ``searcher``, or from Redis when Neo4j is down."""
        learner_id = validate_learner_id(learner_id)
        check_page(page, page_size)
        chosen = get_recipe(recipe)
        query = validate_text(query, "query", 64 * 1024, allow_blank=True)
        if kinds is not None:
            kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        try:
            if self.degraded:
                raise StoreUnavailableError("Neo4j", "marked down after a recent failure")
            return await self._search_neo4j(searcher, learner_id, query, page, page_size, chosen, kinds)
        except StoreUnavailableError as exc:
            if self.backlog is None or not is_neo4j_down(exc):
                raise
            log.warning("archival search for a learner served from Redis (degraded): %s", exc)
            return await search_recent(
                self.backlog,
                "archival",
                learner_id,
                query,
                page=page,
                page_size=page_size,
                recipe=chosen.name,
                kinds=kinds,
            )

    async def _search_neo4j(
        self,
        searcher: HybridSearch,
        learner_id: str,
        query: str,
        page: int,
        page_size: int,
        recipe: SearchRecipe,
        kinds: list[str] | None,
    ) -> SearchPage:
        text = query[:4096].strip()
        embedding = await self.embed_query(text) if text and recipe.vector_weight else None
        sentences = None
        if embedding is not None and searcher.wants_sentences(recipe, kinds):
            # Its own transaction, started now: Neo4j runs it beside the first stage's.
            read = partial(
                searcher.sentence_list,
                learner_id=learner_id,
                embedding=embedding,
                recipe=recipe,
                page=page,
                page_size=page_size,
            )
            sentences = asyncio.ensure_future(self.read(read))

        async def work(tx: neo4j.AsyncTransaction) -> tuple[list[SearchHit], bool]:
            return await searcher.retrieve(
                tx,
                learner_id=learner_id,
                query=text,
                embedding=embedding,
                recipe=recipe,
                page=page,
                page_size=page_size,
                kinds=kinds,
                sentences=sentences,
            )

        try:
            hits, more = await self.read(work)
        finally:
            if sentences is not None and not sentences.done():
                sentences.cancel()  # the search failed before it needed the list
            elif sentences is not None and not sentences.cancelled():
                sentences.exception()  # retrieved: a failure the search did not need is not re-raised
        return SearchPage(
            results=hits,
            page=page,
            page_size=page_size,
            recipe=recipe.name,
            degraded=False,
            has_more=more,
        )
