"""Running the saver's batches on Redis Cluster, and opening cluster clients.

A ``Batch`` (``agent.checkpoint.requests``) is cluster-safe by construction: a
transaction's commands touch one thread's keys (one hash slot) and every script gets
its keys through ``KEYS``. What differs is the sending:

- ``index`` commands (prefix-wide sets, other slots) go first, as their own pipeline;
- a transaction runs as redis-py's single-slot cluster transaction (MULTI/EXEC on the
  slot's primary);
- other batches run as a cluster pipeline, which routes each command to its slot;
- keyless commands are sent alone: ``SCRIPT LOAD`` to every primary (redis-py's
  routing), ``INFO`` to one node.

Back-pressure: a cluster client's per-node pools fail instead of waiting when exhausted,
so each saver lets at most ``POOL_SIZE`` batches run at once. URLs: ``redis+cluster://``
(or ``rediss+cluster://``) names a cluster for ``from_conn_string``; any node will do.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Sequence
from typing import Any

from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster
from redis.cluster import RedisCluster

from agent.checkpoint.requests import Batch
from agent.redis_retry import POOL_SIZE, RETRY_ON, async_retry, sync_retry

CLUSTER_SCHEMES = {"redis+cluster": "redis", "rediss+cluster": "rediss"}
_KEYLESS = {"INFO", "SCRIPT"}


def is_cluster_client(client: Any) -> bool:
    """True for ``redis.cluster.RedisCluster`` and ``redis.asyncio.cluster.RedisCluster``."""
    return isinstance(client, (RedisCluster, AsyncRedisCluster))


def cluster_url(url: str) -> str | None:
    """The plain ``redis://`` URL of a ``redis+cluster://`` URL, or None for other URLs."""
    scheme, sep, rest = url.partition("://")
    plain = CLUSTER_SCHEMES.get(scheme.lower())
    return f"{plain}{sep}{rest}" if plain and sep else None


def _client_options() -> dict[str, Any]:
    return {"decode_responses": False, "retry_on_error": list(RETRY_ON), "max_connections": POOL_SIZE}


def async_cluster_client(url: str) -> AsyncRedisCluster:
    """An async cluster client (bytes replies) with KAG's retry policy."""
    return AsyncRedisCluster.from_url(url, retry=async_retry(), **_client_options())


def sync_cluster_client(url: str) -> RedisCluster:
    """A blocking cluster client (bytes replies) with KAG's retry policy."""
    return RedisCluster.from_url(url, retry=sync_retry(), **_client_options())


def _routed(client: Any, cmd: tuple[Any, ...]) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """A keyless command in the form redis-py's cluster routing knows."""
    if cmd[0] == "INFO":
        return cmd, {"target_nodes": client.RANDOM}
    if cmd[0] == "SCRIPT":  # "SCRIPT LOAD" is routed to every primary
        return (f"SCRIPT {cmd[1]}", *cmd[2:]), {}
    return cmd, {}


async def _apipe(client: AsyncRedisCluster, cmds: Sequence[tuple[Any, ...]], transaction: bool) -> list[Any]:
    if not transaction and (len(cmds) == 1 or any(c[0] in _KEYLESS for c in cmds)):
        return [await client.execute_command(*args, **kw) for args, kw in (_routed(client, c) for c in cmds)]
    async with client.pipeline(transaction=transaction) as pipe:
        for cmd in cmds:
            pipe.execute_command(*cmd)
        return await pipe.execute()


async def send_async(client: AsyncRedisCluster, batch: Batch) -> list[Any]:
    """Run ``batch`` on an async cluster client; replies of ``batch.commands`` only."""
    if batch.index:
        await _apipe(client, batch.index, False)
    return await _apipe(client, batch.commands, batch.transaction)


def _pipe(client: RedisCluster, cmds: Sequence[tuple[Any, ...]], transaction: bool) -> list[Any]:
    if not transaction and (len(cmds) == 1 or any(c[0] in _KEYLESS for c in cmds)):
        return [client.execute_command(*args, **kw) for args, kw in (_routed(client, c) for c in cmds)]
    with client.pipeline(transaction=transaction) as pipe:
        for cmd in cmds:
            pipe.execute_command(*cmd)
        return pipe.execute()


def send_sync(client: RedisCluster, batch: Batch) -> list[Any]:
    """Run ``batch`` on a blocking cluster client; replies of ``batch.commands`` only."""
    if batch.index:
        _pipe(client, batch.index, False)
    return _pipe(client, batch.commands, batch.transaction)


class AsyncClusterSender:
    """``send_async`` behind a gate of ``limit`` concurrent batches."""

    def __init__(self, client: AsyncRedisCluster, limit: int = POOL_SIZE) -> None:
        """Gate ``client``'s batches; ``limit`` should not exceed its per-node pool."""
        self.client = client
        self._gate = asyncio.Semaphore(limit)

    async def __call__(self, batch: Batch) -> list[Any]:
        """Run ``batch`` once a slot is free."""
        async with self._gate:
            return await send_async(self.client, batch)


class SyncClusterSender:
    """``send_sync`` behind a gate of ``limit`` concurrent batches (threads wait)."""

    def __init__(self, client: RedisCluster, limit: int = POOL_SIZE) -> None:
        """Gate ``client``'s batches; ``limit`` should not exceed its per-node pool."""
        self.client = client
        self._gate = threading.BoundedSemaphore(limit)

    def __call__(self, batch: Batch) -> list[Any]:
        """Run ``batch`` once a slot is free."""
        with self._gate:
            return send_sync(self.client, batch)
