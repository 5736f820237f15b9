"""Where a concurrent heartbeat turn's time goes: ``python -m bench.concurrency --profile N``.

Awaited wall time per component (Neo4j transactions by caller, embeddings, Redis saver
round trips, the scripted model), then the event loop's own cProfile hot spots.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import pstats
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agent.checkpoint import AsyncRedisSaver
from agent.settings import Settings
from bench.concurrency import SlowLoopingModel, heartbeat_level
from bench.kernel.turn_report import pct


class AwaitTimers:
    """Wall time awaited in each component (Neo4j, embeddings, Redis saver, model), summed over calls.

    The event loop's own profile cannot show this: the loop waits in ``epoll`` while a
    query runs in Neo4j or an embedding runs in a worker thread.
    """

    def __init__(self) -> None:
        """Start with nothing timed."""
        self.seconds: Counter[str] = Counter()
        self.calls: Counter[str] = Counter()
        self._undo: list[tuple[Any, str, Any]] = []

    def wrap(self, owner: Any, name: str, label: Callable[[tuple[Any, ...]], str]) -> None:
        """Time every await of ``owner.name`` under ``label(args)``."""
        original = getattr(owner, name)
        timers = self

        async def timed(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return await original(*a, **kw)
            finally:
                key = label(a)
                timers.seconds[key] += time.perf_counter() - t0
                timers.calls[key] += 1

        setattr(owner, name, timed)
        self._undo.append((owner, name, original))

    def reset(self) -> None:
        """Forget what was timed so far (the warm-up)."""
        self.seconds.clear()
        self.calls.clear()

    def restore(self) -> None:
        """Put the originals back."""
        for owner, name, original in reversed(self._undo):
            setattr(owner, name, original)


def _caller_of_run(_: tuple[Any, ...]) -> str:
    frame = sys._getframe(2)  # timed -> _run's caller chain: read/write/... -> store method
    while frame is not None and frame.f_code.co_name in {"timed", "read", "write", "_run", "write_or_park"}:
        frame = frame.f_back
    where = f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}" if frame else "?"
    return f"neo4j tx ({where})"


def profile_level(settings: Settings, sessions: int, args: argparse.Namespace) -> None:
    """Profile one heartbeat level: awaited time per component, then the loop's own hot spots."""
    from agent.graphdb.store import Neo4jStore

    timers = AwaitTimers()
    timers.wrap(Neo4jStore, "_run", _caller_of_run)
    timers.wrap(Neo4jStore, "embed_query", lambda a: "embed query (thread)")
    timers.wrap(Neo4jStore, "embed_documents", lambda a: "embed documents (thread)")
    timers.wrap(AsyncRedisSaver, "_send", lambda a: "redis saver round trip")
    timers.wrap(SlowLoopingModel, "_agenerate", lambda a: "scripted model (sleep)")
    prof = cProfile.Profile()
    prof.enable()
    try:
        result = asyncio.run(heartbeat_level(settings, sessions, args, after_warmup=timers.reset))
    finally:
        prof.disable()
        timers.restore()
    turns = max(result.turns, 1)
    print(
        f"\nAwaited wall time per turn by component ({sessions} sessions, {result.turns} turns, "
        f"p50 turn {pct(result.latencies or [0.0], 0.5):.2f} s):"
    )
    print(f"{'component':<60}{'ms/turn':>10}{'calls/turn':>12}")
    for key, secs in timers.seconds.most_common(25):
        print(f"{key:<60}{secs / turns * 1e3:>10.1f}{timers.calls[key] / turns:>12.1f}")
    out = io.StringIO()
    stats = pstats.Stats(prof, stream=out).sort_stats("cumulative")
    stats.print_stats(45)
    print(f"\nProfile of {sessions} sessions ({result.throughput:.1f} turns/s), by cumulative time:")
    print("\n".join(line for line in out.getvalue().splitlines() if line.strip())[:12000])
