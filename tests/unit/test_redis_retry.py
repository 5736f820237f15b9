"""The Redis retry policy and pools every KAG client is built with (no server needed)."""

from __future__ import annotations

import redis
import redis.asyncio as aioredis
from redis.exceptions import BusyLoadingError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.redis_retry import POOL_TIMEOUT, RETRIES, async_client, retry_budget, sync_client
from agent.resources import Resources
from agent.settings import Settings

URL = "redis://127.0.0.1:1/0"  # never connected to: building a client opens no socket


def _policy(pool: aioredis.ConnectionPool | redis.ConnectionPool) -> tuple[int, set[type]]:
    conn = pool.make_connection() if hasattr(pool, "make_connection") else pool.connection_class()
    return conn.retry.get_retries(), set(conn.retry._supported_errors)


def test_budget_is_bounded_and_long_enough_for_a_short_aof_replay() -> None:
    low, high = retry_budget()
    assert 5.0 <= low < high <= 12.0


def test_async_and_sync_clients_block_and_retry_loading_and_stale_sockets() -> None:
    for client in (async_client(URL, decode_responses=True), sync_client(URL, decode_responses=False)):
        pool = client.connection_pool
        assert type(pool).__name__ == "BlockingConnectionPool"
        assert pool.max_connections == 10 and pool.timeout == POOL_TIMEOUT
        retries, errors = _policy(pool)
        assert retries == RETRIES
        assert {BusyLoadingError, RedisConnectionError, RedisTimeoutError} <= errors


def test_resources_and_savers_use_the_policy() -> None:
    bundle = Resources(Settings.from_env().with_overrides(redis_url=URL))
    retries, errors = _policy(bundle.redis.connection_pool)
    assert retries == RETRIES and BusyLoadingError in errors
    assert bundle.redis.connection_pool.connection_kwargs["decode_responses"] is True


async def test_saver_factories_build_retrying_bytes_clients() -> None:
    async with AsyncRedisSaver.from_conn_string(URL) as saver:
        assert _policy(saver.client.connection_pool)[0] == RETRIES
        assert saver.client.connection_pool.connection_kwargs["decode_responses"] is False
    with RedisSaver.from_conn_string(URL) as sync_saver:
        assert _policy(sync_saver.client.connection_pool)[0] == RETRIES
