"""What a LangGraph super-step costs before any node does work: the floor under a heartbeat turn.

Chains of no-op async nodes over the heartbeat's own state schema (``HeartbeatState``),
one turn = one ``ainvoke`` on a thread that keeps growing, on three checkpointers: none,
``InMemorySaver`` (the heartbeat bench's baseline) and KAG's ``AsyncRedisSaver`` (the
product's). Chain lengths: 2 (the minimal ReAct graph's input step + think) and 6 (a
no-tool heartbeat turn: receive, appraise, monitor, compile, think, finish) and 10 (a
tool turn's). Every figure is a ratio to the 2-node chain on ``InMemorySaver``, measured
in the same process, so the machine's load cancels out.

Issue 14's target for a no-tool turn is 2x the minimal ReAct graph on ``InMemorySaver``;
this table shows how much of that budget the step count and the durable checkpointer
take before a node runs.

    .venv/bin/python -m bench.step_floor [--turns 300]
"""

from __future__ import annotations

import argparse
import asyncio
import time
import uuid
from dataclasses import dataclass
from typing import Any

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph

from agent.checkpoint import AsyncRedisSaver
from agent.heartbeat.state import HeartbeatState
from agent.settings import Settings
from bench.kernel.turn_report import pct

CHAINS = (2, 6, 10)
"""Chain lengths: the ReAct baseline's, a no-tool heartbeat turn's, a tool turn's."""
SAVERS = ("none", "memory", "redis")


@dataclass(frozen=True)
class Floor:
    """One chain on one checkpointer: milliseconds per turn."""

    nodes: int
    saver: str
    p50: float
    p95: float


def chain(nodes: int, checkpointer: Any) -> Any:
    """``nodes`` no-op nodes in a line over ``HeartbeatState``, compiled on ``checkpointer``."""
    builder = StateGraph(HeartbeatState)
    names = [f"n{i}" for i in range(nodes)]
    for i, name in enumerate(names):

        async def node(state: HeartbeatState, _i: int = i) -> dict:
            return {"step": _i}

        builder.add_node(name, node)
    builder.add_edge(START, names[0])
    for a, b in zip(names, names[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(names[-1], END)
    return builder.compile(checkpointer=checkpointer)


async def time_turns(graph: Any, turns: int, warmup: int = 10) -> tuple[float, float]:
    """p50 and p95 milliseconds of ``turns`` invocations on one thread."""
    config = {"configurable": {"thread_id": f"floor-{uuid.uuid4().hex[:8]}"}}
    times = []
    for _ in range(turns + warmup):
        t0 = time.perf_counter()
        await graph.ainvoke({"learner_id": "floor", "request": "hi"}, config)
        times.append(time.perf_counter() - t0)
    kept = times[warmup:]
    return pct(kept, 0.5) * 1e3, pct(kept, 0.95) * 1e3


async def measure(settings: Settings, turns: int) -> list[Floor]:
    """Every chain on every checkpointer; Redis keys under a fresh prefix, deleted after."""
    prefix = f"kag-bench-floor-{uuid.uuid4().hex[:6]}"
    out: list[Floor] = []
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as redis_saver:
        await redis_saver.setup()
        try:
            for nodes in CHAINS:
                for name in SAVERS:
                    saver = {"none": None, "memory": InMemorySaver(), "redis": redis_saver}[name]
                    p50, p95 = await time_turns(chain(nodes, saver), turns)
                    out.append(Floor(nodes, name, p50, p95))
        finally:
            keys = [k async for k in redis_saver.client.scan_iter(match=f"{prefix}:*", count=1000)]
            if keys:
                await redis_saver.client.delete(*keys)
    return out


def report(floors: list[Floor]) -> list[str]:
    """The table, each row's ratios against the 2-node chain on InMemorySaver."""
    base = next(f for f in floors if f.nodes == 2 and f.saver == "memory")
    lines = [
        "No-op chains over HeartbeatState (ratios to the 2-node chain on InMemorySaver, same process)",
        f"{'nodes':>5}  {'checkpointer':<12}{'p50 ms':>8}{'p95 ms':>8}{'p50 ratio':>11}{'p95 ratio':>11}",
    ]
    for f in floors:
        lines.append(
            f"{f.nodes:>5}  {f.saver:<12}{f.p50:>8.2f}{f.p95:>8.2f}"
            f"{f.p50 / base.p50:>10.1f}x{f.p95 / base.p95:>10.1f}x"
        )
    return lines


def main(argv: list[str] | None = None) -> None:
    """Measure and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=300, help="turns per chain and checkpointer")
    args = parser.parse_args(argv)
    floors = asyncio.run(measure(Settings.from_env(), args.turns))
    print("\n".join(report(floors)))


if __name__ == "__main__":
    main()
