"""One heartbeat bench run per graph: the baseline ReAct graph and the real heartbeat, a turn at a time.

``bench/heartbeat.py`` interleaves these runs and reports ratios; ``bench.kernel.node_timer``
runs the heartbeat alone with its nodes timed.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.messages import HumanMessage
from langgraph.types import Durability

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryKnobs, MemoryStores
from agent.resources import Resources
from agent.settings import Settings
from bench.kernel.drained import drain_all, own_streams
from bench.kernel.turn_baseline import FILLER, QUERY, ScriptedModel, baseline_graph
from bench.kernel.turn_report import BASELINE, BASELINE_REDIS, GRAPH_LABELS, KERNEL, NO_TOOL, TOOL, Series
from graphs.heartbeat import make_builder


def settings_for(settings: Settings, mode: str) -> Settings:
    """``settings`` with recall logging in ``mode`` (``kernel`` or ``sync``), on the bench's own streams."""
    return dataclasses.replace(settings, ingest_mode=mode, **own_streams(settings))


@contextlib.contextmanager
def model_usage(model: ScriptedModel, series: Series) -> Iterator[None]:
    """Record the model calls and tokens of one turn in ``series``."""
    calls, tokens = model.calls, model.input_tokens + model.output_tokens
    yield
    series.calls.append(model.calls - calls)
    series.tokens.append(model.input_tokens + model.output_tokens - tokens)


class BaselineRun:
    """The baseline graph on one scenario, one turn at a time."""

    def __init__(self, scenario: str, saver: Any = None) -> None:
        """A fresh thread on a fresh baseline graph, on InMemorySaver or on ``saver``.

        On ``saver`` (the KAG Redis saver) it is a ``--decompose`` row, never judged.
        """
        label = BASELINE if saver is None else BASELINE_REDIS
        self.series = Series(scenario, label, judged=saver is None)
        self.model = ScriptedModel(direct=scenario == NO_TOOL)
        self.graph = baseline_graph(self.model, saver)
        self.cfg = {"configurable": {"thread_id": f"bench-base-{uuid.uuid4().hex[:8]}"}}

    async def start(self) -> None:
        """Nothing to set up."""

    async def turn(self, i: int) -> None:
        """One timed turn."""
        t0, c0 = time.perf_counter(), time.thread_time()
        question = {"messages": [HumanMessage(content=f"Question {i}: {FILLER}")]}
        with model_usage(self.model, self.series):
            await self.graph.ainvoke(question, self.cfg)
        self.series.times.append(time.perf_counter() - t0)
        self.series.cpu.append(time.thread_time() - c0)
        self.series.archived.append(False)

    async def finish(self) -> None:
        """Nothing to clean up."""


class HeartbeatRun:
    """The real heartbeat on one scenario with recall logging in one mode, one turn at a time."""

    def __init__(
        self,
        base: Resources,
        mode: str,
        scenario: str,
        max_tokens: int,
        saver: Any,
        display_window: int,
        durability: Durability = "async",
        callbacks: list[Any] | None = None,
        label: str | None = None,
    ) -> None:
        """A bundle over the run's clients with ``mode``'s settings, a fresh learner and thread.

        ``durability``: LangGraph's checkpoint mode for every turn (``"async"``, its default
        and the server's, or ``"exit"``); ``callbacks``: handlers every turn runs with;
        ``label``: the row's name when it is not the product's (a ``--decompose`` row, never judged).
        """
        self.base, self.mode, self.scenario = base, mode, scenario
        self.model = ScriptedModel(direct=scenario == NO_TOOL)
        self.bundle = Resources(
            settings_for(base.settings, mode),
            chat_model=self.model,
            embeddings=base.embeddings,
            neo4j_driver=base.neo4j,
            redis_client=base.redis,
        )  # shares the run's clients: never closed here
        self.stores = MemoryStores.wire(self.bundle)
        self.learner = f"bench-hb-{uuid.uuid4().hex[:10]}"
        self.ctx = Context(max_tokens=max_tokens, zettelkasten=False, display_window=display_window)
        self.knobs = MemoryKnobs.from_context(self.ctx)
        self.series = Series(scenario, label or GRAPH_LABELS[mode], judged=label is None)
        self.graph = make_builder(self.bundle).compile(checkpointer=saver)
        self.cfg: dict[str, Any] = {"configurable": {"thread_id": self.learner}}
        if callbacks:
            self.cfg["callbacks"] = callbacks
        self.durability = durability
        self.archives = 0
        self.worker: Any = None
        self.stop = asyncio.Event()
        self.task: asyncio.Task | None = None

    async def start(self) -> None:
        """Kernel logging: the worker starts in a background task, as in the server."""
        if self.mode == KERNEL:
            self.worker = build_worker(self.bundle, self.stores)
            self.task = asyncio.create_task(self.worker.run(self.stop))

    async def turn(self, i: int) -> None:
        """One timed turn; on a tool turn, then the same search timed directly."""
        t0, c0 = time.perf_counter(), time.thread_time()
        request = {"learner_id": self.learner, "request": f"Question {i}: {FILLER}"}
        with model_usage(self.model, self.series):
            out = await self.graph.ainvoke(request, self.cfg, context=self.ctx, durability=self.durability)
        self.series.times.append(time.perf_counter() - t0)
        self.series.cpu.append(time.thread_time() - c0)
        count = out["memory_state"].get("archive_attempts", 0)
        self.series.archived.append(count > self.archives)
        self.archives = count
        if self.scenario == TOOL:
            t0 = time.perf_counter()
            await self.stores.archival.search(
                self.learner, QUERY, page_size=self.knobs.page_size, recipe=self.knobs.recipe
            )
            self.series.searches.append(time.perf_counter() - t0)

    async def finish(self) -> None:
        """Stop and drain the worker, count what reached Neo4j, erase the learner."""
        try:
            if self.task is not None:
                self.stop.set()
                await self.task
                self.series.left = await drain_all(self.worker, self.stores, [self.learner])
                self.series.worker = dict(self.worker.stats())
            self.series.stored = await self.stores.recall.count(self.learner)
        finally:
            if self.task is not None and not self.task.done():
                self.stop.set()
                await self.task
            await erase_learner(self.bundle, self.learner)
            stale = [k async for k in self.base.redis.scan_iter(match=f"*{self.learner}*", count=1000)]
            if stale:
                await self.base.redis.delete(*stale)
            await self.base.redis.srem(self.stores.kernel.active_key, self.learner)


@contextlib.asynccontextmanager
async def bench_saver(
    settings: Settings, stem: str, keep: int | None = None
) -> AsyncIterator[AsyncRedisSaver]:
    """A Redis checkpoint saver under a prefix of its own (``stem``-…), its keys deleted on exit."""
    prefix = f"{stem}-{uuid.uuid4().hex[:6]}"
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix, keep=keep) as saver:
        await saver.setup()
        try:
            yield saver
        finally:
            keys = [k async for k in saver.client.scan_iter(match=f"{prefix}:*", count=1000)]
            if keys:
                await saver.client.delete(*keys)


@contextlib.asynccontextmanager
async def bench_clients(settings: Settings) -> AsyncIterator[tuple[Resources, AsyncRedisSaver]]:
    """The run's shared clients and a Redis checkpoint saver under a prefix of its own.

    On exit the saver's keys are deleted, the heap is unfrozen (the process, a test's too,
    collects as before) and the clients are closed.
    """
    base = Resources(settings)
    try:
        async with bench_saver(settings, "kag-bench-ckpt") as saver:
            yield base, saver
    finally:
        gc.unfreeze()
        await base.aclose()
