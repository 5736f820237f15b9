"""Heartbeat turn overhead against a minimal ReAct graph, kernel logging beside the old sync path.

Every figure comes from one run, with a scripted chat model, so what is measured is the
graph's own cost (the model's latency is the design's budget, not ours). Two scenarios:

- **no-tool turn**: the scripted model answers the request directly;
- **tool turn**: it calls ``archival_memory_search`` once, then answers.

Each scenario runs on three graphs, ``--turns`` turns each, one fresh learner each:

1. the **baseline**: a minimal two-node ReAct ``StateGraph`` (model → tool → model) on
   ``InMemorySaver`` with a no-op tool and the same scripted model;
2. the real **heartbeat, kernel logging** (``Settings.ingest_mode = "kernel"``, the
   default): recall logging is an enqueue to the kernel's Redis stream, and a kernel worker
   drains it in a background task (``asyncio.create_task(worker.run(stop))``), as in the
   server. It is drained to the end after the run, and the recall messages in Neo4j are
   counted, so nothing the turns logged goes missing;
3. the real **heartbeat, sync logging** (``--sync-logging``, on by default; the old path,
   ``ingest_mode = "sync"``): every log is an embed plus Neo4j transactions in the turn.

Both heartbeats run on the Redis checkpoint saver with real Neo4j and Redis, and the model
also answers the heartbeat's intent classifier (structured output) from the offline rules.
Turns on which auto-archive ran are reported in their own rows. The no-tool turn runs at
``--max-tokens`` (3,000: small, so about one turn in five archives); the tool turn at
``--tool-max-tokens`` (default: the product's ``Context.max_tokens``, 8,192). A tool turn
adds four messages and a page of search results to the queue, so at 3,000 tokens nearly
every tool turn archives and the overhead row would rest on a handful of turns; at the
product's budget most tool turns do not archive, and those that do still get their own
row (``--tool-max-tokens 3000`` gives the archive-every-turn run). For the tool turn, the
same search the tool runs (``stores.archival.search`` with the run's knobs) is timed
directly after every heartbeat turn, and **overhead beyond the search** is the per-turn
difference (turn − that search). Once every graph of a scenario has started, the start-up
heap is frozen out of the garbage collector's full passes, as the server's lifespan does
(``agent.heap``); it is unfrozen when the measure ends.

``--decompose`` adds two rows per scenario that are printed but never judged: the baseline
on the KAG Redis saver and the heartbeat (kernel logging) on ``InMemorySaver``. Read beside
the others, they split the heartbeat's ratio into what the durable checkpointer costs and
what the heartbeat's own steps cost.

Targets (issue 14), printed with PASS/MISS: a no-tool turn ≤ 2× the baseline (p95 ratio),
and a tool turn's overhead beyond the search ≤ 20 ms p95. Then the compile-scaling table:
``compile_prompt`` + token count over queues of 10 … 2,000 messages.

    .venv/bin/python -m bench.heartbeat [--turns 200] [--tool-max-tokens 8192] [--no-sync-logging]
        [--durability async|exit] [--per-node] [--decompose]
"""

from __future__ import annotations

import argparse
import asyncio
import time

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    ToolMessage,
)
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.types import Durability
from tqdm import tqdm

from agent.context import Context
from agent.heap import freeze_startup_heap
from agent.heartbeat.tokens import count_messages
from agent.heartbeat.working_memory import compile_prompt
from agent.settings import Settings
from bench.kernel.node_timer import node_lines, node_times
from bench.kernel.turn_baseline import FILLER, QUERY, LoopingModel, ScriptedModel, baseline_graph
from bench.kernel.turn_report import (
    BASELINE,
    GRAPH_LABELS,
    HEARTBEAT_INMEMORY,
    KERNEL,
    MESSAGES_PER_TURN,
    NO_TOOL,
    NO_TOOL_TARGET,
    OVERHEAD_TARGET_MS,
    SCENARIOS,
    SYNC,
    TOOL,
    Series,
    pct,
    report,
    verdict,
)
from bench.kernel.turn_runs import BaselineRun, HeartbeatRun, bench_clients

__all__ = [
    "FILLER",
    "QUERY",
    "BASELINE",
    "GRAPH_LABELS",
    "KERNEL",
    "MESSAGES_PER_TURN",
    "NO_TOOL",
    "NO_TOOL_TARGET",
    "OVERHEAD_TARGET_MS",
    "SCENARIOS",
    "SYNC",
    "TOOL",
    "LoopingModel",
    "ScriptedModel",
    "Series",
    "baseline_graph",
    "measure",
    "pct",
    "report",
    "verdict",
]
"""Names other benches and the tests import from here (the report lives in ``bench.kernel.turn_report``,
the scripted models and the baseline graph in ``bench.kernel.turn_baseline``, one graph's run in
``bench.kernel.turn_runs``)."""


async def measure(
    settings: Settings,
    turns: int,
    max_tokens: int,
    modes: tuple[str, ...],
    tool_max_tokens: int | None = None,
    display_window: int = Context().display_window,
    durability: Durability = "async",
    decompose: bool = False,
) -> list[Series]:
    """Every scenario on the baseline and the heartbeat in each of ``modes``, turns interleaved.

    The no-tool turn runs at ``max_tokens``, the tool turn at ``tool_max_tokens`` (default:
    ``max_tokens``). ``display_window``: the heartbeat's ``Context.display_window``;
    ``durability``: the heartbeat's checkpoint mode (the baseline keeps LangGraph's default).
    ``decompose``: two more rows per scenario, each graph on the other's checkpointer (the
    baseline on the KAG Redis saver, the heartbeat with kernel logging on ``InMemorySaver``).

    Turn ``i`` runs on every graph before turn ``i + 1`` runs on any, so a change in the
    machine's load (2 shared cores) hits every row alike and the ratios stay comparable.
    """
    out: list[Series] = []
    async with bench_clients(settings) as (base, saver):
        for scenario in SCENARIOS:
            runs: list[BaselineRun | HeartbeatRun] = [BaselineRun(scenario)]
            budget = tool_max_tokens if scenario == TOOL and tool_max_tokens else max_tokens
            runs += [
                HeartbeatRun(base, mode, scenario, budget, saver, display_window, durability)
                for mode in modes
            ]
            if decompose:
                runs += [
                    BaselineRun(scenario, saver),
                    HeartbeatRun(
                        base,
                        KERNEL,
                        scenario,
                        budget,
                        InMemorySaver(),
                        display_window,
                        durability,
                        label=HEARTBEAT_INMEMORY,
                    ),
                ]
            for run in runs:
                await run.start()
            # As the server's lifespan does once it has loaded (agent.heap): every graph
            # of the run, baseline included, then turns without full passes over that heap.
            await freeze_startup_heap(base)
            try:
                for i in tqdm(range(turns), desc=scenario, unit="turn"):
                    for run in runs:
                        await run.turn(i)
            finally:
                for run in runs:
                    await run.finish()
            out += [run.series for run in runs]
    return out


def compile_scaling(sizes: list[int], repeats: int = 20) -> list[tuple[int, float]]:
    """Seconds per compile+count for each queue size."""
    core = {"user_profile": "Name: Ada. Level: beginner.", "current_goals": "Master SQL joins by Friday."}
    out = []
    for n in sizes:
        queue: list[AnyMessage] = []
        for i in range(n):
            cls = HumanMessage if i % 3 == 0 else AIMessage
            queue.append(
                cls(content=f"message {i}: {FILLER}")
                if i % 3 != 2
                else ToolMessage(content=f"result {i}", tool_call_id=f"t{i}")
            )
        t0 = time.perf_counter()
        for _ in range(repeats):
            count_messages(compile_prompt(core, queue, text_protocol=False))
        out.append((n, (time.perf_counter() - t0) / repeats))
    return out


def main(argv: list[str] | None = None) -> None:
    """Run the measurements and print ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200, help="turns per scenario and graph")
    parser.add_argument(
        "--max-tokens", type=int, default=3000, help="no-tool turn: small, so archiving happens"
    )
    parser.add_argument(
        "--tool-max-tokens",
        type=int,
        default=Context().max_tokens,
        help="tool turn (default: the product's budget, so most tool turns do not archive)",
    )
    parser.add_argument(
        "--display-window",
        type=int,
        default=Context().display_window,
        help="Context.display_window of the heartbeat (a huge value: the unbounded channel of before)",
    )
    parser.add_argument("--warmup", type=int, default=3, help="turns left out (schema setup, model load)")
    parser.add_argument(
        "--sync-logging",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="also run the old path (ingest_mode=sync) in the same run",
    )
    parser.add_argument(
        "--durability",
        choices=("async", "exit"),
        default="async",
        help="the heartbeat's checkpoint mode (async: LangGraph's default and the server's; exit: "
        "one checkpoint per turn)",
    )
    parser.add_argument(
        "--per-node",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="after the ratio run, a pass that times each heartbeat node (kernel logging)",
    )
    parser.add_argument(
        "--decompose",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="also run the baseline on the KAG Redis saver and the heartbeat on InMemorySaver "
        "(rows not judged: they split the ratio into checkpointer and graph)",
    )
    parser.add_argument("--compile-scaling", action=argparse.BooleanOptionalAction, default=True)
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    modes = (KERNEL, SYNC) if args.sync_logging else (KERNEL,)
    series = asyncio.run(
        measure(
            settings,
            args.turns,
            args.max_tokens,
            modes,
            args.tool_max_tokens,
            args.display_window,
            args.durability,
            args.decompose,
        )
    )
    print()
    print(
        f"max_tokens: {NO_TOOL} {args.max_tokens}, {TOOL} {args.tool_max_tokens}; "
        f"heartbeat durability {args.durability}"
    )
    print("\n".join(report(series, args.warmup)))
    if args.per_node:
        budgets = {NO_TOOL: args.max_tokens, TOOL: args.tool_max_tokens}
        timed = asyncio.run(
            node_times(settings, args.turns, args.warmup, budgets, args.display_window, args.durability)
        )
        print("\nPer node (a separate pass, callbacks on; wall time on the loop, archive turns included)")
        for scenario, (timer, turns) in timed.items():
            print("\n".join(node_lines(scenario, timer, turns)))
    if args.compile_scaling:
        scaling = compile_scaling([10, 100, 500, 2000])
        per_msg0 = scaling[0][1] / scaling[0][0]
        print("\nCompile + token count vs queue size (ratio of time per message to the 10-message queue)")
        print(f"{'queue':>8}{'ms':>10}{'per-msg ratio':>16}")
        for n, secs in scaling:
            print(f"{n:>8}{secs * 1e3:>10.2f}{(secs / n) / per_msg0:>16.2f}")


if __name__ == "__main__":
    main()
