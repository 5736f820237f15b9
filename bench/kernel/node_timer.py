"""Wall time per heartbeat node, from LangChain's run callbacks (no change to the graph).

LangGraph runs every node as a runnable named after the node, with the node's name in the
run's ``langgraph_node`` metadata. ``NodeTimer`` times each of those runs from its start to
its end (or error); runs nested inside a node (a model call, a routing function) carry the
same metadata and are left out. The handler runs inline on the event
loop, so a timed span is the node's own wall time, including waits on Neo4j and Redis and
any other task the loop ran meanwhile (the kernel worker's, a checkpoint write).

Callbacks cost a little per runnable, so ``bench.heartbeat --per-node`` times nodes in a
pass of its own after the ratio run, never inside it.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langgraph.types import Durability
from tqdm import tqdm

from agent.context import Context
from agent.heap import freeze_startup_heap
from agent.settings import Settings
from bench.kernel.turn_report import KERNEL, SCENARIOS, pct
from bench.kernel.turn_runs import HeartbeatRun, bench_clients


class NodeTimer(BaseCallbackHandler):
    """Collects seconds per node run, keyed by node name."""

    run_inline = True  # time on the loop itself, not on an executor thread

    def __init__(self) -> None:
        """No runs timed yet."""
        self.seconds: dict[str, list[float]] = defaultdict(list)
        self._open: dict[UUID, tuple[str, float]] = {}

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        """Open a span when the run is a node itself (its name is its ``langgraph_node``).

        A run inside an open node span is nested, even under the node's own name (a node
        whose function is a runnable of that name).
        """
        node = (metadata or {}).get("langgraph_node")
        if node is not None and kwargs.get("name") == node and parent_run_id not in self._open:
            self._open[run_id] = (node, time.perf_counter())

    def _close(self, run_id: UUID) -> None:
        opened = self._open.pop(run_id, None)
        if opened is not None:
            node, started = opened
            self.seconds[node].append(time.perf_counter() - started)

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        """Close the node's span."""
        self._close(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        """Close the span of a node that raised (an interrupt, a routing ``Command``)."""
        self._close(run_id)


def node_lines(scenario: str, timer: NodeTimer, turns: int) -> list[str]:
    """One line per node: runs, p50 and p95 of one run, and milliseconds per turn."""
    lines = [f"{scenario}: {'node':<12}{'runs':>6}{'p50 ms':>9}{'p95 ms':>9}{'ms/turn':>9}"]
    total = 0.0
    for node, secs in timer.seconds.items():
        per_turn = sum(secs) / max(turns, 1)
        total += per_turn
        lines.append(
            f"{'':<{len(scenario) + 2}}{node:<12}{len(secs):>6}{pct(secs, 0.5) * 1e3:>9.2f}"
            f"{pct(secs, 0.95) * 1e3:>9.2f}{per_turn * 1e3:>9.2f}"
        )
    lines.append(f"{'':<{len(scenario) + 2}}{'all nodes':<12}{'':>6}{'':>9}{'':>9}{total * 1e3:>9.2f}")
    return lines


async def node_times(
    settings: Settings,
    turns: int,
    warmup: int,
    budgets: dict[str, int],
    display_window: int = Context().display_window,
    durability: Durability = "async",
) -> dict[str, tuple[NodeTimer, int]]:
    """Per scenario, the heartbeat (kernel logging, worker running) with its nodes timed.

    A pass of its own, after the ratio run: ``turns`` turns after ``warmup`` untimed ones,
    at ``budgets[scenario]`` tokens. Returns the timer and the number of timed turns.
    """
    out: dict[str, tuple[NodeTimer, int]] = {}
    async with bench_clients(settings) as (base, saver):
        for scenario in SCENARIOS:
            timer = NodeTimer()
            budget = budgets[scenario]
            run = HeartbeatRun(base, KERNEL, scenario, budget, saver, display_window, durability, [timer])
            await run.start()
            try:
                for i in tqdm(range(warmup + turns), desc=f"{scenario}, nodes", unit="turn"):
                    if i == warmup:
                        timer.seconds.clear()
                        await freeze_startup_heap(base)
                    await run.turn(i)
            finally:
                await run.finish()
            out[scenario] = (timer, turns)
    return out
