"""The kernel's durable Redis Stream: one stream per learner, written first, drained by the worker.

Every deferred write (recall messages, writes parked while Neo4j is down) is an event
on its learner's stream. AOF makes it durable; the worker's consumer group delivers
each entry at least once, and it is acknowledged only after its Neo4j commit.

Keys (all of one learner's keys share the hash tag ``{learner_id}``, so every script
in ``agent.kernel.stream_scripts`` touches one Redis Cluster slot):

- ``kag:kernel:{L}:stream``  the events (consumer group ``kag-kernel``)
- ``kag:kernel:{L}:seen:<key>``  idempotency keys (7 days)
- ``kag:kernel:{L}:tail``  read-your-writes: recall items enqueued but not committed yet
- ``kag:kernel:{L}:gen``  write generation (consultation cache keys carry it)
- ``kag:kernel:{L}:parked``  writes parked during an outage and not yet applied
- ``kag:kernel:{L}:dead``  entries that can never apply, with the error
- ``kag:kernel:{L}:lock``  one drainer per learner at a time (keeps the learner's order)

Two global keys, each written by its own command: ``kag:kernel:active`` (learners
whose stream may hold entries) and ``kag:kernel:depth`` (entries enqueued and not yet
acknowledged, for backpressure and stats).

**Backpressure.** When ``depth`` passes ``max_backlog`` a producer waits (up to
``pressure_wait`` seconds) for the worker, then enqueues anyway with ``pressured=True``
(the heartbeat reports ``degraded``). Nothing is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import RedisError, ResponseError

from agent.errors import StoreUnavailableError
from agent.kernel import stream_scripts as scripts
from agent.kernel.events import KernelEvent, decode, encode, random_key

log = logging.getLogger(__name__)

PREFIX = "kag"
GROUP = "kag-kernel"
SEEN_TTL_SECONDS = 7 * 24 * 3600
TAIL_LIMIT = 2000


@dataclass(frozen=True)
class Enqueued:
    """What one ``enqueue`` did."""

    entry_id: str | None
    """The stream entry id; None when the key had been enqueued before (a duplicate)."""
    duplicate: bool = False
    """True when the idempotency key was already seen: nothing was added."""
    pressured: bool = False
    """True when the backlog was past its bound (the turn should report ``degraded``)."""


@contextlib.contextmanager
def _redis_errors() -> Iterator[None]:
    """Redis failures as ``StoreUnavailableError``."""
    try:
        yield
    except (RedisError, OSError) as exc:
        raise StoreUnavailableError("Redis", f"kernel stream: {exc}") from exc


class KernelStream:
    """Producer and consumer primitives over the learners' kernel streams."""

    def __init__(
        self,
        redis: aioredis.Redis,
        *,
        prefix: str = PREFIX,
        max_backlog: int = 10_000,
        pressure_wait: float = 2.0,
        lock_ttl_ms: int = 60_000,
    ) -> None:
        """Use ``redis`` (``decode_responses=True``); bound the backlog at ``max_backlog`` entries."""
        self.redis = redis
        self.prefix = prefix
        self.max_backlog = max_backlog
        self.pressure_wait = pressure_wait
        self.lock_ttl_ms = lock_ttl_ms

    # ----- keys -----
    def key(self, learner_id: str, name: str) -> str:
        """The learner's kernel key ``name`` (stream, tail, gen, parked, dead, lock, seen:<k>...)."""
        return f"{self.prefix}:kernel:{{{learner_id}}}:{name}"

    def stream_key(self, learner_id: str) -> str:
        """The learner's event stream."""
        return self.key(learner_id, "stream")

    def dead_key(self, learner_id: str) -> str:
        """The learner's dead letters."""
        return self.key(learner_id, "dead")

    def learner_keys(self, learner_id: str) -> list[str]:
        """Every fixed kernel key of the learner (idempotency keys expire on their own)."""
        return [self.key(learner_id, n) for n in ("stream", "tail", "gen", "parked", "dead", "lock")]

    @property
    def active_key(self) -> str:
        """Set of learners whose stream may hold entries."""
        return f"{self.prefix}:kernel:active"

    @property
    def parked_key(self) -> str:
        """Set of learners with writes parked during an outage (what a replay after one drains)."""
        return f"{self.prefix}:kernel:parked"

    @property
    def depth_key(self) -> str:
        """Entries enqueued and not yet acknowledged, across learners."""
        return f"{self.prefix}:kernel:depth"

    # ----- producing -----
    async def enqueue(
        self,
        learner_id: str,
        op: str,
        payload: Mapping[str, Any],
        *,
        key: str | None = None,
        tail: Sequence[Mapping[str, Any]] = (),
        parked: bool = False,
    ) -> Enqueued:
        """Append one event (once per ``key``); ``tail`` items (each with ``id``) are readable at once.

        One round trip: the learner's registration (first, so an entry is always findable
        by the worker), the backlog depth, the script and the depth count. Past the bound
        the producer then waits for room (back-pressure after the append: nothing is ever
        held back or dropped). A duplicate takes its count back.
        """
        event = KernelEvent(
            op=op,
            learner_id=learner_id,
            payload=dict(payload),
            key=key or random_key(),
            parked=parked,
            at=time.time(),
            tail_ids=tuple(str(item["id"]) for item in tail),
        )
        fields = encode(event)
        tail_json = {str(item["id"]): json.dumps(dict(item)) for item in tail}
        keys = [
            self.key(learner_id, f"seen:{event.key}"),
            self.stream_key(learner_id),
            self.key(learner_id, "tail"),
            self.key(learner_id, "gen"),
            self.key(learner_id, "parked"),
        ]
        with _redis_errors():
            # Separate keys in separate slots: a plain pipeline, never a transaction.
            async with self.redis.pipeline(transaction=False) as pipe:
                pipe.sadd(self.active_key, learner_id)
                if parked:
                    pipe.sadd(self.parked_key, learner_id)
                pipe.get(self.depth_key)
                pipe.eval(
                    scripts.ENQUEUE,
                    len(keys),
                    *keys,
                    SEEN_TTL_SECONDS,
                    "1" if parked else "0",
                    json.dumps(fields),
                    json.dumps(tail_json) if tail_json else "{}",
                )
                pipe.incr(self.depth_key)
                *_, depth, entry_id, _ = await pipe.execute()
            if entry_id is None:
                await self.redis.decr(self.depth_key)
            pressured = int(depth or 0) >= self.max_backlog and await self._wait_for_room()
            if entry_id is None:
                return Enqueued(None, duplicate=True, pressured=pressured)
        return Enqueued(str(entry_id), pressured=pressured)

    async def _wait_for_room(self) -> bool:
        deadline = time.monotonic() + self.pressure_wait
        while True:
            with _redis_errors():
                depth = int(await self.redis.get(self.depth_key) or 0)
            if depth < self.max_backlog:
                return False
            if time.monotonic() >= deadline:
                log.warning("kernel backlog %d past its bound %d: degraded", depth, self.max_backlog)
                return True
            await asyncio.sleep(0.05)

    # ----- reading what is not drained yet -----
    async def tail(self, learner_id: str) -> list[dict[str, Any]]:
        """Recall items enqueued and not committed yet, oldest first (read-your-writes)."""
        with _redis_errors():
            raw = await self.redis.hvals(self.key(learner_id, "tail"))
        items = [json.loads(v) for v in raw]
        items.sort(key=lambda i: (str(i.get("created_at") or ""), i.get("seq") or 0, i.get("pos") or 0))
        return items[-TAIL_LIMIT:]

    async def generation(self, learner_id: str) -> int:
        """The learner's write generation: it changes whenever the learner's memory may have."""
        with _redis_errors():
            return int(await self.redis.get(self.key(learner_id, "gen")) or 0)

    async def bump(self, learner_id: str) -> int:
        """Advance the generation (for writes that do not go through the stream)."""
        with _redis_errors():
            return int(await self.redis.incr(self.key(learner_id, "gen")))

    async def depth(self, learner_id: str | None = None) -> int:
        """Entries not yet acknowledged: the learner's stream length, or the global counter."""
        with _redis_errors():
            if learner_id is not None:
                return int(await self.redis.xlen(self.stream_key(learner_id)))
            return max(0, int(await self.redis.get(self.depth_key) or 0))

    async def reconcile_depth(self) -> int:
        """Recount the global depth from the active learners' stream lengths, and store it.

        The counter moves by separate commands, so a crash between a script and its count
        would leave it off for good and hold every producer back. The worker recounts it now
        and then (a racing enqueue is off by one until the next: it only steers back-pressure).
        """
        with _redis_errors():
            learners = list(await self.redis.smembers(self.active_key))
            total = 0
            for i in range(0, len(learners), 500):
                async with self.redis.pipeline(transaction=False) as pipe:
                    for learner in learners[i : i + 500]:
                        pipe.xlen(self.stream_key(learner))
                    total += sum(int(n or 0) for n in await pipe.execute())
            await self.redis.set(self.depth_key, total)
        return total

    async def parked(self, learner_id: str) -> int:
        """Writes of the learner parked during an outage and not applied yet."""
        with _redis_errors():
            return int(await self.redis.get(self.key(learner_id, "parked")) or 0)

    async def active_learners(self) -> list[str]:
        """Learners whose stream may hold entries (sorted)."""
        with _redis_errors():
            return sorted(await self.redis.smembers(self.active_key))

    # ----- consuming (the worker and the backlog replay) -----
    async def read(
        self, learner_id: str, consumer: str, count: int, *, claim_idle_ms: int
    ) -> list[KernelEvent]:
        """Up to ``count`` events: first entries a dead consumer left pending, then new ones."""
        stream = self.stream_key(learner_id)
        with _redis_errors():
            try:
                claimed = await self.redis.xautoclaim(
                    stream, GROUP, consumer, min_idle_time=claim_idle_ms, start_id="0-0", count=count
                )
            except ResponseError as exc:
                if "NOGROUP" not in str(exc):
                    raise
                if not await self._create_group(stream):
                    return []  # no stream (erased, or never written): nothing to read
                claimed = [None, []]
            entries = [e for e in claimed[1] if e and e[1]]
            if len(entries) < count:
                want = count - len(entries)
                fresh = await self.redis.xreadgroup(GROUP, consumer, {stream: ">"}, count=want)
                for _, items in fresh or []:
                    entries.extend(items)
        events = []
        for entry_id, fields in entries:
            try:
                events.append(decode(entry_id, fields))
            except ValueError as exc:
                log.error("%s", exc)
                await self.dead_letter(KernelEvent("?", learner_id, {}, "", entry_id=entry_id), str(exc))
        return events

    async def _create_group(self, stream: str) -> bool:
        """Create the consumer group; False when the stream does not exist.

        No MKSTREAM: a stream that is gone (erased, or never written) has nothing to read, and
        re-creating it would leave a key named after an erased learner.
        """
        try:
            await self.redis.xgroup_create(stream, GROUP, id="0")
        except ResponseError as exc:
            if "requires the key to exist" in str(exc):
                return False
            if "BUSYGROUP" not in str(exc):
                raise
        return True

    async def ack(self, learner_id: str, events: Sequence[KernelEvent]) -> int:
        """Acknowledge committed events: delete them, drop their tail items, count parked ones."""
        if not events:
            return 0
        keys = [self.stream_key(learner_id), self.key(learner_id, "tail"), self.key(learner_id, "parked")]
        keys.append(self.key(learner_id, "gen"))
        tail_ids = [t for e in events for t in e.tail_ids]
        with _redis_errors():
            acked = int(
                await self.redis.eval(
                    scripts.ACK,
                    len(keys),
                    *keys,
                    GROUP,
                    sum(1 for e in events if e.parked),
                    json.dumps([e.entry_id for e in events]),
                    json.dumps(tail_ids),
                )
            )
            if acked:
                await self.redis.decrby(self.depth_key, acked)
        return acked

    async def dead_letter(self, event: KernelEvent, error: str) -> None:
        """Move an event that can never apply out of the way, keeping it and its error."""
        fields = {**encode(event), "error": error[:2000]}
        await self.redis.xadd(self.dead_key(event.learner_id), fields)
        await self.ack(event.learner_id, [event])

    async def parked_learners(self) -> list[str]:
        """Learners with parked writes (sorted)."""
        with _redis_errors():
            return sorted(await self.redis.smembers(self.parked_key))

    async def retire_if_empty(self, learner_id: str) -> None:
        """Drop the learner from the active (and parked) set when its stream is empty (re-adds on a race)."""
        with _redis_errors():
            if not await self.parked(learner_id):
                await self.redis.srem(self.parked_key, learner_id)
                if await self.parked(learner_id):
                    await self.redis.sadd(self.parked_key, learner_id)
            if await self.redis.xlen(self.stream_key(learner_id)):
                return
            await self.redis.srem(self.active_key, learner_id)
            if await self.redis.xlen(self.stream_key(learner_id)):
                await self.redis.sadd(self.active_key, learner_id)

    # ----- one drainer per learner -----
    async def lock(self, learner_id: str, *, wait: float = 0.0) -> str | None:
        """Take the learner's drain lock (a token), waiting up to ``wait`` s; None if held elsewhere."""
        token = uuid.uuid4().hex
        deadline = time.monotonic() + wait
        with _redis_errors():
            while True:
                if await self.redis.set(self.key(learner_id, "lock"), token, nx=True, px=self.lock_ttl_ms):
                    return token
                if time.monotonic() >= deadline:
                    return None
                await asyncio.sleep(0.05)

    async def refresh(self, learner_id: str, token: str) -> bool:
        """Extend a held lock (between batches); False when it was lost."""
        lock = self.key(learner_id, "lock")
        return bool(await self.redis.eval(scripts.REFRESH, 1, lock, token, self.lock_ttl_ms))

    async def unlock(self, learner_id: str, token: str) -> None:
        """Release the learner's drain lock if this token still holds it."""
        try:
            await self.redis.eval(scripts.RELEASE, 1, self.key(learner_id, "lock"), token)
        except (RedisError, OSError) as exc:
            log.warning("could not release the kernel lock of a learner: %s", exc)
