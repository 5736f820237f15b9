"""``RedisSaver``: the sync saver, the same ``ops`` driven by the blocking client.

Why not wrap ``AsyncRedisSaver``? LangGraph runs sync graphs' saver calls in worker
threads and users call ``graph.invoke`` from inside running loops (notebooks, servers);
bridging onto an event loop would then block or deadlock. A blocking client has no
loop affinity and a thread-safe pool, so every call works from any thread. The async
methods run each round trip in a worker thread (``asyncio.to_thread``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import redis
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from redis.cluster import RedisCluster

from agent.checkpoint import erase, listing, migrate, ops
from agent.checkpoint.base import DEFAULT_PREFIX, RedisCheckpointBase, require_bytes_client
from agent.checkpoint.cluster import SyncClusterSender, cluster_url, is_cluster_client, sync_cluster_client
from agent.checkpoint.erase import Adopt
from agent.checkpoint.owners import Principal
from agent.checkpoint.transport import iter_async, iter_sync, run_async, run_sync
from agent.redis_retry import sync_client


class RedisSaver(RedisCheckpointBase):
    """Sync checkpoint saver for ``graph.invoke``; same layout as ``AsyncRedisSaver``."""

    def __init__(
        self,
        client: redis.Redis | RedisCluster,
        *,
        key_prefix: str = DEFAULT_PREFIX,
        ttl: int | None = None,
        refresh_on_read: bool = False,
        serde: SerializerProtocol | None = None,
        list_page_size: int = 250,
        principal: Principal | None = None,
        keep: int | None = None,
    ) -> None:
        """Wrap ``client`` (``decode_responses=False``; Redis or RedisCluster); ``ttl`` in s.

        ``keep``: checkpoints kept per namespace (None: all); see ``agent.checkpoint.base``.

        ``principal`` says who is asking for a config (default: its
        ``langgraph_auth_user_id``); see ``agent.checkpoint.owners``.
        """
        super().__init__(serde=serde)
        self._init_base(key_prefix, ttl, refresh_on_read, list_page_size, principal, keep)
        require_bytes_client(client)
        self.client = client
        self.cluster = is_cluster_client(client)
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

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint named by ``config``, or the thread's latest; None if absent."""
        return run_sync(ops.get_tuple(self, config), self._send)

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first, filtered on metadata equality, ``before`` and ``limit``."""
        op = listing.list_tuples(
            self, config, filter=filter, before=before, limit=limit, page_size=self.list_page_size
        )
        return iter_sync(op, self._send)

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint; only channels in ``new_versions`` get new blobs."""
        return run_sync(ops.put(self, config, checkpoint, metadata, new_versions), self._send)

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes against the checkpoint in ``config``."""
        run_sync(ops.put_writes(self, config, writes, task_id, task_path), self._send)

    def delete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write and blob of a thread (atomic)."""
        run_sync(ops.delete_threads(self, [thread_id], "delete"), self._send)

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and writes) whose metadata ``run_id`` is listed."""
        run_sync(ops.delete_for_runs(self, run_ids), self._send)

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread's full history (every namespace, write and blob)."""
        run_sync(ops.copy_thread(self, source_thread_id, target_thread_id), self._send)

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest", keep: int = 1) -> None:
        """``keep_latest``: the newest ``keep`` checkpoints per namespace survive; ``delete``: all go."""
        run_sync(ops.delete_threads(self, thread_ids, strategy, keep=keep), self._send)

    def erase_owner(
        self, owner: str, *, adopt: Adopt | None = None, channels: Sequence[str] = ()
    ) -> list[str]:
        """Delete every thread ``owner`` owns (and unowned ones ``adopt`` gives them); see ``erase``."""
        return run_sync(erase.erase_owner(self, owner, adopt, channels), self._send)

    # ---- async API over the same ops; each round trip runs in a worker thread -------
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Async :meth:`get_tuple`."""
        return await run_async(ops.get_tuple(self, config), self._asend)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Async :meth:`list`."""
        op = listing.list_tuples(
            self, config, filter=filter, before=before, limit=limit, page_size=self.list_page_size
        )
        async for item in iter_async(op, self._asend):
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Async :meth:`put`."""
        op = ops.put(self, config, checkpoint, metadata, new_versions)
        return await run_async(op, self._asend)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Async :meth:`put_writes`."""
        await run_async(ops.put_writes(self, config, writes, task_id, task_path), self._asend)

    async def adelete_thread(self, thread_id: str) -> None:
        """Async :meth:`delete_thread`."""
        await run_async(ops.delete_threads(self, [thread_id], "delete"), self._asend)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Async :meth:`delete_for_runs`."""
        await run_async(ops.delete_for_runs(self, run_ids), self._asend)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Async :meth:`copy_thread`."""
        await run_async(ops.copy_thread(self, source_thread_id, target_thread_id), self._asend)

    async def aprune(
        self, thread_ids: Sequence[str], *, strategy: str = "keep_latest", keep: int = 1
    ) -> None:
        """Async :meth:`prune`."""
        await run_async(ops.delete_threads(self, thread_ids, strategy, keep=keep), self._asend)

    async def aerase_owner(
        self, owner: str, *, adopt: Adopt | None = None, channels: Sequence[str] = ()
    ) -> list[str]:
        """Async :meth:`erase_owner`."""
        return await run_async(erase.erase_owner(self, owner, adopt, channels), self._asend)
