"""How every Redis client KAG builds rides out a restart, and how its pool is sized.

A restarted Redis replays its AOF and answers ``LOADING`` (``BusyLoadingError``) until it
is done; connections pooled before the restart fail on first use ("Error … while writing
to socket", ``ConnectionError``). Both pass in seconds, so a command that meets one is
retried on a fresh connection up to ``RETRIES`` times with equal-jitter exponential
backoff (``BACKOFF_BASE`` doubling, capped at ``BACKOFF_CAP``): about 6 to 11.5 s in all.
Only then does the error reach the caller, which reports ``StoreUnavailableError``.

Retrying is safe for what KAG writes: checkpoints, writes, owners and core memory are
keyed ``HSET``/``SET``/Lua scripts that give the same state when applied twice, and
backlog replays ``MERGE`` on ids. A command is resent only if its connection broke, so
a duplicate needs the reply, not the request, to be lost.

Pools block instead of failing: a caller waits up to ``POOL_TIMEOUT`` s for one of the
``POOL_SIZE`` connections (back-pressure), then gets ``ConnectionError`` "No connection
available", reported as ``StoreUnavailableError`` like an outage. The wait is long on
purpose: a Redis command holds its connection for one round trip, so a pool stays busy only
while the event loop is saturated (hundreds of concurrent runs on two cores); the runs then
queue for connections instead of failing. redis-py's blocking pool is not FIFO-fair (a
newcomer can take a freed connection before a woken waiter), so one unlucky waiter can wait
far longer than the average turn: hence minutes, not seconds. A Redis that is down fails fast and separately,
on connect, after the bounded retry above.
"""

from __future__ import annotations

from typing import Any

import redis
import redis.asyncio as aioredis
from redis.asyncio.retry import Retry as AsyncRetry
from redis.backoff import EqualJitterBackoff
from redis.exceptions import BusyLoadingError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.retry import Retry

RETRY_ON: tuple[type[RedisError], ...] = (BusyLoadingError, RedisConnectionError, RedisTimeoutError)
"""Transient: the server is loading, restarting, or the pooled socket is stale."""
RETRIES = 14
BACKOFF_BASE = 0.05
BACKOFF_CAP = 1.0
POOL_SIZE = 10  # the design's Redis pool, per client
POOL_TIMEOUT = 300.0  # seconds a caller waits for a pooled connection (back-pressure, not failure)
CONNECT_TIMEOUT = 2.0  # seconds per connection attempt (loopback or LAN)


def retry_budget() -> tuple[float, float]:
    """The least and most time (s) all retries sleep before the error surfaces."""
    temps = [min(BACKOFF_CAP, BACKOFF_BASE * 2**n) / 2 for n in range(1, RETRIES + 1)]
    return sum(temps), 2 * sum(temps)


def async_retry() -> AsyncRetry:
    """The retry policy for ``redis.asyncio`` clients."""
    return AsyncRetry(EqualJitterBackoff(cap=BACKOFF_CAP, base=BACKOFF_BASE), RETRIES, RETRY_ON)


def sync_retry() -> Retry:
    """The retry policy for blocking ``redis`` clients."""
    return Retry(EqualJitterBackoff(cap=BACKOFF_CAP, base=BACKOFF_BASE), RETRIES, RETRY_ON)


def _pool_kwargs(decode_responses: bool, max_connections: int, timeout: float) -> dict[str, Any]:
    return {
        "decode_responses": decode_responses,
        "max_connections": max_connections,
        "timeout": timeout,
        "socket_connect_timeout": CONNECT_TIMEOUT,
        "retry_on_error": list(RETRY_ON),
    }


def async_client(
    url: str,
    *,
    decode_responses: bool,
    max_connections: int = POOL_SIZE,
    timeout: float = POOL_TIMEOUT,
) -> aioredis.Redis:
    """An async client on a blocking pool of ``max_connections`` that retries transient errors."""
    pool = aioredis.BlockingConnectionPool.from_url(
        url, retry=async_retry(), **_pool_kwargs(decode_responses, max_connections, timeout)
    )
    return aioredis.Redis.from_pool(pool)


def sync_client(
    url: str,
    *,
    decode_responses: bool,
    max_connections: int = POOL_SIZE,
    timeout: float = POOL_TIMEOUT,
) -> redis.Redis:
    """A blocking client on a blocking pool of ``max_connections`` that retries transient errors."""
    pool = redis.BlockingConnectionPool.from_url(
        url, retry=sync_retry(), **_pool_kwargs(decode_responses, max_connections, timeout)
    )
    return redis.Redis.from_pool(pool)
