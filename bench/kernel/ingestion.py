"""Ingestion throughput: concurrent sessions log recall messages while one kernel worker drains.

``sessions`` learners talk at once, one session each. A session's turn logs what the
heartbeat logs on a tool turn, through the product's own producer
(``stores.recall.log_messages``, which enqueues to the learner's kernel stream): the
request, then the tool call with its result, then the answer (3 events, 4 messages),
one turn every ``interval`` seconds (sessions start spread over one interval). One
kernel worker (``build_worker``) runs in a background task the whole time, as in the
server. Every ``sample_every`` seconds the bench samples the backlog of its own learners
(the sum of their stream lengths: other learners' streams on the same Redis are not
counted) and the lag: the age of the oldest of their events not consumed yet.

Reported: events and messages produced per second, events consumed per second (during
production, and overall until the backlog is empty), the backlog over time, its peak and
its value when production stopped, the lag (max and final), the time to drain after
production, the recall messages found in Neo4j at the end (must equal the messages
produced: nothing lost, nothing doubled), and the CPU this process spent per event
(producer, worker and MiniLM together; on the 2-core machine the MiniLM encodes of the
message and of its turn context are most of it, so the pace is set by the cores left free).

**Keeps up** (printed PASS/MISS): the worker batches on purpose (it waits up to its flush
interval for a batch to fill), so the bound is the flush interval: the lag never passes
the flush interval plus ``LAG_GRACE_SECONDS``, and the backlog left when production stops
drains within the same bound.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
import resource
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import Settings
from bench.kernel.cleanup import erase
from bench.kernel.drained import drain_all, own_streams
from bench.kernel.timing import percentile, show_progress

TOPICS = ("SQL joins", "recursion", "closures", "binary search", "decorators", "list slicing", "big O")
EVENTS_PER_TURN = 3
MESSAGES_PER_TURN = 4
LAG_GRACE_SECONDS = 5.0


@dataclass(frozen=True)
class IngestConfig:
    """How much to produce, and how fast."""

    sessions: int = 50
    turns: int = 10
    """Turns per session."""
    interval: float = 2.0
    """Seconds between two turns of one session (a learner reading and typing)."""
    sample_every: float = 0.5
    batch_size: int | None = None
    """The worker's batch size (default: ``Settings.kernel_batch_size``)."""
    flush_seconds: float | None = None
    """The worker's flush interval (default: ``Settings.kernel_flush_seconds``)."""
    drain_wait: float = 300.0
    """Seconds past the flush interval the bench waits, after production, for the backlog to empty."""


@dataclass
class IngestResult:
    """What one run measured."""

    config: IngestConfig
    events: int = 0
    messages: int = 0
    production_seconds: float = 0.0
    drain_seconds: float = 0.0
    """From the end of production until the learners' backlog was empty."""
    backlog_at_stop: int = 0
    backlog_left: int = 0
    """Backlog when the bench stopped waiting (0: drained by the background worker in time)."""
    samples: list[tuple[float, int, float]] = field(default_factory=list)
    """``(seconds since start, backlog, lag)``: lag is the age of the learners' oldest unconsumed event."""
    enqueue_seconds: list[float] = field(default_factory=list)
    """Latency of each ``log_messages`` call (what a turn waits for)."""
    pressured: int = 0
    """Calls that returned ``degraded`` (backlog past its bound)."""
    stored: int = 0
    """Recall messages of the learners in Neo4j after the drain."""
    batch_size: int = 0
    flush_seconds: float = 0.0
    cpu_seconds: float = 0.0
    """CPU time of this process (every thread) from the start until the backlog was empty."""
    load: tuple[float, float] = (0.0, 0.0)
    """The machine's 1-minute load average at the start and at the end (other processes' share)."""
    worker: dict[str, Any] = field(default_factory=dict)
    learners: list[str] = field(default_factory=list)
    """The run's learner ids (erased at the end)."""

    @property
    def produced_per_s(self) -> float:
        """Events enqueued per second of production."""
        return self.events / self.production_seconds if self.production_seconds else 0.0

    @property
    def consumed_during_production(self) -> int:
        """Events the worker had consumed when production stopped."""
        return self.events - self.backlog_at_stop

    @property
    def consumed_per_s(self) -> float:
        """Events consumed per second during production."""
        return self.consumed_during_production / self.production_seconds if self.production_seconds else 0.0

    @property
    def consumed_overall_per_s(self) -> float:
        """Events consumed per second from the start until the backlog was empty."""
        total = self.production_seconds + self.drain_seconds
        return (self.events - self.backlog_left) / total if total else 0.0

    @property
    def capacity_per_s(self) -> float:
        """Events consumed per second after production stopped (the worker's pace with work waiting)."""
        done = self.backlog_at_stop - self.backlog_left
        return done / self.drain_seconds if self.drain_seconds else 0.0

    @property
    def cpu_ms_per_event(self) -> float:
        """CPU milliseconds of the bench process per event produced and consumed."""
        return 1e3 * self.cpu_seconds / self.events if self.events else 0.0

    @property
    def max_backlog(self) -> int:
        """The largest backlog sampled."""
        return max((d for _, d, _ in self.samples), default=0)

    @property
    def lags(self) -> list[float]:
        """The sampled lags (age of the oldest unconsumed event, seconds), in sample order."""
        return [lag for _, _, lag in self.samples]

    @property
    def keeps_up(self) -> bool:
        """The module docstring's rule."""
        bound = self.flush_seconds + LAG_GRACE_SECONDS
        return not self.backlog_left and max(self.lags, default=0.0) <= bound and self.drain_seconds <= bound

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what the notebook reads)."""
        return {
            "config": dataclasses.asdict(self.config),
            "events": self.events,
            "messages": self.messages,
            "production_seconds": self.production_seconds,
            "drain_seconds": self.drain_seconds,
            "backlog_at_stop": self.backlog_at_stop,
            "backlog_left": self.backlog_left,
            "capacity_per_s": self.capacity_per_s,
            "max_backlog": self.max_backlog,
            "produced_per_s": self.produced_per_s,
            "consumed_per_s": self.consumed_per_s,
            "consumed_overall_per_s": self.consumed_overall_per_s,
            "max_lag": max(self.lags, default=0.0),
            "final_lag": self.lags[-1] if self.lags else 0.0,
            "samples": [list(s) for s in self.samples],
            "enqueue_ms_p50": percentile(self.enqueue_seconds, 0.5) * 1e3,
            "enqueue_ms_p95": percentile(self.enqueue_seconds, 0.95) * 1e3,
            "pressured": self.pressured,
            "stored": self.stored,
            "batch_size": self.batch_size,
            "flush_seconds": self.flush_seconds,
            "cpu_ms_per_event": self.cpu_ms_per_event,
            "load": list(self.load),
            "keeps_up": self.keeps_up,
            "worker": self.worker,
            "lines": self.lines(),
        }

    def lines(self) -> list[str]:
        """The printed report."""
        c = self.config
        lags = self.lags
        lag = f"max {max(lags):.2f} s, final {lags[-1]:.2f} s" if lags else "-"
        step = max(1, len(self.samples) // 12)
        over_time = " ".join(f"{t:.0f}s:{d}" for t, d, _ in self.samples[::step])
        return [
            f"Ingestion: {c.sessions} concurrent sessions x {c.turns} turns, one turn per {c.interval:g} s "
            f"per session, {EVENTS_PER_TURN} events / {MESSAGES_PER_TURN} messages per turn; one worker "
            f"(batch {self.batch_size}, flush {self.flush_seconds:g} s)",
            f"produced   {self.events} events ({self.messages} messages) in {self.production_seconds:.1f} s: "
            f"{self.produced_per_s:.1f} events/s, "
            f"{self.messages / max(self.production_seconds, 1e-9):.1f} messages/s",
            f"consumed   {self.consumed_per_s:.1f} events/s during production, "
            f"{self.consumed_overall_per_s:.1f} events/s until empty",
            f"enqueue    p50 {percentile(self.enqueue_seconds, 0.5) * 1e3:.1f} ms, "
            f"p95 {percentile(self.enqueue_seconds, 0.95) * 1e3:.1f} ms per log_messages call; "
            f"{self.pressured} degraded (backlog past its bound)",
            f"backlog    max {self.max_backlog}, at the end of production {self.backlog_at_stop}, "
            + (
                f"drained {self.drain_seconds:.1f} s after production"
                if not self.backlog_left
                else f"{self.backlog_left} left {self.drain_seconds:.0f} s after production (the bench "
                "stopped waiting; a final drain applied them)"
            )
            + f"; worker pace with work waiting {self.capacity_per_s:.1f} events/s",
            f"backlog over time: {over_time}",
            f"lag        {lag} (age of the oldest unconsumed event; the worker's own max lag "
            f"{self.worker.get('max_lag_seconds', '-')} s counts every learner it drained)",
            f"cpu        {self.cpu_ms_per_event:.1f} ms per event in this process (producer, worker, "
            f"MiniLM), machine load {self.load[0]:.1f} at the start, {self.load[1]:.1f} at the end",
            f"stored     {self.stored} recall messages in Neo4j for {self.messages} produced "
            f"({'all there, none doubled' if self.stored == self.messages else 'MISMATCH'})",
            f"keeps up (lag and drain after production <= flush {self.flush_seconds:g} s + "
            f"{LAG_GRACE_SECONDS:g} s): {'PASS' if self.keeps_up else 'MISS'}",
        ]


def _turn_messages(session: int, turn: int) -> list[list[RecallMessage]]:
    topic = TOPICS[(session + turn) % len(TOPICS)]
    stem = uuid.uuid4().hex
    return [
        [
            RecallMessage(
                f"{stem}-q", "user", f"Session {session} turn {turn}: can you explain {topic} again?"
            )
        ],
        [
            RecallMessage(
                f"{stem}-c", "assistant", f"[calls archival_memory_search({{'query': '{topic}'}})]"
            ),
            RecallMessage(f"{stem}-r", "tool", f"3 memories about {topic}: worked examples from last week."),
        ],
        [RecallMessage(f"{stem}-a", "assistant", f"Here is {topic} once more, with a smaller example.")],
    ]


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


async def _backlog(stores: MemoryStores, learners: list[str]) -> tuple[int, float]:
    """The learners' backlog (sum of their stream lengths) and the age of its oldest entry (s)."""
    kernel = stores.kernel
    async with kernel.redis.pipeline(transaction=False) as pipe:
        for lid in learners:
            pipe.xlen(kernel.stream_key(lid))
            pipe.xrange(kernel.stream_key(lid), count=1)
        replies = await pipe.execute()
    depth = sum(int(d) for d in replies[0::2])
    firsts = [int(str(r[0][0]).split("-")[0]) for r in replies[1::2] if r]
    age = max(0.0, time.time() - min(firsts) / 1000) if firsts else 0.0
    return depth, age


async def run_ingestion(
    settings: Settings, config: IngestConfig, *, progress: bool | None = None
) -> IngestResult:
    """Run one ingestion measurement on the real services (see the module docstring)."""
    from agent.kernel.worker import build_worker

    overrides = {}
    if config.batch_size is not None:
        overrides["kernel_batch_size"] = config.batch_size
    if config.flush_seconds is not None:
        overrides["kernel_flush_seconds"] = config.flush_seconds
    resources = Resources(
        dataclasses.replace(settings, ingest_mode="kernel", **own_streams(settings), **overrides)
    )
    stores = MemoryStores.wire(resources)
    run = uuid.uuid4().hex[:8]
    learners = [f"bench-ingest-{run}-{i:03d}" for i in range(config.sessions)]
    result = IngestResult(
        config,
        batch_size=int(resources.settings.kernel_batch_size),
        flush_seconds=float(resources.settings.kernel_flush_seconds),
        learners=learners,
    )
    await stores.recall.setup()  # schema once, outside the measurement
    await stores.recall.embed_documents(["warm-up"])  # the embedding model loads once, outside it too
    worker = build_worker(resources, stores)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    bar = tqdm(
        total=config.sessions * config.turns,
        desc="ingestion turns",
        unit="turn",
        disable=not show_progress(progress),
    )
    started = time.perf_counter()
    cpu_started = _cpu()
    load_started = os.getloadavg()[0]

    async def session(i: int) -> None:
        await asyncio.sleep(config.interval * i / max(1, config.sessions))
        for turn in range(config.turns):
            t_turn = time.perf_counter()
            for batch in _turn_messages(i, turn):
                t0 = time.perf_counter()
                logged = await stores.recall.log_messages(learners[i], f"s-{i}", batch)
                result.enqueue_seconds.append(time.perf_counter() - t0)
                result.pressured += bool(logged.degraded)
                result.events += 1
                result.messages += len(batch)
            bar.update(1)
            await asyncio.sleep(max(0.0, config.interval - (time.perf_counter() - t_turn)))

    async def sampler(done: asyncio.Event) -> None:
        while not done.is_set():
            result.samples.append((time.perf_counter() - started, *await _backlog(stores, learners)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), config.sample_every)

    done = asyncio.Event()
    sampling = asyncio.create_task(sampler(done))
    try:
        await asyncio.gather(*(session(i) for i in range(config.sessions)))
        result.production_seconds = time.perf_counter() - started
        result.backlog_at_stop, _ = await _backlog(stores, learners)
        limit = time.perf_counter() + result.flush_seconds + config.drain_wait
        while (await _backlog(stores, learners))[0] and time.perf_counter() < limit:
            await asyncio.sleep(0.1)
        result.drain_seconds = time.perf_counter() - started - result.production_seconds
        result.cpu_seconds = _cpu() - cpu_started
        result.load = (load_started, os.getloadavg()[0])
        result.backlog_left, _ = await _backlog(stores, learners)
        done.set()
        await sampling
        result.samples.append((time.perf_counter() - started, *await _backlog(stores, learners)))
        stop.set()
        await task
        await drain_all(worker, stores, learners)  # anything a slow final batch left behind
        result.worker = dict(worker.stats())
        result.stored = sum([await stores.recall.count(lid) for lid in learners])
    finally:
        bar.close()
        done.set()
        stop.set()
        if not task.done():
            await task
        for lid in learners:
            await erase(resources, stores, lid)
        await resources.aclose()
    return result
