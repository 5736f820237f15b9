"""Sensory memory: raw input in Redis for a few minutes, per learner (issue 13).

Raw input lands here first: the request, the context payload, long pasted content and
tool output. What the heartbeat attends to (the request it logs, the tool output it
uses) is taken out with ``attend`` and promoted to episodic memory: the recall message
that records it carries the item's trace (``RecallMessage.attended``), and the same
write links ``(:Message)-[:ATTENDED_TO]->(:SensoryTrace)``. Everything else expires on
its own after ``ttl_seconds`` (300 s). Input attended to as it arrives (the request, a
tool output the heartbeat logs at once) goes through ``attended``: the item ``capture``
then ``attend`` would hand back, built without the two round trips, since it would
leave the buffer in the same step it entered it.

Redis layout (all keys of one learner share a Redis Cluster hash slot through the
``{learner_id}`` hash tag, so pipelines and erasure stay in one slot):
- ``kag:sensory:{<learner_id>}:item:<id>``: one JSON item ``{id, kind, content, meta,
  captured_at}`` with its own TTL (``SET EX``).
- ``kag:sensory:{<learner_id>}:index``: a sorted set of the learner's live item ids
  scored by capture time; its TTL is refreshed on every capture, so it never outlives
  the newest item. At most ``max_items`` ids; the oldest are dropped (with their items)
  when it overflows.
"""

from __future__ import annotations

import json
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from agent.clock import Clock, system_clock
from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.store import normalise_time
from agent.validation import validate_learner_id, validate_text

PREFIX = "kag"
TTL_SECONDS = 300
MAX_ITEMS = 64
MAX_CONTENT_BYTES = 64 * 1024
"""Same cap as a recall message, so an attended item can always be logged verbatim."""
MAX_META_BYTES = 4 * 1024
KINDS = frozenset({"request", "context", "paste", "tool_output"})
_ID = re.compile(r"^[0-9a-f]{32}$")


def sensory_prefix(learner_id: str, prefix: str = PREFIX) -> str:
    """The hash-tagged key prefix of one learner's sensory buffer."""
    return f"{prefix}:sensory:{{{learner_id}}}"


def trace_of(item: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an attended item that a recall message records (``RecallMessage.attended``)."""
    return {"id": item["id"], "kind": item["kind"], "captured_at": item["captured_at"]}


def check_traces(attended: object, owner: str) -> list[dict[str, Any]]:
    """Validated traces ``{id, kind, captured_at}`` of one attended item or a list of them.

    What ``RecallMessage.attended`` accepts: ``attend`` output or ``trace_of(item)``;
    None means no trace. ``owner`` names the message in errors.
    """
    if attended is None:
        return []
    items = [attended] if isinstance(attended, Mapping) else attended
    if isinstance(items, str) or not isinstance(items, Sequence) or len(items) > 16:
        raise InvalidInputError(f"{owner}: attended must be a sensory item or a list of at most 16")
    traces = []
    for item in items:
        if not isinstance(item, Mapping):
            raise InvalidInputError(f"{owner}: attended items must be mappings")
        trace = {
            "id": validate_text(item.get("id"), "attended id", 64),
            "kind": validate_text(item.get("kind"), "attended kind", 32),
            "captured_at": normalise_time(item.get("captured_at"), "attended captured_at"),
        }
        if trace["captured_at"] is None:
            raise InvalidInputError(f"{owner}: attended captured_at is required")
        traces.append(trace)
    return traces


def _redis_down(exc: BaseException) -> StoreUnavailableError:
    return StoreUnavailableError("Redis", str(exc) or type(exc).__name__)


class SensoryBuffer:
    """Per-learner raw input with a short TTL; attended items are taken out for promotion."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        ttl_seconds: int = TTL_SECONDS,
        clock: Clock = system_clock,
        prefix: str = PREFIX,
        max_items: int = MAX_ITEMS,
    ) -> None:
        """Use ``redis`` (``decode_responses=True``); items live ``ttl_seconds``; ``clock`` stamps them."""
        if not isinstance(ttl_seconds, int) or isinstance(ttl_seconds, bool) or ttl_seconds < 1:
            raise InvalidInputError(f"ttl_seconds must be a positive integer, got {ttl_seconds!r}")
        self.redis = redis
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self.prefix = prefix
        self.max_items = max_items

    # ----- keys -----
    def index_key(self, learner_id: str) -> str:
        """The sorted set of the learner's live item ids."""
        return f"{sensory_prefix(learner_id, self.prefix)}:index"

    def item_key(self, learner_id: str, item_id: str) -> str:
        """One captured item."""
        return f"{sensory_prefix(learner_id, self.prefix)}:item:{item_id}"

    # ----- operations -----
    async def capture(
        self, learner_id: str, kind: str, content: str, *, meta: Mapping[str, Any] | None = None
    ) -> str:
        """Buffer one raw input (kinds: request, context, paste, tool_output) and return its id.

        One pipelined round trip (a second one only when the buffer overflows
        ``max_items`` and the oldest items are dropped).
        """
        learner_id = validate_learner_id(learner_id)
        item = self._item(kind, content, meta)
        item_id = item["id"]
        index = self.index_key(learner_id)
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.set(self.item_key(learner_id, item_id), json.dumps(item), ex=self.ttl_seconds)
                pipe.zadd(index, {item_id: self._score(item)})
                pipe.expire(index, self.ttl_seconds)
                pipe.zcard(index)
                size = (await pipe.execute())[-1]
            if size > self.max_items:
                await self._trim(learner_id, int(size) - self.max_items)
        except (RedisError, OSError) as exc:
            raise _redis_down(exc) from exc
        return item_id

    def attended(
        self, learner_id: str, kind: str, content: str, *, meta: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """An input attended to as it arrives: what ``capture`` then ``attend`` would return.

        Validated and stamped like a captured item, but never written to Redis: it would
        leave the buffer in the step it entered it, so the buffer ends the same.
        """
        validate_learner_id(learner_id)
        return self._item(kind, content, meta)

    async def attend(self, learner_id: str, ids: Sequence[str]) -> list[dict[str, Any]]:
        """Take the attended items out of the buffer (``GETDEL``) and return them, in ``ids`` order.

        Unknown or already expired ids are skipped; an item is returned to one caller only.
        Pass the result (or ``trace_of(item)``) as ``RecallMessage.attended`` to promote it.
        """
        learner_id = validate_learner_id(learner_id)
        wanted = self._check_ids(ids)
        if not wanted:
            return []
        try:
            async with self.redis.pipeline(transaction=True) as pipe:
                for item_id in wanted:
                    pipe.getdel(self.item_key(learner_id, item_id))
                pipe.zrem(self.index_key(learner_id), *wanted)
                raw = (await pipe.execute())[:-1]
        except (RedisError, OSError) as exc:
            raise _redis_down(exc) from exc
        return [json.loads(value) for value in raw if value is not None]

    async def peek(self, learner_id: str) -> list[dict[str, Any]]:
        """The learner's live items, oldest first, without taking them."""
        learner_id = validate_learner_id(learner_id)
        index = self.index_key(learner_id)
        try:
            ids = await self.redis.zrange(index, 0, -1)
            if not ids:
                return []
            raw = await self.redis.mget([self.item_key(learner_id, i) for i in ids])
            gone = [i for i, value in zip(ids, raw, strict=True) if value is None]
            if gone:  # expired on their own: forget them
                await self.redis.zrem(index, *gone)
        except (RedisError, OSError) as exc:
            raise _redis_down(exc) from exc
        return [json.loads(value) for value in raw if value is not None]

    async def clear(self, learner_id: str) -> int:
        """Delete the learner's whole buffer (erasure); returns how many keys were removed."""
        learner_id = validate_learner_id(learner_id)
        index = self.index_key(learner_id)
        try:
            ids = await self.redis.zrange(index, 0, -1)
            return int(await self.redis.delete(index, *[self.item_key(learner_id, i) for i in ids]))
        except (RedisError, OSError) as exc:
            raise _redis_down(exc) from exc

    # ----- helpers -----
    def _item(self, kind: str, content: str, meta: Mapping[str, Any] | None) -> dict[str, Any]:
        if kind not in KINDS:
            raise InvalidInputError(f"sensory kind must be one of {sorted(KINDS)}, got {kind!r}")
        content = validate_text(content, f"sensory {kind} content", MAX_CONTENT_BYTES)
        meta_json = self._meta_json(meta)
        # Time-ordered ids: items captured at the same clock time still list in capture order.
        return {
            "id": f"{time.time_ns():016x}{secrets.token_hex(8)}",
            "kind": kind,
            "content": content,
            "meta": json.loads(meta_json),
            "captured_at": self.clock().isoformat(),
        }

    @staticmethod
    def _score(item: Mapping[str, Any]) -> float:
        return datetime.fromisoformat(item["captured_at"]).timestamp()

    async def _trim(self, learner_id: str, excess: int) -> None:
        index = self.index_key(learner_id)
        oldest = await self.redis.zrange(index, 0, excess - 1)
        if oldest:
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.zrem(index, *oldest)
                pipe.delete(*[self.item_key(learner_id, i) for i in oldest])
                await pipe.execute()

    @staticmethod
    def _meta_json(meta: Mapping[str, Any] | None) -> str:
        if meta is None:
            return "{}"
        if not isinstance(meta, Mapping):
            raise InvalidInputError(f"sensory meta must be a mapping, got {type(meta).__name__}")
        try:
            text = json.dumps(dict(meta), ensure_ascii=False)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"sensory meta must be JSON-serialisable: {exc}") from None
        return validate_text(text, "sensory meta", MAX_META_BYTES)

    @staticmethod
    def _check_ids(ids: Sequence[str]) -> list[str]:
        if isinstance(ids, str) or not isinstance(ids, Sequence):
            raise InvalidInputError("ids must be a list of sensory item ids")
        if len(ids) > MAX_ITEMS:
            raise InvalidInputError(f"attend at most {MAX_ITEMS} items per call")
        for item_id in ids:
            if not isinstance(item_id, str) or not _ID.match(item_id):
                raise InvalidInputError(f"sensory item id must be 32 hex characters, got {item_id!r}")
        return list(dict.fromkeys(ids))
