"""How much Redis one heartbeat thread holds as it grows, with and without the history bound.

The real heartbeat (kernel logging, worker running, scripted model, real Neo4j and Redis)
runs ``--turns`` turns of each scenario twice, interleaved turn by turn: once on a saver
that keeps every checkpoint (``keep=None``, the saver's default) and once on one with
``keep=--keep`` (the server's ``Settings.checkpoint_keep``). At every ``--every`` turns it
prints the thread's Redis bytes (``MEMORY USAGE … SAMPLES 0`` over the thread's keys),
its checkpoint count, and bytes per turn; at the end, each saver's turn p50/p95 (a trim
runs inside the put chain once per slack, so its cost shows there) and their ratio.

    .venv/bin/python -m bench.checkpoint_growth [--turns 200] [--keep 500] [--every 50]
"""

from __future__ import annotations

import argparse
import asyncio

from tqdm import tqdm

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.resources import Resources
from agent.settings import Settings
from bench.kernel.turn_report import KERNEL, NO_TOOL, SCENARIOS, TOOL, pct
from bench.kernel.turn_runs import HeartbeatRun, bench_saver

BUDGETS = {NO_TOOL: 3000, TOOL: Context().max_tokens}
"""Token budgets as in ``bench.heartbeat``: the no-tool turn archives about one turn in five."""


async def thread_bytes(saver: AsyncRedisSaver, thread_id: str) -> tuple[int, int]:
    """(bytes of every key of the thread, checkpoints in its root namespace)."""
    keys = [k async for k in saver.client.scan_iter(match=f"{saver.thread_base(thread_id)}:*", count=1000)]
    total = 0
    for key in keys:
        total += await saver.client.memory_usage(key, samples=0) or 0
    return total, await saver.client.zcard(saver.index_key(thread_id, ""))


async def measure(settings: Settings, turns: int, keep: int, every: int, warmup: int = 3) -> list[str]:
    """Both savers on both scenarios; the report's lines (times without the first ``warmup`` turns)."""
    lines = [f"{'scenario':<14}{'saver':<12}{'turns':>6}{'checkpoints':>13}{'KiB':>10}{'KiB/turn':>10}"]
    tail = ["", f"{'scenario':<14}{'saver':<12}{'p50 ms':>9}{'p95 ms':>9}{'p95 vs all':>12}"]
    base = Resources(settings)
    try:
        async with (
            bench_saver(settings, "kag-bench-growth") as unbounded,
            bench_saver(settings, "kag-bench-growth", keep) as bounded,
        ):
            savers = {"keep all": unbounded, f"keep {keep}": bounded}
            for scenario in SCENARIOS:
                window = Context().display_window
                runs = {
                    name: HeartbeatRun(base, KERNEL, scenario, BUDGETS[scenario], saver, window)
                    for name, saver in savers.items()
                }
                for run in runs.values():
                    await run.start()
                try:
                    for i in tqdm(range(turns), desc=scenario, unit="turn"):
                        for name, run in runs.items():
                            await run.turn(i)
                            if (i + 1) % every == 0 or i + 1 == turns:
                                size, count = await thread_bytes(savers[name], run.learner)
                                lines.append(
                                    f"{scenario:<14}{name:<12}{i + 1:>6}{count:>13}{size / 1024:>10.0f}"
                                    f"{size / 1024 / (i + 1):>10.1f}"
                                )
                finally:
                    for run in runs.values():
                        await run.finish()
                p95_all = pct(runs["keep all"].series.times[warmup:], 0.95)
                for name, run in runs.items():
                    times = run.series.times[warmup:]
                    tail.append(
                        f"{scenario:<14}{name:<12}{pct(times, 0.5) * 1e3:>9.1f}{pct(times, 0.95) * 1e3:>9.1f}"
                        f"{pct(times, 0.95) / p95_all:>11.2f}x"
                    )
    finally:
        await base.aclose()
    return lines + tail


def main(argv: list[str] | None = None) -> None:
    """Run and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--keep", type=int, default=Settings().checkpoint_keep, help="the bounded saver")
    parser.add_argument("--every", type=int, default=50, help="print the thread's size every N turns")
    parser.add_argument("--warmup", type=int, default=3, help="turns left out of the times (model load)")
    args = parser.parse_args(argv)
    lines = asyncio.run(measure(Settings.from_env(), args.turns, args.keep, args.every, args.warmup))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
