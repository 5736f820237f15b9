"""``AsyncRedisSaver``: the async-first LangGraph checkpoint saver on plain Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple

from agent.checkpoint import migrate, ops
from agent.checkpoint.api import RedisSaverApi
from agent.checkpoint.cluster import AsyncClusterSender, async_cluster_client, cluster_url
from agent.checkpoint.coalesce import Coalescer
from agent.checkpoint.requests import Op
from agent.checkpoint.transport import iter_async, run_async
from agent.redis_retry import async_client


class AsyncRedisSaver(RedisSaverApi):
    """Checkpoints in Redis hashes, sorted sets and sets; see ``base`` for the layout.

    On plain Redis, batches asked for in the same loop iteration share one pipeline
    (``agent.checkpoint.coalesce``); ``client`` may also be a cluster client.

    Sync methods (``get_tuple``, ``put`` ...) exist for LangGraph APIs that call them
    (e.g. ``graph.get_state``); they hop onto the loop the saver was created on and
    must be called from another thread. Prefer ``RedisSaver`` for sync code.
    """

    def __init__(self, client: Any, **kwargs: Any) -> None:
        """Wrap ``client`` as ``RedisSaverApi`` does; remember the running loop for sync calls."""
        super().__init__(client, **kwargs)
        self._cluster_send = AsyncClusterSender(client) if self.cluster else None
        self._coalescer = None if self.cluster else Coalescer(client)
        try:
            self.loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            self.loop = None

    @classmethod
    @asynccontextmanager
    async def from_conn_string(
        cls, url: str, *, cluster: bool = False, **kwargs: Any
    ) -> AsyncIterator[AsyncRedisSaver]:
        """Open a client for ``url``, yield a saver, close the client on exit.

        ``redis+cluster://host:port`` (or ``cluster=True`` with a ``redis://`` URL of
        any node) opens a ``RedisCluster`` client instead of a plain one.
        """
        node_url = cluster_url(url) or (url if cluster else None)
        # plain: a blocking pool of 10 that retries restarts (agent.redis_retry)
        client: Any = (
            async_cluster_client(node_url) if node_url else async_client(url, decode_responses=False)
        )
        try:
            yield cls(client, **kwargs)
        finally:
            await client.aclose()

    async def setup(self) -> None:
        """Check the server version, load the Lua scripts, record the layout version."""
        await run_async(migrate.setup(self), self._send)

    async def _send(self, batch: ops.Batch) -> list[Any]:
        if self._cluster_send is not None:
            return await self._cluster_send(batch)
        # Plain Redis: the index rides along, and batches asked for in the same loop
        # iteration (a step's writes and its checkpoint) share one round trip.
        assert self._coalescer is not None
        return await self._coalescer.send(batch)

    async def _asend(self, batch: ops.Batch) -> list[Any]:
        return await self._send(batch)  # looked up per call: tests and bench wrap _send

    # ---- sync bridge (runs the coroutine on the saver's loop) ------------------------
    def _run(self, op: Op) -> Any:
        return self._bridge(run_async(op, self._asend))

    def _iter(self, op: Op) -> Iterator[CheckpointTuple]:
        async def collect() -> list[CheckpointTuple]:
            return [t async for t in iter_async(op, self._asend)]

        return iter(self._bridge(collect()))

    def _bridge(self, coro: Any) -> Any:
        if self.loop is None:
            coro.close()
            raise RuntimeError("AsyncRedisSaver was created outside an event loop; use RedisSaver")
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is self.loop:
            coro.close()
            raise asyncio.InvalidStateError(
                "Sync calls to AsyncRedisSaver must come from another thread than its "
                "event loop; use the async API (ainvoke/astream) or RedisSaver"
            )
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()
