"""Concurrent sessions through the real heartbeat: throughput, latency, errors, memory, the knee.

Each session is one learner on its own thread, running 3 turns; each turn is a scripted
model that answers after 50 ms (``--model-ms``) with a tool call (``archival_memory_search``),
then, once the tool result is back, with a plain answer. All sessions of a level start at
once and share one ``Resources`` bundle and one Redis saver, as the LangGraph server does
(Neo4j pool 50, Redis pools 10 each); each turn's config names its learner as
``langgraph_auth_user_id``, as the server's auth does, so checkpoint writes claim their
threads as served ones do. The same script then runs against a minimal ReAct
graph on ``InMemorySaver`` with no stores, and the ratio of the two throughputs is printed.
A kernel worker drains the recall stream in the same process while the sessions run, as the
server's lifespan task does; the backlog it has left when the last turn ends and the time it
then takes to drain it are printed too (turns/s alone would hide deferred ingestion).

Printed per level: turns/s, p50/p95 seconds per turn, errors (by kind), turns that ran in
degraded mode (a Neo4j pool wait past its 10 s timeout counts as an outage), peak RSS of this
Python process and of Neo4j (its pid from ``.services/neo4j-<port>/neo4j.pid``), and the
knee: the last level whose throughput still grew by 10 % over the previous level's.
A progress line goes to stderr every ``--progress`` seconds. The learners' Neo4j nodes and
Redis keys are deleted after each level.

    .venv/bin/python -m bench.concurrency --sessions 50 200 500 2000 [--profile 50]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import sys
import time
import traceback
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.outputs import ChatResult

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.kernel.worker import build_worker
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import Settings
from bench.kernel.drained import drain_all
from bench.kernel.turn_baseline import LoopingModel, baseline_graph
from bench.kernel.turn_report import pct
from graphs.heartbeat import make_builder

ROOT = Path(__file__).resolve().parents[1]
TURNS = 3
QUESTION = "Question {i} of session {s}: how does a LEFT JOIN differ from an INNER JOIN?"


class SlowLoopingModel(LoopingModel):
    """``LoopingModel`` whose async calls take ``delay`` seconds, like a remote model would."""

    delay: float = 0.05
    tool_calls_made: int = 0

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        await asyncio.sleep(self.delay)
        result = self._generate(messages, stop=stop, run_manager=run_manager, **kwargs)
        self.tool_calls_made += bool(getattr(result.generations[0].message, "tool_calls", None))
        return result


@dataclass
class LevelResult:
    """What one level (a number of concurrent sessions) measured."""

    sessions: int
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    errors: Counter[str] = field(default_factory=Counter)
    tool_calls: int = 0
    degraded: int = 0
    """Turns that ran in degraded mode (Neo4j down or its pool exhausted: writes parked in Redis)."""
    py_rss: int = 0
    neo4j_rss: int = 0
    backlog: int = 0
    """Kernel stream entries of the level's learners not yet applied when the last turn ended."""
    drain: float = 0.0
    """Seconds the worker then took to apply them (0 when nothing was left)."""

    @property
    def turns(self) -> int:
        """Turns that completed."""
        return len(self.latencies)

    @property
    def throughput(self) -> float:
        """Completed turns per second of wall time."""
        return self.turns / self.wall if self.wall else 0.0


def neo4j_pid(settings: Settings) -> int | None:
    """The pid of the Neo4j that ``scripts/services.sh`` started for the configured port."""
    port = (settings.neo4j_uri.rsplit(":", 1)[-1] or "7687").strip("/")
    services = Path(os.environ.get("KAG_SERVICES_DIR", ROOT / ".services"))
    try:
        return int((services / f"neo4j-{port}" / "neo4j.pid").read_text().strip())
    except (OSError, ValueError):
        return None


class RssSampler:
    """Samples the RSS of this process and of Neo4j; keeps the peaks."""

    def __init__(self, neo4j: int | None) -> None:
        """Watch this process and, if known, the Neo4j pid."""
        self.me = psutil.Process()
        self.neo4j = psutil.Process(neo4j) if neo4j and psutil.pid_exists(neo4j) else None
        self.py_peak = self.neo4j_peak = 0

    def sample(self) -> None:
        """Take one sample."""
        self.py_peak = max(self.py_peak, self.me.memory_info().rss)
        if self.neo4j is not None:
            try:
                self.neo4j_peak = max(self.neo4j_peak, self.neo4j.memory_info().rss)
            except psutil.Error:
                self.neo4j = None


async def run_level(
    name: str,
    sessions: int,
    turn: Callable[[int, int], Awaitable[bool]],
    sampler: RssSampler,
    progress: float,
) -> LevelResult:
    """Run ``sessions`` sessions of ``TURNS`` turns at once; ``turn(session, i)`` runs one turn."""
    result = LevelResult(sessions)
    sampler.py_peak = sampler.neo4j_peak = 0
    done = asyncio.Event()

    async def session(s: int) -> None:
        for i in range(TURNS):
            t0 = time.perf_counter()
            try:
                result.degraded += bool(await turn(s, i))
            except Exception as exc:  # noqa: BLE001 - every failure is counted by kind
                kind = f"{type(exc).__name__}: {str(exc)[:90]}"
                if kind not in result.errors:  # say where each new kind of error came from, once
                    where = traceback.extract_tb(exc.__traceback__)[-3:]
                    trail = " <- ".join(
                        f"{Path(f.filename).name}:{f.lineno} {f.name}" for f in reversed(where)
                    )
                    print(f"[concurrency] new error: {kind} at {trail}", file=sys.stderr, flush=True)
                result.errors[kind] += 1
                return  # a session stops at its first failed turn
            result.latencies.append(time.perf_counter() - t0)

    async def report() -> None:
        last = time.perf_counter()
        while not done.is_set():
            sampler.sample()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done.wait(), 0.25)
            if time.perf_counter() - last >= progress:
                last = time.perf_counter()
                elapsed = last - started
                print(
                    f"[concurrency] {name} {sessions} sessions: {result.turns}/{sessions * TURNS} turns, "
                    f"{sum(result.errors.values())} errors, {result.turns / elapsed:.1f} turns/s, "
                    f"{elapsed:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )

    started = time.perf_counter()
    reporter = asyncio.create_task(report())
    await asyncio.gather(*(session(s) for s in range(sessions)))
    result.wall = time.perf_counter() - started
    done.set()
    await reporter
    sampler.sample()
    result.py_rss, result.neo4j_rss = sampler.py_peak, sampler.neo4j_peak
    return result


async def heartbeat_level(
    settings: Settings,
    sessions: int,
    args: argparse.Namespace,
    after_warmup: Callable[[], None] | None = None,
) -> LevelResult:
    """One level through the real heartbeat, stores and Redis saver; cleans up after itself."""
    model = SlowLoopingModel(delay=args.model_ms / 1000)
    resources = Resources(settings, chat_model=model)
    run = uuid.uuid4().hex[:8]
    prefix = f"kag-bench-conc-{run}"
    learners = [f"bench-conc-{run}-{s}" for s in range(sessions)]
    ctx = Context(zettelkasten=False)
    sampler = RssSampler(neo4j_pid(settings))
    try:
        async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
            await saver.setup()
            graph = make_builder(resources).compile(checkpointer=saver)
            # warm up: schema, embedding model, script caches (not measured)
            warm = f"bench-conc-{run}-warm"
            await graph.ainvoke(
                {"learner_id": warm, "request": "warm up"}, {"configurable": {"thread_id": warm}}, context=ctx
            )
            learners.append(warm)
            if after_warmup is not None:
                after_warmup()

            async def turn(s: int, i: int) -> bool:
                learner = learners[s]
                out = await graph.ainvoke(
                    {"learner_id": learner, "request": QUESTION.format(i=i, s=s)},
                    # As under the server's auth: the learner owns the thread, and every
                    # checkpoint write claims it (agent.checkpoint.owners).
                    {"configurable": {"thread_id": learner, "langgraph_auth_user_id": learner}},
                    context=ctx,
                )
                if not out.get("response"):
                    raise RuntimeError("empty response")
                return bool(out["memory_state"].get("degraded"))

            calls_before = model.tool_calls_made
            stores = MemoryStores.wire(resources)
            worker, stop = build_worker(resources, stores), asyncio.Event()
            draining = asyncio.create_task(worker.run(stop))
            try:
                result = await run_level("heartbeat", sessions, turn, sampler, args.progress)
            finally:
                stop.set()
                await draining
            result.tool_calls = model.tool_calls_made - calls_before
            result.backlog = sum([await stores.kernel.depth(learner) for learner in learners])
            t0 = time.perf_counter()
            if await drain_all(worker, stores, learners, timeout=600):
                result.errors["kernel backlog not drained within 600 s"] += 1
            result.drain = time.perf_counter() - t0 if result.backlog else 0.0
            keys = [k async for k in saver.client.scan_iter(match=f"{prefix}:*", count=1000)]
            for i in range(0, len(keys), 1000):
                await saver.client.delete(*keys[i : i + 1000])
        await cleanup(resources, learners)
    finally:
        await resources.aclose()
    return result


async def cleanup(resources: Resources, learners: list[str]) -> None:
    """Delete the bench learners' nodes and Redis keys."""
    async with resources.neo4j.session(database=resources.database) as session:
        for i in range(0, len(learners), 200):
            chunk = learners[i : i + 200]
            await session.run(
                "MATCH (n) WHERE n.learner_id IN $ls "
                "CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 1000 ROWS",
                ls=chunk,
            )
            await session.run("MATCH (n:Learner) WHERE n.id IN $ls DETACH DELETE n", ls=chunk)
    keys = [k async for k in resources.redis.scan_iter(match="*bench-conc-*", count=1000)]
    for i in range(0, len(keys), 1000):
        await resources.redis.delete(*keys[i : i + 1000])


async def baseline_level(sessions: int, args: argparse.Namespace) -> LevelResult:
    """The same script on a minimal ReAct graph over ``InMemorySaver``, no stores."""
    graph = baseline_graph(SlowLoopingModel(delay=args.model_ms / 1000))
    run = uuid.uuid4().hex[:8]

    async def turn(s: int, i: int) -> bool:
        cfg = {"configurable": {"thread_id": f"base-{run}-{s}"}}
        out = await graph.ainvoke({"messages": [HumanMessage(content=QUESTION.format(i=i, s=s))]}, cfg)
        if not isinstance(out["messages"][-1], AIMessage):
            raise RuntimeError("no answer")
        return False

    return await run_level("baseline", sessions, turn, RssSampler(None), args.progress)


def knee(results: list[LevelResult]) -> int | None:
    """The last level whose throughput grew by at least 10 % over the level before it."""
    best = results[0].sessions if results else None
    for prev, cur in zip(results, results[1:], strict=False):
        if cur.throughput >= 1.1 * prev.throughput and not cur.errors:
            best = cur.sessions
        else:
            break
    return best


def mib(n: int) -> str:
    """Bytes as MiB, or '-'."""
    return f"{n / 2**20:.0f}" if n else "-"


def print_table(beats: list[LevelResult], bases: list[LevelResult]) -> None:
    """The results table, then the errors and the knee."""
    print(f"\nConcurrent sessions, {TURNS} turns each (tool call + answer), scripted model")
    head = (
        f"{'sessions':>8}{'turns':>7}{'errors':>8}{'degraded':>9}{'turns/s':>9}{'p50 s':>8}{'p95 s':>8}"
        f"{'py MiB':>8}{'neo4j MiB':>10}{'base t/s':>10}{'ratio':>7}{'backlog':>9}{'drain s':>9}"
    )
    print(head)
    print("-" * len(head))
    for beat, base in zip(beats, bases, strict=True):
        lat = beat.latencies or [0.0]
        ratio = beat.throughput / base.throughput if base.throughput else 0.0
        print(
            f"{beat.sessions:>8}{beat.turns:>7}{sum(beat.errors.values()):>8}{beat.degraded:>9}{beat.throughput:>9.1f}"
            f"{pct(lat, 0.5):>8.2f}{pct(lat, 0.95):>8.2f}{mib(beat.py_rss):>8}{mib(beat.neo4j_rss):>10}"
            f"{base.throughput:>10.1f}{ratio:>7.2f}{beat.backlog:>9}{beat.drain:>9.1f}"
        )
    for beat in beats:
        for kind, count in beat.errors.most_common(5):
            print(f"  {beat.sessions} sessions: {count} x {kind}")
    print("backlog: kernel stream entries left when the last turn ended; drain s: time to apply them")
    print(f"knee: {knee(beats)} sessions (last level whose throughput still grew >= 10 %, with 0 errors)")


def main() -> None:
    """Run every level through the heartbeat and the baseline, then print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[50, 200, 500, 2000])
    parser.add_argument("--model-ms", type=float, default=50.0, help="scripted model latency per call")
    parser.add_argument("--progress", type=float, default=5.0, help="seconds between progress lines")
    parser.add_argument("--profile", type=int, metavar="N", help="only profile one level of N sessions")
    args = parser.parse_args()
    settings = Settings.from_env()
    if args.profile:
        from bench.concurrency_profile import profile_level  # here: it imports this module

        profile_level(settings, args.profile, args)
        return
    beats, bases = [], []
    for n in args.sessions:
        beats.append(asyncio.run(heartbeat_level(settings, n, args)))
        bases.append(asyncio.run(baseline_level(n, args)))
        b = beats[-1]
        print(
            f"[concurrency] done {n} sessions: {b.throughput:.1f} turns/s, {sum(b.errors.values())} errors",
            file=sys.stderr,
            flush=True,
        )
    print_table(beats, bases)


if __name__ == "__main__":
    main()
