"""The kernel worker: drains every learner's stream into Neo4j, in the background.

One loop per process (the LangGraph server's lifespan, ``kag kernel run``, or a test
that calls ``drain``). Each poll it looks at the active learners and drains those
that are **due**: ``batch_size`` events waiting, or the oldest waiting longer than
``flush_interval`` seconds (so writes are batched: one embedding call and one
``UNWIND`` write per session per batch), longest waiting first. When none is due, an
idle worker drains ahead the learners whose oldest event has waited ``EARLY_FRACTION``
of the flush interval: sessions that started together would otherwise all fall due in
the same second, and that burst, not the average rate, would set the lag.

Draining follows ``agent.kernel.drain``. Several workers may run at once (one per server
process): the per-learner lock spreads learners over them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING, Any

from agent.errors import KAGError
from agent.kernel.drain import EventConsumer, Hook, consumer_name, drain_learner
from agent.kernel.sentences import derive_pending
from agent.kernel.stream import KernelStream
from agent.priority import background

if TYPE_CHECKING:
    from agent.memory.stores import MemoryStores
    from agent.resources import Resources

log = logging.getLogger(__name__)

RECOUNT_SECONDS = 60.0
"""How often a running worker recounts the global backlog depth (``KernelStream.reconcile_depth``)."""

CONCURRENT_LEARNERS = 2
"""Learners drained at once: one's Neo4j round trips overlap the other's embedding. More only
oversubscribes the cores (each MiniLM encode already uses every intra-op thread): on the
2-core bench machine 4 at once made each encode slower than 2 in turn."""

DEFER_MAX_SECONDS = 30.0
"""Deferred work (sentences) waits for empty streams, but never longer than this between rounds."""

EARLY_FRACTION = 0.5
"""An idle worker drains a learner whose oldest event has waited this share of the flush interval."""


@dataclass(frozen=True)
class Waiting:
    """One learner's backlog as the worker's poll sees it."""

    learner_id: str
    depth: int
    """Events in the learner's stream."""
    age: float
    """Seconds its oldest event has waited."""


def pick_due(waiting: Sequence[Waiting], *, batch_size: int, flush_interval: float) -> list[str]:
    """The learners to drain now, longest waiting first (the module doc's rule).

    Due: ``batch_size`` events waiting or the oldest older than ``flush_interval``. Only when
    none is due: those whose oldest has waited ``EARLY_FRACTION`` of the flush interval.
    """
    ordered = sorted(waiting, key=lambda w: w.age, reverse=True)
    due = [w.learner_id for w in ordered if w.depth >= batch_size or w.age >= flush_interval]
    return due or [w.learner_id for w in ordered if w.age >= flush_interval * EARLY_FRACTION]


@dataclass
class WorkerStats:
    """Counters of one worker since it started."""

    started: float = field(default_factory=time.monotonic)
    applied: int = 0
    batches: int = 0
    dead: int = 0
    stalls: int = 0
    """Drains that stopped early (Neo4j down, a paused error): their events stay pending."""
    last_lag_seconds: float = 0.0
    max_lag_seconds: float = 0.0
    polls: int = 0
    deferred: int = 0
    """Items of deferred work done while idle (turn contexts split into sentences)."""


Deferred = Callable[[str | None], Awaitable[int]]
"""``work(learner_id or None)``: one round of deferred work (one learner's, or any); how much it did."""


class KernelWorker:
    """Consumes the kernel streams with the stores that apply each operation."""

    def __init__(
        self,
        stream: KernelStream,
        routes: Mapping[str, EventConsumer],
        *,
        hooks: Mapping[str, Sequence[Hook]] | None = None,
        consumer: str | None = None,
        batch_size: int = 50,
        flush_interval: float = 10.0,
        poll_interval: float = 0.25,
        claim_idle_ms: int = 0,
        deferred: Sequence[Deferred] = (),
    ) -> None:
        """Drain with ``routes`` (op -> store) and ``hooks`` (op -> derivations); see the module doc.

        ``deferred``: work the running worker does one round at a time when its streams are
        empty (or every ``DEFER_MAX_SECONDS`` under load), and ``drain`` finishes for the
        learners it drains.
        """
        if not 1 <= batch_size <= 1000:
            raise ValueError("batch_size must be in 1..1000")
        self.stream = stream
        self.routes = dict(routes)
        self.hooks = {op: list(h) for op, h in (hooks or {}).items()}
        self.consumer = consumer or consumer_name()
        self.batch_size = batch_size
        self.flush_interval = flush_interval
        self.poll_interval = poll_interval
        self.claim_idle_ms = claim_idle_ms
        self.deferred = list(deferred)
        self._deferred_at = time.monotonic()
        self._stats = WorkerStats()
        self.running = False

    async def drain(self, learner_id: str | None = None, *, wait: float = 30.0) -> int:
        """Apply everything waiting now (one learner or all), ignoring the flush interval.

        Waits up to ``wait`` seconds for a learner another drainer holds. Returns how
        many events were applied; ``KAGError`` when a learner could not be finished.
        """
        learners = [learner_id] if learner_id is not None else await self.stream.active_learners()
        applied = 0
        for learner in learners:
            applied += await self._drain_one(learner, wait=wait)
            await self._finish_deferred(learner)
        return applied

    async def _finish_deferred(self, learner_id: str) -> None:
        """``drain``'s deferred work for one learner, to the end (an outage leaves it marked for later)."""
        try:
            for work in self.deferred:
                while done := await work(learner_id):
                    self._stats.deferred += done
        except KAGError as exc:  # the drain itself stands: the learner stays marked
            log.warning("deferred work for a learner postponed: %s", exc)

    async def _may_defer(self) -> bool:
        """Whether deferred work may run now: the streams are empty, or it waited ``DEFER_MAX_SECONDS``.

        While events wait, the cores are theirs (a burst of sessions saturates 2 cores); under a
        load that never empties the streams, one round still runs that often, so it never starves.
        """
        if not self.deferred:
            return False
        starved = time.monotonic() - self._deferred_at >= DEFER_MAX_SECONDS
        return starved or not await self.stream.depth()

    async def idle_round(self) -> int:
        """One round of each deferred work (any learner's); returns how much was done."""
        self._deferred_at = time.monotonic()
        done = sum([await work(None) for work in self.deferred])  # one after another, in order
        self._stats.deferred += done
        return done

    async def _drain_one(self, learner_id: str, *, wait: float = 0.0, max_batches: int | None = None) -> int:
        result = await drain_learner(
            self.stream,
            learner_id,
            self.routes,
            consumer=self.consumer,
            batch_size=self.batch_size,
            hooks=self.hooks,
            wait_lock=wait,
            claim_idle_ms=self.claim_idle_ms,
            max_batches=max_batches,
        )
        stats = self._stats
        stats.applied += result.applied
        stats.dead += result.dead
        if result.applied:
            stats.batches += 1
            stats.last_lag_seconds = result.max_lag
            stats.max_lag_seconds = max(stats.max_lag_seconds, result.max_lag)
        if not result.finished and wait:
            stats.stalls += 1
        return result.applied

    async def due(self) -> list[str]:
        """Learners to drain now, longest waiting first (:func:`pick_due`); retires empty streams."""
        learners = await self.stream.active_learners()
        if not learners:
            return []
        async with self.stream.redis.pipeline(transaction=False) as pipe:
            for learner in learners:
                pipe.xlen(self.stream.stream_key(learner))
                pipe.xrange(self.stream.stream_key(learner), count=1)
            replies = await pipe.execute()
        now = time.time()
        waiting: list[Waiting] = []
        for i, learner in enumerate(learners):
            depth, first = replies[2 * i], replies[2 * i + 1]
            if not depth:
                await self.stream.retire_if_empty(learner)
                continue
            age = now - int(str(first[0][0]).split("-")[0]) / 1000 if first else 0.0
            waiting.append(Waiting(learner, int(depth), age))
        return pick_due(waiting, batch_size=self.batch_size, flush_interval=self.flush_interval)

    async def poll(self) -> int:
        """One pass: drain every due learner by at most one batch; returns events applied."""
        self._stats.polls += 1
        learners = await self.due()
        if not learners:
            return 0
        gate = asyncio.Semaphore(CONCURRENT_LEARNERS)

        async def one(learner: str) -> int:
            async with gate:
                return await self._drain_one(learner, max_batches=1)

        return sum(await asyncio.gather(*(one(learner) for learner in learners)))

    async def run(self, stop: asyncio.Event) -> None:
        """Poll until ``stop`` is set; errors are logged and retried after a pause, never raised."""
        self.running = True
        log.info(
            "kernel worker %s started (batch %d, flush %.1fs)",
            self.consumer,
            self.batch_size,
            self.flush_interval,
        )
        recounted = -RECOUNT_SECONDS  # recount on start: a restart is when drift is likeliest
        try:
            with background():  # its encodes yield the cores to live turns (agent.priority)
                await self._loop(stop, recounted)
        finally:
            self.running = False
            log.info("kernel worker %s stopped", self.consumer)

    async def _loop(self, stop: asyncio.Event, recounted: float) -> None:
        """The poll loop of ``run``."""
        while not stop.is_set():
            try:
                if time.monotonic() - recounted >= RECOUNT_SECONDS:
                    recounted = time.monotonic()
                    await self.stream.reconcile_depth()
                applied = await self.poll()
                if not applied and await self._may_defer():
                    applied = await self.idle_round()
            except KAGError as exc:
                log.warning("kernel worker poll failed, retrying: %s", exc)
                applied = 0
                self._stats.stalls += 1
                await _sleep(stop, min(5.0, self.poll_interval * 8))
            if not applied:
                await _sleep(stop, self.poll_interval)

    def stats(self) -> dict[str, Any]:
        """What this worker did: applied events, batches, lag, throughput (events/s since start)."""
        s = self._stats
        elapsed = max(time.monotonic() - s.started, 1e-9)
        return {
            "consumer": self.consumer,
            "running": self.running,
            "applied": s.applied,
            "batches": s.batches,
            "dead_lettered": s.dead,
            "stalls": s.stalls,
            "polls": s.polls,
            "deferred": s.deferred,
            "last_lag_seconds": round(s.last_lag_seconds, 3),
            "max_lag_seconds": round(s.max_lag_seconds, 3),
            "throughput_per_s": round(s.applied / elapsed, 3),
            "batch_size": self.batch_size,
            "flush_interval": self.flush_interval,
        }


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), timeout=seconds)


def build_worker(
    resources: Resources, stores: MemoryStores, *, consumer: str | None = None, **overrides: Any
) -> KernelWorker:
    """A worker over ``stores``' kernel stream, with every store's operations and derivations.

    Batch size and flush interval come from ``resources.settings`` unless overridden.
    """
    from agent.notes.store import NoteStore  # registers the note operations on the same backlog

    NoteStore.for_resources(resources)
    settings = resources.settings
    options: dict[str, Any] = {
        "batch_size": settings.kernel_batch_size,
        "flush_interval": settings.kernel_flush_seconds,
        **overrides,
    }
    return KernelWorker(
        stores.kernel,
        stores.backlog.routes,
        hooks=stores.backlog.hooks,
        consumer=consumer,
        deferred=[partial(derive_pending, stores)],
        **options,
    )
