"""``RedisSaver``: the sync saver, the same ``ops`` driven by the blocking client.

Why not wrap ``AsyncRedisSaver``? LangGraph runs sync graphs' saver calls in worker
threads and users call ``graph.invoke`` from inside running loops (notebooks, servers);
bridging onto an event loop would then block or deadlock. A blocking client has no
loop affinity and a thread-safe pool, so every call works from any thread. The async
methods run each round trip in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple

from agent.checkpoint import migrate, ops
from agent.checkpoint.api import RedisSaverApi
from agent.checkpoint.cluster import SyncClusterSender, cluster_url, sync_cluster_client
from agent.checkpoint.requests import Op
from agent.checkpoint.transport import iter_sync, run_sync
from agent.redis_retry import sync_client


class RedisSaver(RedisSaverApi):
    """Sync checkpoint saver for ``graph.invoke``; same layout as ``AsyncRedisSaver``."""

    def __init__(self, client: Any, **kwargs: Any) -> None:
        """Wrap a blocking ``client`` as ``RedisSaverApi`` does."""
        super().__init__(client, **kwargs)
        self._cluster_send = SyncClusterSender(client) if self.cluster else None

    @classmethod
    @contextmanager
    def from_conn_string(cls, url: str, *, cluster: bool = False, **kwargs: Any) -> Iterator[RedisSaver]:
        """Open a client for ``url``, yield a saver, close the client on exit.

        ``redis+cluster://host:port`` (or ``cluster=True`` with a ``redis://`` URL of
        any node) opens a ``RedisCluster`` client instead of a plain one.
        """
        node_url = cluster_url(url) or (url if cluster else None)
        client: Any = sync_cluster_client(node_url) if node_url else sync_client(url, decode_responses=False)
        try:
            yield cls(client, **kwargs)
        finally:
            client.close()

    def setup(self) -> None:
        """Check the server version, load the Lua scripts, record the layout version."""
        run_sync(migrate.setup(self), self._send)

    def _send(self, batch: ops.Batch) -> list[Any]:
        if self._cluster_send is not None:
            return self._cluster_send(batch)
        cmds = [*batch.index, *batch.commands]  # plain Redis: the index rides along
        if len(cmds) == 1 and not batch.transaction:
            return [self.client.execute_command(*cmds[0])]
        with self.client.pipeline(transaction=batch.transaction) as pipe:
            for cmd in cmds:
                pipe.execute_command(*cmd)
            return pipe.execute()[len(batch.index) :]

    async def _asend(self, batch: ops.Batch) -> list[Any]:
        return await asyncio.to_thread(self._send, batch)

    def _run(self, op: Op) -> Any:
        return run_sync(op, self._send)

    def _iter(self, op: Op) -> Iterator[CheckpointTuple]:
        return iter_sync(op, self._send)
