"""``AsyncRedisSaver``: the async-first LangGraph checkpoint saver on plain Redis."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import redis.asyncio as aioredis
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
)
from langgraph.checkpoint.serde.base import SerializerProtocol
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster

from agent.checkpoint import erase, listing, migrate, ops
from agent.checkpoint.base import DEFAULT_PREFIX, RedisCheckpointBase, require_bytes_client
from agent.checkpoint.cluster import AsyncClusterSender, async_cluster_client, cluster_url, is_cluster_client
from agent.checkpoint.coalesce import Coalescer
from agent.checkpoint.erase import Adopt
from agent.checkpoint.owners import Principal
from agent.checkpoint.transport import iter_async, run_async
from agent.redis_retry import async_client


class AsyncRedisSaver(RedisCheckpointBase):
    """Checkpoints in Redis hashes, sorted sets and sets; see ``base`` for the layout.

    ``aget_tuple`` is one round trip (a Lua script), ``aput`` one MULTI/EXEC on the
    thread's keys, ``aput_writes`` one script, and ``alist`` fetches pages of
    checkpoints per script call. On plain Redis, batches asked for in the same loop
    iteration share one pipeline (``agent.checkpoint.coalesce``). ``client`` may be a
    plain ``redis.asyncio.Redis`` or a ``redis.asyncio.cluster.RedisCluster`` (see
    ``agent.checkpoint.cluster``).

    Sync methods (``get_tuple``, ``put`` ...) exist for LangGraph APIs that call them
    (e.g. ``graph.get_state``); they hop onto the loop the saver was created on and
    must be called from another thread. Prefer ``RedisSaver`` for sync code.
    """

    def __init__(
        self,
        client: aioredis.Redis | AsyncRedisCluster,
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

    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint named by ``config``, or the thread's latest; None if absent."""
        return await run_async(ops.get_tuple(self, config), self._send)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Checkpoints newest first, filtered on metadata equality, ``before`` and ``limit``."""
        op = listing.list_tuples(
            self, config, filter=filter, before=before, limit=limit, page_size=self.list_page_size
        )
        async for item in iter_async(op, self._send):
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint; only channels in ``new_versions`` get new blobs."""
        return await run_async(ops.put(self, config, checkpoint, metadata, new_versions), self._send)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes against the checkpoint in ``config``."""
        await run_async(ops.put_writes(self, config, writes, task_id, task_path), self._send)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write and blob of a thread (atomic)."""
        await run_async(ops.delete_threads(self, [thread_id], "delete"), self._send)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and writes) whose metadata ``run_id`` is listed."""
        await run_async(ops.delete_for_runs(self, run_ids), self._send)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread's full history (every namespace, write and blob)."""
        await run_async(ops.copy_thread(self, source_thread_id, target_thread_id), self._send)

    async def aprune(
        self, thread_ids: Sequence[str], *, strategy: str = "keep_latest", keep: int = 1
    ) -> None:
        """``keep_latest``: the newest ``keep`` checkpoints per namespace survive; ``delete``: all go.

        Not ``DeltaChannel``-aware: pruned ancestors are gone for delta replay.
        """
        await run_async(ops.delete_threads(self, thread_ids, strategy, keep=keep), self._send)

    async def aerase_owner(
        self, owner: str, *, adopt: Adopt | None = None, channels: Sequence[str] = ()
    ) -> list[str]:
        """Delete the threads ``owner`` owns and unowned ones ``adopt`` gives them; return their ids.

        ``adopt`` reads the root-namespace values of ``channels``; see ``agent.checkpoint.erase``.
        """
        return await run_async(erase.erase_owner(self, owner, adopt, channels), self._send)

    # ---- sync bridge (runs the coroutine on the saver's loop) ------------------------
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

    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Sync bridge to :meth:`aget_tuple`."""
        return self._bridge(self.aget_tuple(config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Any:
        """Sync bridge to :meth:`alist` (materialised)."""

        async def collect() -> list[CheckpointTuple]:
            return [t async for t in self.alist(config, filter=filter, before=before, limit=limit)]

        return iter(self._bridge(collect()))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Sync bridge to :meth:`aput`."""
        return self._bridge(self.aput(config, checkpoint, metadata, new_versions))

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Sync bridge to :meth:`aput_writes`."""
        self._bridge(self.aput_writes(config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        """Sync bridge to :meth:`adelete_thread`."""
        self._bridge(self.adelete_thread(thread_id))
