"""Degraded mode: Neo4j writes parked in Redis, recent items cached for reads, replay.

Redis layout (one learner never shares a key with another):
- ``kag:backlog:stream:{learner_id}``: a Stream of parked writes, in write order. Each entry
  is ``{op, payload (JSON), at}``; ``op`` names the store operation
  (``archival.insert``, ``archival.summary``, ``recall.log``).
- ``kag:backlog:learners``: a Set of learners whose stream may hold entries.
- ``kag:backlog:dead:{learner_id}``: entries that can never apply (e.g. an id owned by
  another learner), kept for inspection instead of blocking the stream.
- ``kag:recent:{archival|recall}:{learner_id}``: a List of the newest items (JSON,
  newest first, capped), written on every write, so searches still work without Neo4j.

The outage breaker and replay locks are shared per Redis client and prefix, so use
one prefix per Neo4j database. Replay applies entries in stream order through the
store that owns each ``op`` (stores ``register`` themselves, or pass them to
``replay``); every op MERGEs on ids, so replaying twice creates nothing new. An
entry is deleted only after it was applied (or dead-lettered). A per-learner lock
(asyncio in-process, ``SET NX`` in Redis across processes) keeps two replays apart.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import uuid
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from agent.errors import KAGError, StoreUnavailableError

log = logging.getLogger(__name__)

PREFIX = "kag"
RECENT_LIMIT = 500
LOCK_TTL_MS = 120_000
_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0"


class BacklogConsumer(Protocol):
    """A store that can apply parked writes."""

    backlog_ops: frozenset[str]

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Apply one parked write idempotently; raise StoreUnavailableError if Neo4j is down."""
        ...


@dataclass
class _Shared:
    """Process-wide state per Redis client (stores are rebuilt per request)."""

    down_until: float = 0.0
    down: bool = False
    maybe_pending: bool = True  # unknown until checked
    locks: dict[str, asyncio.Lock] = field(default_factory=dict)
    tasks: set[asyncio.Task[int]] = field(default_factory=set)
    routes: dict[str, BacklogConsumer] = field(default_factory=dict)
    """Every op any store registered on this Redis: a replay from any backlog instance drains all."""


_SHARED: weakref.WeakKeyDictionary[aioredis.Redis, dict[str, _Shared]] = weakref.WeakKeyDictionary()


class WriteBacklog:
    """Durable Redis backlog for Neo4j writes, plus the recent-items cache for reads."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        prefix: str = PREFIX,
        recent_limit: int = RECENT_LIMIT,
        retry_interval: float = 2.0,
        auto_replay: bool = True,
    ) -> None:
        """Use ``redis`` (``decode_responses=True``); ``retry_interval`` s between probes."""
        self.redis = redis
        self.prefix = prefix
        self.recent_limit = recent_limit
        self.retry_interval = retry_interval
        self.auto_replay = auto_replay
        self._consumers: list[BacklogConsumer] = []
        self._shared = _SHARED.setdefault(redis, {}).setdefault(prefix, _Shared())

    # ----- keys -----
    def stream_key(self, learner_id: str) -> str:
        """The learner's backlog stream."""
        return f"{self.prefix}:backlog:stream:{learner_id}"

    def dead_key(self, learner_id: str) -> str:
        """Where entries that can never apply are kept."""
        return f"{self.prefix}:backlog:dead:{learner_id}"

    @property
    def learners_key(self) -> str:
        """Set of learners with parked writes."""
        return f"{self.prefix}:backlog:learners"

    def recent_key(self, kind: str, learner_id: str) -> str:
        """The learner's recent ``archival`` or ``recall`` items."""
        return f"{self.prefix}:recent:{kind}:{learner_id}"

    # ----- Neo4j health (a small circuit breaker) -----
    def register(self, consumer: BacklogConsumer) -> None:
        """Let replay route ``consumer.backlog_ops`` to ``consumer``."""
        self._consumers.append(consumer)
        for op in consumer.backlog_ops:
            self._shared.routes[op] = consumer

    def neo4j_suspended(self) -> bool:
        """True within ``retry_interval`` of a failure: skip Neo4j, go straight to Redis."""
        return self._shared.down and time.monotonic() < self._shared.down_until

    def mark_down(self, detail: str) -> None:
        """Record a Neo4j outage; log ERROR once per outage."""
        if not self._shared.down:
            log.error("Neo4j disconnected (%s): Redis-only mode, writes are backlogged", detail)
        self._shared.down = True
        self._shared.down_until = time.monotonic() + self.retry_interval

    def mark_up(self) -> None:
        """Record a successful Neo4j call; start a replay if writes may be parked."""
        if self._shared.down:
            log.warning("Neo4j reachable again: replaying the write backlog")
            self._shared.down = False
            self._shared.maybe_pending = True
        if self.auto_replay and self._shared.maybe_pending and self._shared.routes:
            self._shared.maybe_pending = False  # the task resets it if entries remain
            task = asyncio.get_running_loop().create_task(self._auto_replay())
            self._shared.tasks.add(task)
            task.add_done_callback(self._shared.tasks.discard)

    async def _auto_replay(self) -> int:
        try:
            return await self.replay(wait=False)
        except KAGError as exc:
            self._shared.maybe_pending = True
            log.warning("automatic backlog replay stopped: %s", exc)
            return 0

    async def wait_idle(self) -> None:
        """Wait for automatic replays started by this process."""
        while self._shared.tasks:
            await asyncio.gather(*list(self._shared.tasks), return_exceptions=True)

    # ----- writing -----
    async def enqueue(self, learner_id: str, op: str, payload: Mapping[str, Any]) -> str:
        """Park one write for ``learner_id``; returns the stream entry id."""
        fields = {"op": op, "payload": json.dumps(payload), "at": str(time.time())}
        try:
            # Two keys in two hash slots, so no MULTI (Redis Cluster refuses one across slots).
            # The learner is registered first: a parked entry is always findable, and a
            # registration whose XADD failed is harmless (replay finds the stream empty).
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.sadd(self.learners_key, learner_id)
                pipe.xadd(self.stream_key(learner_id), fields)
                _, entry_id = await pipe.execute()
        except (RedisError, OSError) as exc:
            raise StoreUnavailableError("Neo4j and Redis", f"cannot park the write: {exc}") from exc
        self._shared.maybe_pending = True
        return str(entry_id)

    async def remember(self, kind: str, learner_id: str, items: Sequence[Mapping[str, Any]]) -> bool:
        """Cache ``items`` (each with ``id``, oldest first) as the learner's newest; False if Redis failed.

        LPUSH puts the last item at the head, so the list reads newest first.
        """
        if not items:
            return True
        key = self.recent_key(kind, learner_id)
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.lpush(key, *[json.dumps(item) for item in items])
                pipe.ltrim(key, 0, self.recent_limit - 1)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            log.warning("could not cache recent %s items in Redis: %s", kind, exc)
            return False
        return True

    async def recent(self, kind: str, learner_id: str) -> list[dict[str, Any]]:
        """The learner's cached items, newest first, one per id."""
        try:
            raw = await self.redis.lrange(self.recent_key(kind, learner_id), 0, -1)
        except (RedisError, OSError) as exc:
            raise StoreUnavailableError("Neo4j and Redis", f"no fallback for reads: {exc}") from exc
        seen: set[str] = set()
        items = []
        for entry in raw:
            item = json.loads(entry)
            if item.get("id") not in seen:
                seen.add(item.get("id"))
                items.append(item)
        return items

    async def pending(self, learner_id: str | None = None) -> int:
        """Parked entries for ``learner_id`` (or all learners)."""
        if learner_id is not None:
            return int(await self.redis.xlen(self.stream_key(learner_id)))
        total = 0
        for learner in await self.redis.smembers(self.learners_key):
            total += int(await self.redis.xlen(self.stream_key(learner)))
        return total

    async def has_pending(self, learner_id: str) -> bool:
        """Cheap check used before each write so new writes never overtake parked ones."""
        shared = self._shared
        if not (shared.maybe_pending or shared.down or shared.tasks):
            return False
        try:
            return bool(await self.redis.sismember(self.learners_key, learner_id))
        except (RedisError, OSError):
            return False

    # ----- replay -----
    async def replay(
        self,
        *consumers: BacklogConsumer,
        learner_id: str | None = None,
        wait: bool = True,
    ) -> int:
        """Apply parked writes (one learner or all); returns how many entries were applied.

        ``consumers`` add to the registered stores. With ``wait=False`` a learner whose
        replay is already running elsewhere is skipped. Stops early if Neo4j goes down.
        """
        routes = {**self._shared.routes, **{op: c for c in consumers for op in c.backlog_ops}}
        if learner_id is not None:
            learners = [learner_id]
        else:
            try:
                learners = sorted(await self.redis.smembers(self.learners_key))
            except (RedisError, OSError) as exc:
                raise StoreUnavailableError("Redis", str(exc)) from exc
        applied = 0
        for learner in learners:
            count, finished = await self._replay_learner(learner, routes, wait)
            applied += count
            if not finished:
                self._shared.maybe_pending = True
                break
        if applied:
            log.warning("replayed %d parked write(s) into Neo4j", applied)
        return applied

    async def _replay_learner(
        self, learner_id: str, routes: Mapping[str, BacklogConsumer], wait: bool
    ) -> tuple[int, bool]:
        lock = self._shared.locks.setdefault(learner_id, asyncio.Lock())
        if not wait and lock.locked():
            return 0, True
        async with lock:
            try:
                token = await self._acquire_redis_lock(learner_id, wait)
                if token is None:
                    return 0, True
                try:
                    return await self._drain(learner_id, routes)
                finally:
                    await self.redis.eval(_RELEASE, 1, self._lock_key(learner_id), token)
            except (RedisError, OSError) as exc:
                raise StoreUnavailableError("Redis", f"backlog replay interrupted: {exc}") from exc

    def _lock_key(self, learner_id: str) -> str:
        return f"{self.prefix}:backlog:lock:{learner_id}"

    async def _acquire_redis_lock(self, learner_id: str, wait: bool) -> str | None:
        token = uuid.uuid4().hex
        deadline = time.monotonic() + LOCK_TTL_MS / 1000
        while True:
            if await self.redis.set(self._lock_key(learner_id), token, nx=True, px=LOCK_TTL_MS):
                return token
            if not wait or time.monotonic() > deadline:
                return None
            await asyncio.sleep(0.1)

    async def _drain(self, learner_id: str, routes: Mapping[str, BacklogConsumer]) -> tuple[int, bool]:
        key = self.stream_key(learner_id)
        applied, start, skipped = 0, "-", 0
        while True:
            entries = await self.redis.xrange(key, min=start, count=100)
            if not entries:
                break
            for entry_id, fields in entries:
                start = f"({entry_id}"
                consumer = routes.get(fields.get("op", ""))
                if consumer is None:
                    skipped += 1  # its store is not wired here; leave it for one that is
                    continue
                try:
                    await consumer.apply_backlog_entry(fields["op"], json.loads(fields["payload"]))
                except StoreUnavailableError:
                    return applied, False
                except (ValueError, KeyError) as exc:  # InvalidInputError is a ValueError
                    # Bad data, not an outage: it would fail forever, so it must not block the rest.
                    log.error("backlog entry %s can never apply, dead-lettered: %s", entry_id, exc)
                    await self.redis.xadd(self.dead_key(learner_id), {**fields, "error": str(exc)})
                except KAGError as exc:
                    # E.g. auth or permissions: keep the entry and retry later.
                    log.warning("backlog replay paused at entry %s: %s", entry_id, exc)
                    return applied, False
                else:
                    applied += 1
                await self.redis.xdel(key, entry_id)
        if skipped:
            log.warning(
                "backlog replay left %d entries: no store for their op was registered or passed",
                skipped,
            )
        else:
            await self.redis.srem(self.learners_key, learner_id)
            if await self.redis.xlen(key):  # a write raced in after the drain
                await self.redis.sadd(self.learners_key, learner_id)
        return applied, True
