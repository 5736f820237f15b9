"""Degraded mode on the kernel stream: writes parked while Neo4j is down, recent items for reads.

There is one durable write path (issue 14): the learner's kernel stream
(``agent.kernel.stream``). Recall messages always go there; the other stores write
Neo4j directly and, while it is down, **park** the write on the same stream (marked
``parked``). The kernel worker drains both kinds; ``replay`` drains one learner now.
So the backlog is not a second queue: when Neo4j is down the stream simply grows,
and it drains when Neo4j returns.

This module keeps what is specific to outages:
- a small circuit breaker per Redis client and prefix (``neo4j_suspended``,
  ``mark_down``/``mark_up``; coming back up starts a replay of every learner);
- ``has_pending``: a learner with parked writes gets its new direct writes parked
  too, so a new write never overtakes an older parked one;
- ``kag:recent:{archival|recall}:{learner_id}``: a List of the newest items (JSON,
  newest first, capped), written on every write, so searches still work without Neo4j.

Replay applies entries in stream order through the store that owns each ``op``
(stores ``register`` themselves, or pass them to ``replay``); every op MERGEs on ids,
so replaying twice creates nothing new. An entry is acknowledged only after it was
applied (or dead-lettered). The stream's per-learner lock keeps two drainers apart.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError

from agent.errors import KAGError, StoreUnavailableError
from agent.kernel.drain import EventConsumer, Hook, consumer_name, drain_learner
from agent.kernel.stream import KernelStream

log = logging.getLogger(__name__)

PREFIX = "kag"
RECENT_LIMIT = 500
LOCK_TTL_MS = 120_000


BacklogConsumer = EventConsumer
"""A store that can apply parked writes (``backlog_ops`` + ``apply_backlog_entry``)."""


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
    hooks: dict[str, dict[str, Hook]] = field(default_factory=dict)
    """Write-time derivations run after an op applies, by op and name (``add_hook``)."""


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
        kernel: KernelStream | None = None,
    ) -> None:
        """Use ``redis`` (``decode_responses=True``); ``retry_interval`` s between probes.

        ``kernel`` is the stream parked writes go to (default: one over ``redis`` and ``prefix``).
        """
        self.redis = redis
        self.prefix = prefix
        self.kernel = kernel or KernelStream(redis, prefix=prefix)
        self.recent_limit = recent_limit
        self.retry_interval = retry_interval
        self.auto_replay = auto_replay
        self._consumers: list[BacklogConsumer] = []
        self._shared = _SHARED.setdefault(redis, {}).setdefault(prefix, _Shared())

    # ----- keys -----
    def stream_key(self, learner_id: str) -> str:
        """The learner's kernel stream (parked writes and deferred ones)."""
        return self.kernel.stream_key(learner_id)

    def dead_key(self, learner_id: str) -> str:
        """Where entries that can never apply are kept."""
        return self.kernel.dead_key(learner_id)

    @property
    def learners_key(self) -> str:
        """Set of learners with parked writes."""
        return self.kernel.parked_key

    def recent_key(self, kind: str, learner_id: str) -> str:
        """The learner's recent ``archival`` or ``recall`` items."""
        return f"{self.prefix}:recent:{kind}:{learner_id}"

    # ----- Neo4j health (a small circuit breaker) -----
    def register(self, consumer: BacklogConsumer) -> None:
        """Let replay route ``consumer.backlog_ops`` to ``consumer``."""
        self._consumers.append(consumer)
        for op in consumer.backlog_ops:
            self._shared.routes[op] = consumer

    def add_hook(self, op: str, name: str, hook: Hook) -> None:
        """Run ``hook(learner_id, payloads)`` after every run of ``op`` applies (one per ``name``)."""
        self._shared.hooks.setdefault(op, {})[name] = hook

    @property
    def routes(self) -> dict[str, BacklogConsumer]:
        """Every op registered on this Redis and prefix, with the store that applies it."""
        return self._shared.routes

    @property
    def hooks(self) -> dict[str, list[Hook]]:
        """The write-time derivations per op."""
        return {op: list(named.values()) for op, named in self._shared.hooks.items()}

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
        """Park one write for ``learner_id`` on its kernel stream; returns the entry id."""
        try:
            done = await self.kernel.enqueue(learner_id, op, payload, parked=True)
        except StoreUnavailableError as exc:
            raise StoreUnavailableError("Neo4j and Redis", f"cannot park the write: {exc}") from exc
        self._shared.maybe_pending = True
        return str(done.entry_id)

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
        """Entries not applied yet for ``learner_id`` (or every learner with parked writes)."""
        if learner_id is not None:
            return await self.kernel.depth(learner_id)
        total = 0
        for learner in await self.kernel.parked_learners():
            total += await self.kernel.depth(learner)
        return total

    async def has_pending(self, learner_id: str) -> bool:
        """Cheap check used before each write so new writes never overtake parked ones."""
        shared = self._shared
        if not (shared.maybe_pending or shared.down or shared.tasks):
            return False
        try:
            return await self.kernel.parked(learner_id) > 0
        except StoreUnavailableError:
            return False

    # ----- replay -----
    async def replay(
        self,
        *consumers: BacklogConsumer,
        learner_id: str | None = None,
        wait: bool = True,
    ) -> int:
        """Apply the stream's entries (one learner, or all with parked writes); returns how many applied.

        ``consumers`` add to the registered stores. With ``wait=False`` a learner whose
        stream is being drained elsewhere is skipped. Stops early if Neo4j goes down.
        """
        routes = {**self._shared.routes, **{op: c for c in consumers for op in c.backlog_ops}}
        # All learners: those with parked writes (the kernel worker drains everything else).
        learners = [learner_id] if learner_id is not None else await self.kernel.parked_learners()
        applied = 0
        for learner in learners:
            lock = self._shared.locks.setdefault(learner, asyncio.Lock())
            if not wait and lock.locked():
                continue
            async with lock:
                done = await drain_learner(
                    self.kernel,
                    learner,
                    routes,
                    consumer=consumer_name("replay"),
                    hooks=self.hooks,
                    wait_lock=LOCK_TTL_MS / 1000 if wait else 0.0,
                )
            applied += done.applied
            if done.skipped:
                log.warning(
                    "backlog replay left %d entries: no store for their op was registered or passed",
                    done.skipped,
                )
            if not done.finished and (wait or done.applied):
                self._shared.maybe_pending = True
                break
        if applied and learner_id is None:  # after an outage: worth a warning
            log.warning("replayed %d parked write(s) into Neo4j", applied)
        elif applied:  # a settle (archive step, tests): the kernel stream drained early
            log.debug("applied %d kernel event(s) of %s in the step", applied, learner_id)
        return applied
