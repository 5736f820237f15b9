"""Pools queue callers instead of failing; a pool that stays exhausted is an outage (issue 18).

Neo4j: a driver with a pool of one connection, held by an open transaction, makes every
store call wait ``connection_acquisition_timeout``; the store must then engage degraded
mode (park the write in Redis, serve searches from Redis) and replay once the pool frees.
Redis: 200 concurrent commands over a pool of 2 all succeed (back-pressure); a pool held
past its timeout is reported as ``StoreUnavailableError``.
"""

from __future__ import annotations

import asyncio
import uuid

import neo4j
import pytest

from agent.checkpoint import AsyncRedisSaver
from agent.errors import StoreUnavailableError
from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.redis_retry import POOL_TIMEOUT, async_client
from agent.resources import NEO4J_POOL_SIZE, REDIS_POOL_SIZE, Resources


def test_pools_are_sized_as_designed(resources: Resources) -> None:
    assert NEO4J_POOL_SIZE == 50 and REDIS_POOL_SIZE == 10
    pool = resources.redis.connection_pool
    assert pool.max_connections == 10 and pool.timeout == POOL_TIMEOUT
    assert type(pool).__name__ == "BlockingConnectionPool"


async def test_neo4j_pool_timeout_engages_degraded_mode_and_replays(resources: Resources) -> None:
    s = resources.settings
    driver = neo4j.AsyncGraphDatabase.driver(
        s.neo4j_uri,
        auth=(s.neo4j_user, s.neo4j_password),
        max_connection_pool_size=1,
        connection_acquisition_timeout=0.5,
    )
    learner = f"pool-{uuid.uuid4().hex[:10]}"
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=0.3)
    archival = ArchivalStore(driver, resources.embeddings, database=resources.database, backlog=backlog)
    try:
        await archival.setup()
        hold = driver.session(database=resources.database)
        tx = await hold.begin_transaction()  # the pool's only connection, now busy
        try:
            await tx.run("RETURN 1")
            record = await archival.insert(learner, "A primary key identifies each row of a table.")
            assert record.degraded, "the write should have been parked, not failed"
            assert backlog.neo4j_suspended(), "a pool timeout should engage degraded mode"
            page = await archival.search(learner, "primary key")
            assert page.degraded
            assert [h.text for h in page.results] == ["A primary key identifies each row of a table."]
            assert await backlog.pending(learner) == 1
        finally:
            await tx.close()
            await hold.close()
        await asyncio.sleep(0.35)  # the breaker's retry interval: Neo4j is probed again after it
        assert await backlog.replay(learner_id=learner) == 1
        page = await archival.search(learner, "primary key")
        assert not page.degraded
        assert [h.text for h in page.results] == ["A primary key identifies each row of a table."]
    finally:
        await backlog.wait_idle()
        async with driver.session(database=resources.database) as session:
            await session.run("MATCH (n {learner_id: $l}) DETACH DELETE n", l=learner)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner)
        await driver.close()
        keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
        if keys:
            await resources.redis.delete(*keys)


async def test_redis_pool_queues_callers_then_reports_a_held_pool(resources: Resources) -> None:
    url = resources.settings.redis_url
    key = f"kag-test-pool:{uuid.uuid4().hex}"
    client = async_client(url, decode_responses=True, max_connections=2, timeout=0.5)
    try:
        await client.set(key, "v", ex=60)
        values = await asyncio.gather(*(client.get(key) for _ in range(200)))
        assert values == ["v"] * 200  # back-pressure: nobody failed
        assert client.connection_pool.max_connections == 2

        bytes_client = async_client(url, decode_responses=False, max_connections=1, timeout=0.3)
        saver = AsyncRedisSaver(bytes_client, key_prefix="kag-test-pool")
        blocker = asyncio.create_task(bytes_client.blpop([f"{key}:never"], timeout=2))
        await asyncio.sleep(0.05)  # let the BLPOP take the only connection
        with pytest.raises(StoreUnavailableError, match="Redis is unreachable"):
            await saver.aget_tuple({"configurable": {"thread_id": "held"}})
        assert await blocker is None
        await bytes_client.aclose()
    finally:
        await client.delete(key)
        await client.aclose()
