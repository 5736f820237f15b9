"""Recall storage in Neo4j: every message of every session, kept verbatim and searchable.

Graph: ``(:Learner)-[:SAID]->(:Message {id, learner_id, session_id, role, content,
created_at, seq, metadata_json, embedding, embedding_model})`` and
``(:Message)-[:NEXT]->(:Message)`` in ``seq`` order within a session. ``seq`` is
monotonic per learner (assigned here unless the caller gives one), so it also
orders sessions. Logging MERGEs on message ids: re-logging creates nothing.

Episodic memory (issue 13): a message may carry the sensory items it attended to
(``RecallMessage.attended``); the write that logs it also records
``(:Message)-[:ATTENDED_TO]->(:SensoryTrace {id, learner_id, kind, captured_at})`` (parked
and replayed writes keep it). Once the learner has consolidated episodes
(``agent.memory.episodes``), ``search`` merges them in and ranks each compressed
original below its consolidation (``prefer_consolidations``).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.store import (
    check_page,
    fetch,
    is_neo4j_down,
    normalise_time,
)
from agent.kernel.events import event_key
from agent.kernel.stream import KernelStream
from agent.memory.episodes import (
    EPISODE_KINDS,
    annotate_consolidated,
    ensure_episode_schema,
    merge_ranked,
    prefer_consolidations,
)
from agent.memory.queries import (
    COUNT_MESSAGES,
    GET_MESSAGES,
    HAS_EPISODES,
    SESSION_MESSAGES,
)
from agent.memory.recall_writes import OP_LOG, RecallWriter
from agent.memory.recent import merge_fresh, search_recent
from agent.memory.sensory import check_traces
from agent.search.hybrid import HybridSearch
from agent.search.recipes import DEFAULT_RECIPE, SearchRecipe, get_recipe
from agent.search.results import SearchHit, SearchPage
from agent.search.targets import memory_target, message_target
from agent.validation import validate_learner_id, validate_text

log = logging.getLogger(__name__)

MAX_CONTENT_BYTES = 64 * 1024
MAX_BATCH = 1000


@dataclass(frozen=True)
class RecallMessage:
    """One message as logged and returned by recall storage."""

    id: str
    role: str
    content: str
    created_at: str | None = None
    seq: int | None = None
    metadata: dict | None = None
    attended: Mapping[str, Any] | Sequence[Mapping[str, Any]] | None = None
    """Sensory item(s) this message promotes (``SensoryBuffer.attend`` output or
    ``trace_of(item)``: ``{id, kind, captured_at}``); linked with ``ATTENDED_TO``."""


@dataclass(frozen=True)
class LogResult:
    """How many messages a ``log_messages`` call newly stored, and whether they were parked."""

    count: int
    degraded: bool = False
    """True when Neo4j was down and the batch was parked in Redis (``count`` is its size)."""


def _check_message(message: RecallMessage) -> None:
    if not isinstance(message.id, str) or not message.id or len(message.id) > 256:
        raise InvalidInputError(f"message id must be a 1-256 character string: {message.id!r}")
    if not isinstance(message.role, str) or not message.role or len(message.role) > 32:
        raise InvalidInputError(f"message role must be a short string: {message.role!r}")
    validate_text(message.id, "message id", 1024)
    validate_text(message.role, "message role", 128)
    validate_text(message.content, f"message {message.id!r} content", MAX_CONTENT_BYTES, allow_blank=True)
    if message.seq is not None and (not isinstance(message.seq, int) or message.seq < 1):
        raise InvalidInputError(f"message {message.id!r}: seq must be a positive integer")


class RecallStore(RecallWriter):
    """Every message of every session, for ``conversation_search``."""

    def __init__(self, *args: Any, kernel: KernelStream | None = None, **kwargs: Any) -> None:
        """Same arguments as ``Neo4jStore``; with ``kernel``, logging goes through the kernel stream.

        Without it (``ingest_mode="sync"``) messages are embedded and written in the call.
        """
        super().__init__(*args, **kwargs)
        self.kernel = kernel
        self._search = HybridSearch(message_target(self.names))
        self._episodes = HybridSearch(memory_target(self.names))

    async def _setup_schema_once(self, _: object = None) -> None:
        await super()._setup_schema_once()
        await ensure_episode_schema(self.driver, self.database)  # SensoryTrace ids

    async def log_messages(
        self, learner_id: str, session_id: str, messages: Sequence[RecallMessage]
    ) -> LogResult:
        """Store ``messages`` of one session (idempotent); returns how many were new.

        With the kernel stream (the default) the batch is enqueued (once per set of
        ids: the same call twice counts 0 the second time) and readable at once from
        the stream's tail; the worker embeds and writes it. ``degraded`` is then set
        when the backlog was past its bound. Without it the batch is written now, and
        ``degraded`` means Neo4j was down and the messages were parked.
        """
        learner_id = validate_learner_id(learner_id)
        session_id = validate_text(session_id, "session_id", 1024)
        if len(messages) > MAX_BATCH:
            raise InvalidInputError(f"log at most {MAX_BATCH} messages per call")
        unique: dict[str, dict[str, Any]] = {}
        now = self.now_iso()
        for message in messages:
            _check_message(message)
            unique.setdefault(
                message.id,
                {
                    "id": message.id,
                    "role": message.role,
                    "content": message.content,
                    "created_at": normalise_time(message.created_at, "created_at") or now,
                    "seq": message.seq,
                    "metadata_json": json.dumps(message.metadata) if message.metadata else None,
                    "attended": check_traces(message.attended, f"message {message.id!r}"),
                },
            )
        if not unique:
            return LogResult(0)
        payload = {
            "learner_id": learner_id,
            "session_id": session_id,
            "messages": list(unique.values()),
        }
        keys = ("id", "role", "content", "created_at", "seq")
        items = [
            {**{k: m[k] for k in keys}, "session_id": session_id, "pos": i}
            for i, m in enumerate(payload["messages"])
        ]
        if self.kernel is not None:
            enqueue = self.kernel.enqueue(
                learner_id,
                OP_LOG,
                payload,
                key=event_key(OP_LOG, learner_id, [session_id, *unique]),
                tail=items,
            )
            if self.backlog is None:
                done = await enqueue
            else:
                # The recent-items cache rides beside the enqueue (independent keys; a redelivered
                # batch re-caches ids that ``recent`` reads once): one round trip on the turn's path.
                done, _ = await asyncio.gather(enqueue, self.backlog.remember("recall", learner_id, items))
            return LogResult(0 if done.duplicate else len(unique), degraded=done.pressured)
        created = await self.write_or_park(learner_id, OP_LOG, payload, self._log)
        if self.backlog is not None:
            await self.backlog.remember("recall", learner_id, items)
        if created is None:
            return LogResult(len(unique), degraded=True)
        return LogResult(created)

    async def count(self, learner_id: str) -> int:
        """Exact number of the learner's messages in Neo4j."""
        learner_id = validate_learner_id(learner_id)

        async def work(tx: neo4j.AsyncTransaction) -> int:
            return int((await fetch(tx, COUNT_MESSAGES, learner_id=learner_id))[0]["n"])

        return await self.read(work)

    async def get(self, learner_id: str, ids: Sequence[str]) -> list[RecallMessage]:
        """The learner's messages with ``ids``, in that order; unknown ids are skipped."""
        learner_id = validate_learner_id(learner_id)
        wanted = list(dict.fromkeys(ids))

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, GET_MESSAGES, ids=wanted, learner_id=learner_id)

        try:
            rows = await self.read(work)
        except StoreUnavailableError as exc:
            if self.backlog is None or not is_neo4j_down(exc):
                raise
            log.warning("recall get served from Redis (degraded): %s", exc)
            rows = [i for i in await self.backlog.recent("recall", learner_id) if i["id"] in wanted]
        found = {r["id"]: r for r in rows}
        for item in await self.fresh(learner_id):  # logged, not drained yet
            if item["id"] in wanted and item["id"] not in found:
                found[item["id"]] = item
        return [
            RecallMessage(
                id=r["id"],
                role=r["role"],
                content=r["content"],
                created_at=r.get("created_at"),
                seq=r.get("seq"),
                metadata=json.loads(r["metadata_json"]) if r.get("metadata_json") else None,
            )
            for r in (found[i] for i in wanted if i in found)
        ]

    async def session_transcript(
        self, learner_id: str, session_id: str, *, limit: int = 400
    ) -> list[dict[str, str]]:
        """A session's messages in order, as ``{role, content}`` (evicted ones included).

        Raises ``StoreUnavailableError`` when Neo4j is down; callers fall back to the queue.
        """
        learner_id = validate_learner_id(learner_id)

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(
                tx, SESSION_MESSAGES, learner_id=learner_id, session_id=session_id, limit=limit
            )

        rows = await self.read(work)
        stored = {r["id"] for r in rows}
        tail = await self.fresh(learner_id)
        pending = [i for i in tail if i.get("session_id") == session_id and i["id"] not in stored]
        return [{"role": r["role"], "content": r["content"]} for r in [*rows, *pending]][-limit:]

    async def search(
        self,
        learner_id: str,
        query: str,
        *,
        page: int = 0,
        page_size: int = 5,
        recipe: str | SearchRecipe = DEFAULT_RECIPE,
    ) -> SearchPage:
        """Hybrid search over the learner's messages; hits carry ``session_id`` and ``role``.

        Once the learner has consolidated episodes, they are searched too (kind
        ``episode``) and merged by score; a compressed original found together with its
        consolidation ranks right below it, other originals keep their place
        (``prefer_consolidations``). Compressed message hits carry ``compressed`` and
        ``consolidated_in`` in their metadata.
        """
        learner_id = validate_learner_id(learner_id)
        check_page(page, page_size)
        query = validate_text(query, "query", 64 * 1024, allow_blank=True)
        chosen = get_recipe(recipe)
        try:
            if self.degraded:
                raise StoreUnavailableError("Neo4j", "marked down after a recent failure")
            text = query[:4096].strip()
            embedding = await self.embed_query(text) if text and chosen.vector_weight else None

            async def work(tx: neo4j.AsyncTransaction) -> tuple[list[SearchHit], bool]:
                rows = await fetch(tx, HAS_EPISODES, learner_id=learner_id) if text else []
                if not (rows and rows[0]["any"]):
                    return await self._search.retrieve(
                        tx,
                        learner_id=learner_id,
                        query=text,
                        embedding=embedding,
                        recipe=chosen,
                        page=page,
                        page_size=page_size,
                        kinds=None,
                    )
                return await self._episodic_page(tx, learner_id, text, embedding, chosen, page, page_size)

            hits, more = await self.read(work)
        except StoreUnavailableError as exc:
            if self.backlog is None or not is_neo4j_down(exc):
                raise
            log.warning("recall search for a learner served from Redis (degraded): %s", exc)
            return await search_recent(
                self.backlog,
                "recall",
                learner_id,
                query,
                page=page,
                page_size=page_size,
                recipe=chosen.name,
            )
        found = SearchPage(
            results=hits,
            page=page,
            page_size=page_size,
            recipe=chosen.name,
            degraded=False,
            has_more=more,
        )
        return merge_fresh(found, await self.fresh(learner_id), query)

    async def fresh(self, learner_id: str) -> list[dict[str, Any]]:
        """Messages logged and not drained into Neo4j yet (oldest first); [] without the kernel.

        A Redis failure here costs only freshness: it is logged and the stored results stand.
        """
        if self.kernel is None:
            return []
        try:
            return await self.kernel.tail(learner_id)
        except StoreUnavailableError as exc:
            log.warning("recent messages not merged into a recall read: %s", exc)
            return []

    async def _episodic_page(
        self,
        tx: neo4j.AsyncTransaction,
        learner_id: str,
        text: str,
        embedding: list[float] | None,
        recipe: SearchRecipe,
        page: int,
        page_size: int,
    ) -> tuple[list[SearchHit], bool]:
        """One page of messages and consolidated episodes, consolidations preferred."""
        window = (page + 1) * page_size  # both lists from the top, then merged and paged
        common: dict[str, Any] = {
            "learner_id": learner_id,
            "query": text,
            "embedding": embedding,
            "recipe": recipe,
            "page": 0,
            "page_size": window,
        }
        messages, more_messages = await self._search.retrieve(tx, kinds=None, **common)
        episodes, more_episodes = await self._episodes.retrieve(tx, kinds=list(EPISODE_KINDS), **common)
        messages = await annotate_consolidated(tx, learner_id, messages)
        ranked = prefer_consolidations(merge_ranked(messages, episodes))
        start = page * page_size
        more = more_messages or more_episodes or len(ranked) > start + page_size
        return ranked[start : start + page_size], more
