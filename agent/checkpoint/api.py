"""The saver API over ``ops``, written once for ``AsyncRedisSaver`` and ``RedisSaver``.

Every method builds its ``ops`` generator here; a saver only says how a batch reaches
Redis: ``_asend`` for the async methods, ``_run``/``_iter`` for the sync ones.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import ChannelVersions, Checkpoint, CheckpointMetadata, CheckpointTuple
from langgraph.checkpoint.serde.base import SerializerProtocol

from agent.checkpoint import erase, listing, ops
from agent.checkpoint.base import DEFAULT_PREFIX, RedisCheckpointBase, require_bytes_client
from agent.checkpoint.cluster import is_cluster_client
from agent.checkpoint.erase import Adopt
from agent.checkpoint.owners import Principal
from agent.checkpoint.requests import Batch, Op
from agent.checkpoint.transport import iter_async, run_async


class RedisSaverApi(RedisCheckpointBase):
    """LangGraph's checkpoint saver methods, sync and async, over the shared ``ops``."""

    def __init__(
        self,
        client: Any,
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

    async def _asend(self, batch: Batch) -> list[Any]:
        raise NotImplementedError

    def _run(self, op: Op) -> Any:
        raise NotImplementedError

    def _iter(self, op: Op) -> Iterator[CheckpointTuple]:
        raise NotImplementedError

    def _list_op(
        self,
        config: RunnableConfig | None,
        filter: dict[str, Any] | None,
        before: RunnableConfig | None,
        limit: int | None,
    ) -> Op:
        return listing.list_tuples(
            self, config, filter=filter, before=before, limit=limit, page_size=self.list_page_size
        )

    # ---- async ----------------------------------------------------------------------
    async def aget_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """The checkpoint named by ``config``, or the thread's latest; None if absent."""
        return await run_async(ops.get_tuple(self, config), self._asend)

    async def alist(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> AsyncIterator[CheckpointTuple]:
        """Checkpoints newest first, filtered on metadata equality, ``before`` and ``limit``."""
        async for item in iter_async(self._list_op(config, filter, before, limit), self._asend):
            yield item

    async def aput(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Store a checkpoint; only channels in ``new_versions`` get new blobs."""
        return await run_async(ops.put(self, config, checkpoint, metadata, new_versions), self._asend)

    async def aput_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Store a task's pending writes against the checkpoint in ``config``."""
        await run_async(ops.put_writes(self, config, writes, task_id, task_path), self._asend)

    async def adelete_thread(self, thread_id: str) -> None:
        """Delete every checkpoint, write and blob of a thread (atomic)."""
        await run_async(ops.delete_threads(self, [thread_id], "delete"), self._asend)

    async def adelete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints (and writes) whose metadata ``run_id`` is listed."""
        await run_async(ops.delete_for_runs(self, run_ids), self._asend)

    async def acopy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Copy a thread's full history (every namespace, write and blob)."""
        await run_async(ops.copy_thread(self, source_thread_id, target_thread_id), self._asend)

    async def aprune(
        self, thread_ids: Sequence[str], *, strategy: str = "keep_latest", keep: int = 1
    ) -> None:
        """``keep_latest``: the newest ``keep`` checkpoints per namespace survive; ``delete``: all go.

        Not ``DeltaChannel``-aware: pruned ancestors are gone for delta replay.
        """
        await run_async(ops.delete_threads(self, thread_ids, strategy, keep=keep), self._asend)

    async def aerase_owner(
        self, owner: str, *, adopt: Adopt | None = None, channels: Sequence[str] = ()
    ) -> list[str]:
        """Delete the threads ``owner`` owns and unowned ones ``adopt`` gives them; return their ids.

        ``adopt`` reads the root-namespace values of ``channels``; see ``agent.checkpoint.erase``.
        """
        return await run_async(erase.erase_owner(self, owner, adopt, channels), self._asend)

    # ---- sync -----------------------------------------------------------------------
    def get_tuple(self, config: RunnableConfig) -> CheckpointTuple | None:
        """Sync :meth:`aget_tuple`."""
        return self._run(ops.get_tuple(self, config))

    def list(
        self,
        config: RunnableConfig | None,
        *,
        filter: dict[str, Any] | None = None,
        before: RunnableConfig | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Sync :meth:`alist`."""
        return self._iter(self._list_op(config, filter, before, limit))

    def put(
        self,
        config: RunnableConfig,
        checkpoint: Checkpoint,
        metadata: CheckpointMetadata,
        new_versions: ChannelVersions,
    ) -> RunnableConfig:
        """Sync :meth:`aput`."""
        return self._run(ops.put(self, config, checkpoint, metadata, new_versions))

    def put_writes(
        self,
        config: RunnableConfig,
        writes: Sequence[tuple[str, Any]],
        task_id: str,
        task_path: str = "",
    ) -> None:
        """Sync :meth:`aput_writes`."""
        self._run(ops.put_writes(self, config, writes, task_id, task_path))

    def delete_thread(self, thread_id: str) -> None:
        """Sync :meth:`adelete_thread`."""
        self._run(ops.delete_threads(self, [thread_id], "delete"))

    def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Sync :meth:`adelete_for_runs`."""
        self._run(ops.delete_for_runs(self, run_ids))

    def copy_thread(self, source_thread_id: str, target_thread_id: str) -> None:
        """Sync :meth:`acopy_thread`."""
        self._run(ops.copy_thread(self, source_thread_id, target_thread_id))

    def prune(self, thread_ids: Sequence[str], *, strategy: str = "keep_latest", keep: int = 1) -> None:
        """Sync :meth:`aprune`."""
        self._run(ops.delete_threads(self, thread_ids, strategy, keep=keep))

    def erase_owner(
        self, owner: str, *, adopt: Adopt | None = None, channels: Sequence[str] = ()
    ) -> list[str]:
        """Sync :meth:`aerase_owner`."""
        return self._run(erase.erase_owner(self, owner, adopt, channels))
