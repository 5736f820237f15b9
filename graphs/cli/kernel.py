"""``kag kernel run|stats`` and ``kag reflect``: the memory kernel in plain Python.

``kag kernel run`` is for ``KAG_KERNEL_IN_SERVER=false`` on the server, or no server at
all; the commands' own help says what each does.
"""

from __future__ import annotations

import asyncio
import json
import signal
import time
from typing import TYPE_CHECKING, Any

import click

from graphs.cli.common import open_resources, run

if TYPE_CHECKING:
    from agent.settings import Settings

STATS_KEYS = (
    "applied",
    "batches",
    "dead_lettered",
    "stalls",
    "last_lag_seconds",
    "max_lag_seconds",
    "throughput_per_s",
    "depth",
)
"""The worker counters ``kag kernel run`` prints."""


def stats_line(stats: dict[str, Any]) -> str:
    """One line of worker stats: ``applied=120 batches=3 ... depth=0``."""
    return " ".join(f"{key}={stats[key]}" for key in STATS_KEYS if key in stats)


def echo_json(value: Any) -> None:
    """Print ``value`` as indented JSON."""
    click.echo(json.dumps(value, indent=2, sort_keys=True, default=str))


@click.group("kernel")
def kernel_group() -> None:
    """The memory kernel: run its worker, show its backlog."""


@kernel_group.command("run")
@click.option("--once", is_flag=True, help="Drain every learner's stream now, then exit.")
@click.option(
    "--learner", "learner_id", default=None, metavar="ID", help="With --once: drain only this learner."
)
@click.option(
    "--every",
    type=click.FloatRange(0.5, 3600),
    default=10.0,
    show_default=True,
    help="Seconds between two stats lines.",
)
def kernel_run(once: bool, learner_id: str | None, every: float) -> int:
    """Run the kernel worker until Ctrl-C (or drain once with --once)."""
    if learner_id is not None and not once:
        raise click.UsageError("--learner only goes with --once (the running worker serves every learner)")

    async def work(settings: Settings) -> int:
        from agent.heap import freeze_startup_heap
        from agent.kernel.worker import build_worker
        from agent.server.kernel_service import kernel_stores
        from agent.validation import validate_learner_id

        async with open_resources(settings) as resources:
            worker = build_worker(resources, kernel_stores(resources))
            if once:
                started = time.perf_counter()
                done = await worker.drain(validate_learner_id(learner_id) if learner_id else None)
                click.echo(f"drained {done} event(s) in {time.perf_counter() - started:.2f}s")
                click.echo(stats_line({**worker.stats(), "depth": await worker.stream.depth()}))
                return 0
            await freeze_startup_heap(resources)
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(sig, stop.set)
            click.echo("kernel worker running; Ctrl-C stops it after the current batch")
            runner = asyncio.create_task(worker.run(stop))
            while not runner.done():
                await asyncio.wait({runner}, timeout=every)
                click.echo(stats_line({**worker.stats(), "depth": await worker.stream.depth()}))
            await runner  # re-raises a crash
            click.echo("kernel worker stopped")
            return 0

    return run(work)


@kernel_group.command("stats")
@click.option("--learner", "learner_id", default=None, metavar="ID", help="Also this learner's counts.")
def kernel_stats(learner_id: str | None) -> int:
    """Print the kernel backlog (and a learner's backlog and memory counts) as JSON."""

    async def work(settings: Settings) -> int:
        from agent.server import kernel_status
        from agent.server.kernel_service import kernel_stores, kernel_stream
        from agent.validation import validate_learner_id

        async with open_resources(settings) as resources:
            learner = validate_learner_id(learner_id) if learner_id is not None else None
            out: dict[str, Any] = {"backlog": await kernel_status.backlog(kernel_stream(resources), learner)}
            if learner is not None:
                out["learner_id"] = learner
                out["memory"] = await kernel_status.memory_counts(kernel_stores(resources), learner)
        echo_json(out)
        return 0

    return run(work)


@kernel_group.command("backfill")
@click.option("--learner", "learner_id", default=None, metavar="ID", help="Only this learner's memories.")
def kernel_backfill(learner_id: str | None) -> int:
    """Flag and split into sentences the turn contexts derived before flags and sentences existed."""

    async def work(settings: Settings) -> int:
        from agent.kernel.derive import backfill_disclosure
        from agent.kernel.sentences import backfill_sentences
        from agent.server.kernel_service import kernel_stores
        from agent.validation import validate_learner_id

        async with open_resources(settings) as resources:
            learner = validate_learner_id(learner_id) if learner_id is not None else None
            stores = kernel_stores(resources)
            flagged = await backfill_disclosure(stores, learner)
            turns, sentences = await backfill_sentences(stores, learner)
        click.echo(f"flagged {flagged} turn context(s)")
        click.echo(f"derived {sentences} sentence(s) of {turns} turn context(s)")
        return 0

    return run(work)


@click.command("reflect")
@click.option(
    "--learner", "learner_id", default=None, metavar="ID", help="One learner (default: every active one)."
)
@click.option(
    "--limit", type=click.IntRange(10, 100), default=50, show_default=True, help="Items per learner and step."
)
def reflect_command(learner_id: str | None, limit: int) -> int:
    """Run reflection now (synthesis, anticipation, curation, prioritisation, decay); JSON reports."""

    async def work(settings: Settings) -> int:
        from agent.server.kernel_reflect import reflect_learners

        async with open_resources(settings) as resources:
            ids = [learner_id] if learner_id is not None else None
            reports = await reflect_learners(resources, ids, limit=limit)
        echo_json({"learners": len(reports), "reports": reports})
        return 0

    return run(work)
