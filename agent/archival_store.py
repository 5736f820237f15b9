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

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import neo4j

from agent.archival_queries import INSERT_MEMORY, WRITE_SUMMARY
from agent.errors import InvalidInputError, StoreUnavailableError
from agent.hybrid_search import HybridSearch, NotesSource, find_notes, memory_target
from agent.neo4j_schema import learner_key
from agent.neo4j_store import (
    Neo4jStore,
    check_learner_id,
    check_page,
    check_text,
    fetch,
    is_neo4j_down,
    normalise_time,
    now_iso,
)
from agent.recent_search import search_recent
from agent.search_recipes import RECIPES, SearchRecipe, get_recipe
from agent.search_results import SearchHit, SearchPage

log = logging.getLogger(__name__)

OP_INSERT = "archival.insert"
OP_SUMMARY = "archival.summary"
MAX_TAGS = 20
_KIND = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
_ID = re.compile(r"^[^\x00-\x1f\x7f]{1,256}$")  # ids only ever travel as parameters


@dataclass(frozen=True)
class ArchivalRecord:
    """What ``insert`` stored (or parked, when ``degraded``)."""

    id: str
    learner_id: str
    text: str
    kind: str
    tags: list[str]
    created_at: str
    seq: int | None = None
    """Monotonic per learner; None while the write is parked in the backlog."""
    session_id: str | None = None
    occurred_at: str | None = None
    source_ids: list[str] = field(default_factory=list)
    created: bool | None = None
    """False when the memory already existed (idempotent insert); None when parked."""
    linked_sources: int = 0
    degraded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


class SummaryId(str):
    """A summary id that also says whether the write was parked (``degraded``)."""

    degraded: bool = False

    def __new__(cls, value: str, degraded: bool = False) -> SummaryId:
        """Wrap ``value``."""
        obj = super().__new__(cls, value)
        obj.degraded = degraded
        return obj


def memory_id_for(learner_id: str, content: str, kind: str) -> str:
    """Stable id of a memory: the same learner, kind and content give the same id."""
    digest = hashlib.sha256(f"{learner_id}\x00{kind}\x00{content}".encode()).hexdigest()
    return f"mem-{digest[:32]}"


def summary_id_for(learner_id: str, text: str, message_ids: Sequence[str], previous: str | None) -> str:
    """Stable id of a summary: a retried archive step writes the same node."""
    material = "\x00".join([learner_id, text, previous or "", *sorted(message_ids)])
    return f"sum-{hashlib.sha256(material.encode()).hexdigest()[:32]}"


def _ids(values: Sequence[str], name: str) -> list[str]:
    if isinstance(values, str):
        raise InvalidInputError(f"{name} must be a sequence of ids, not a string")
    out = []
    for value in values:
        if not isinstance(value, str) or not _ID.match(value):
            raise InvalidInputError(f"{name}: invalid id {str(value)[:80]!r}")
        out.append(value)
    return list(dict.fromkeys(out))


def _tags(tags: Sequence[str]) -> list[str]:
    if isinstance(tags, str):
        tags = [tags]
    cleaned = [t.strip() for t in tags if isinstance(t, str) and t.strip()]
    if len(cleaned) > MAX_TAGS or any(len(t) > 64 for t in cleaned):
        raise InvalidInputError(f"at most {MAX_TAGS} tags of at most 64 characters")
    return list(dict.fromkeys(cleaned))


class ArchivalStore(Neo4jStore):
    """Long-term archival memory for every learner (the MemGPT 'disk')."""

    backlog_ops = frozenset({OP_INSERT, OP_SUMMARY})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Same arguments as ``Neo4jStore``: driver, embeddings, database, backlog."""
        super().__init__(*args, **kwargs)
        self._search = HybridSearch(memory_target(self.names))

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
        check_learner_id(learner_id)
        check_text(content, "content")
        if not isinstance(kind, str) or not _KIND.match(kind):
            raise InvalidInputError(f"kind must match {_KIND.pattern}, got {kind!r}")
        if memory_id is not None and not _ID.match(str(memory_id)):
            raise InvalidInputError(f"invalid memory_id {str(memory_id)[:80]!r}")
        if session_id is not None and not _ID.match(str(session_id)):
            raise InvalidInputError(f"invalid session_id {str(session_id)[:80]!r}")
        created_at = now_iso()
        payload = {
            "learner_id": learner_id,
            "id": memory_id or memory_id_for(learner_id, content, kind),
            "text": content,
            "tags": _tags(tags),
            "kind": kind,
            "source_ids": _ids(source_ids, "source_ids"),
            "occurred_at": normalise_time(occurred_at, "occurred_at") or created_at,
            "session_id": session_id,
            "created_at": created_at,
        }
        record = await self.write_or_park(learner_id, OP_INSERT, payload, self._insert)
        if record is None:
            record = self._record(payload, seq=None, created=None, linked=0, degraded=True)
        await self._remember(payload)
        return record

    async def write_summary(
        self,
        learner_id: str,
        text: str,
        *,
        message_ids: Sequence[str],
        previous_summary_id: str | None,
        session_id: str | None,
        raw: bool = False,
    ) -> str:
        """Write a session summary folding ``previous_summary_id``; returns its id.

        The returned ``SummaryId`` is a ``str`` with ``.degraded`` set when parked.
        """
        check_learner_id(learner_id)
        check_text(text, "summary text")
        ids = _ids(message_ids, "message_ids")
        if previous_summary_id is not None and not _ID.match(previous_summary_id):
            raise InvalidInputError(f"invalid previous_summary_id {previous_summary_id[:80]!r}")
        if session_id is not None and not _ID.match(str(session_id)):
            raise InvalidInputError(f"invalid session_id {str(session_id)[:80]!r}")
        created_at = now_iso()
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
        await self._remember(payload)
        return SummaryId(payload["id"], degraded=result is None)

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked write (MERGE on ids, so replays are idempotent)."""
        if op == OP_INSERT:
            await self._insert(payload)
        elif op == OP_SUMMARY:
            await self._summary(payload)
        else:
            raise InvalidInputError(f"archival store cannot apply {op!r}")

    def _props(self, payload: dict[str, Any], embedding: list[float]) -> dict[str, Any]:
        keys = ("learner_id", "text", "tags", "kind", "created_at", "occurred_at", "session_id")
        props = {k: payload.get(k) for k in keys if payload.get(k) is not None}
        props.update(
            id=payload["id"],
            learner_key=learner_key(payload["learner_id"]),
            embedding=embedding,
            embedding_model=self.embeddings.model_name,
        )
        return props

    async def _insert(self, payload: dict[str, Any]) -> ArchivalRecord:
        [embedding] = await self.embed_documents([payload["text"]])
        props = {**self._props(payload, embedding), "source_ids": payload["source_ids"]}

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(
                tx,
                INSERT_MEMORY,
                learner_id=payload["learner_id"],
                id=payload["id"],
                props=props,
                source_ids=payload["source_ids"],
            )

        rows = await self.write(work)
        if not rows:
            raise InvalidInputError(f"memory id {payload['id']!r} belongs to another learner")
        row = rows[0]
        return self._record(
            {**payload, "created_at": row["created_at"]},
            seq=row["seq"],
            created=row["created"],
            linked=row["linked"],
            degraded=False,
        )

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
            log.warning(
                "summary %s links %d of %d messages (the rest are not in recall storage)",
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

    async def _remember(self, payload: dict[str, Any]) -> None:
        if self.backlog is not None:
            keys = ("id", "text", "kind", "tags", "created_at", "session_id")
            await self.backlog.remember(
                "archival", payload["learner_id"], [{k: payload.get(k) for k in keys}]
            )

    # ----- reads -----
    async def search(
        self,
        learner_id: str,
        query: str,
        *,
        page: int = 0,
        page_size: int = 5,
        recipe: str | SearchRecipe = "hybrid_rrf",
        kinds: Sequence[str] | None = None,
    ) -> SearchPage:
        """Hybrid search of the learner's memories and summaries, one page at a time."""
        check_learner_id(learner_id)
        check_page(page, page_size)
        chosen = get_recipe(recipe)
        if not isinstance(query, str):
            raise InvalidInputError("query must be a string")
        if kinds is not None:
            kinds = [kinds] if isinstance(kinds, str) else list(kinds)
        try:
            if self.degraded:
                raise StoreUnavailableError("Neo4j", "marked down after a recent failure")
            return await self._search_neo4j(learner_id, query, page, page_size, chosen, kinds)
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
        learner_id: str,
        query: str,
        page: int,
        page_size: int,
        recipe: SearchRecipe,
        kinds: list[str] | None,
    ) -> SearchPage:
        text = query[:4096].strip()
        needs_vector = bool(text) and (recipe.vector_weight or recipe.notes_weight)
        embedding = await self.embed_query(text) if needs_vector else None
        cache_key = id(self.driver)

        async def work(tx: neo4j.AsyncTransaction) -> tuple[list[SearchHit], bool, SearchRecipe]:
            effective = recipe
            notes: NotesSource | None = None
            if recipe.notes_weight:
                notes = await find_notes(tx, int(self.embeddings.dimension), cache_key)
                if notes is None and recipe.fallback:
                    effective = RECIPES[recipe.fallback]
            hits, more = await self._search.retrieve(
                tx,
                learner_id=learner_id,
                query=text,
                embedding=embedding,
                recipe=effective,
                page=page,
                page_size=page_size,
                kinds=kinds,
                notes=notes,
            )
            return hits, more, effective

        hits, more, effective = await self.read(work)
        return SearchPage(
            results=hits,
            page=page,
            page_size=page_size,
            recipe=effective.name,
            degraded=False,
            has_more=more,
            requested_recipe=recipe.name if effective is not recipe else None,
        )
