"""The memory kernel inside the LangGraph server: the worker as a supervised background task.

The custom app's lifespan (``agent.server.app``) enters ``kernel_lifespan``: it wires the
stores over the server's resources, starts ``KernelWorker.run`` as a task on the server's
event loop (unless ``Settings.kernel_in_server`` is false: then ``kag kernel run`` drains
the stream and no reflection cron runs either), registers the reflection crons
(``agent.server.kernel_cron``) and, on shutdown, waits for the current batch to commit.

A worker that crashes is logged and restarted with a growing delay (1 s to 30 s):
its pending entries are reclaimed by the next run (``XAUTOCLAIM``), so nothing is
lost. ``current_service()`` is what the ``/kernel`` routes read (stats, health).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import weakref
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from agent.kernel.stream import KernelStream
from agent.memory.stores import MemoryStores
from agent.resources import Resources, default_resources

log = logging.getLogger("kag.kernel.server")

STOP_TIMEOUT_S = 30.0
"""How long shutdown waits for the worker's current batch before cancelling it."""
RESTART_DELAYS_S = (1.0, 2.0, 5.0, 10.0, 30.0)
"""Delays before restarting a crashed worker (the last one repeats)."""

_STORES: weakref.WeakKeyDictionary[Resources, MemoryStores] = weakref.WeakKeyDictionary()
_CURRENT: KernelService | None = None


def kernel_stores(resources: Resources) -> MemoryStores:
    """The memory stores over ``resources``, wired once per bundle (routes, worker, CLI share them)."""
    stores = _STORES.get(resources)
    if stores is None:
        stores = _STORES[resources] = MemoryStores.wire(resources)
    return stores


def kernel_stream(resources: Resources) -> KernelStream:
    """The kernel stream of the bundle's stores."""
    return kernel_stores(resources).kernel


class KernelService:
    """The worker task of one server process, restarted when it crashes, stopped on shutdown."""

    def __init__(self, resources: Resources, stores: MemoryStores, *, run_worker: bool = True) -> None:
        """Keep the bundle and stores; nothing starts before ``start``."""
        self.resources = resources
        self.stores = stores
        self.run_worker = run_worker
        self.worker: Any | None = None
        self.restarts = 0
        self.started_at: float | None = None
        self.last_error: str | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        """True while the worker task runs (False when disabled, stopped or never started)."""
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Build the worker and start its supervised task (no-op when disabled or running)."""
        if not self.run_worker or self.alive:
            return
        try:
            from agent.kernel.worker import build_worker  # local: the kernel imports the stores

            self.worker = build_worker(self.resources, self.stores)
        except Exception as exc:  # the server keeps serving; /kernel/health reports it degraded
            self.last_error = f"{type(exc).__name__}: {exc}"
            log.exception("cannot build the kernel worker: it does not run in this server")
            return
        self._stop.clear()
        self.started_at = time.time()
        self._task = asyncio.create_task(self._supervise(), name="kag-kernel-worker")
        log.info("kernel worker started in the server")

    async def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Ask the worker to stop after its current batch; cancel it after ``timeout`` seconds."""
        task, self._task = self._task, None
        if task is None:
            return
        self._stop.set()
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            log.warning("kernel worker did not stop within %.0fs; cancelling it", timeout)
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        log.info("kernel worker stopped")

    def worker_stats(self) -> dict[str, Any]:
        """The worker's own counters, plus whether it runs here and how often it restarted."""
        stats: dict[str, Any] = dict(self.worker.stats()) if self.worker is not None else {}
        stats.update(
            in_server=self.run_worker,
            alive=self.alive,
            restarts=self.restarts,
            uptime_seconds=round(time.time() - self.started_at, 1) if self.alive and self.started_at else 0.0,
        )
        if self.last_error:
            stats["last_error"] = self.last_error
        return stats

    async def _supervise(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                await self.worker.run(self._stop)  # type: ignore[union-attr]
                return
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.restarts += 1
                self.last_error = f"{type(exc).__name__}: {exc}"
                delay = RESTART_DELAYS_S[min(attempt, len(RESTART_DELAYS_S) - 1)]
                attempt += 1
                log.exception("kernel worker crashed; restarting in %.0fs", delay)
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._stop.wait(), delay)


def current_service() -> KernelService | None:
    """The service the server's lifespan started (None outside the server, or before start)."""
    return _CURRENT


@asynccontextmanager
async def kernel_lifespan(
    learners: Iterable[str] = (), resources: Resources | None = None
) -> AsyncIterator[KernelService]:
    """Run the worker and the ``learners``' reflection crons while the server runs; stop them after."""
    global _CURRENT
    from agent.server.kernel_cron import cron_schedule, ensure_reflection_crons  # LangGraph internals

    bundle = resources or default_resources()
    settings = bundle.settings
    service = KernelService(bundle, kernel_stores(bundle), run_worker=settings.kernel_in_server)
    if not service.run_worker:
        log.info("kernel worker disabled in the server (KAG_KERNEL_IN_SERVER=false): run `kag kernel run`")
    service.start()
    _CURRENT = service
    try:
        schedule = cron_schedule(settings.reflection_interval_seconds) if service.run_worker else ""
        await ensure_reflection_crons(learners, schedule)
        yield service
    finally:
        _CURRENT = None
        await service.stop()
