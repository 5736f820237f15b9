"""Fact writes parked during a real Neo4j outage and replayed once it is back.

The session's private Neo4j (``tests/integration/private_neo4j.py``) goes down mid-run;
the shared Neo4j is never touched.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import neo4j
import pytest

from agent.clock import ManualClock
from agent.memory.backlog import WriteBacklog
from agent.memory.facts import FactStore
from agent.resources import Resources
from tests.integration.private_neo4j import CurrentPassword, PrivateNeo4j


@pytest.fixture
async def rig(
    private_neo4j: PrivateNeo4j, resources: Resources
) -> AsyncIterator[tuple[FactStore, WriteBacklog]]:
    driver = neo4j.AsyncGraphDatabase.driver(
        private_neo4j.uri,
        auth=CurrentPassword(private_neo4j),
        connection_timeout=2.0,
        connection_acquisition_timeout=5.0,
    )
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=0.2)
    facts = FactStore(
        driver, resources.embeddings, backlog=backlog, clock=ManualClock("2026-01-10T00:00:00Z")
    )
    await facts.setup()
    yield facts, backlog
    await backlog.wait_idle()
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)
    await driver.close()


async def test_parked_fact_is_replayed_once_with_its_supersession(
    rig: tuple[FactStore, WriteBacklog], private_neo4j: PrivateNeo4j, learner_id: str
) -> None:
    facts, backlog = rig
    clock = facts.clock
    assert isinstance(clock, ManualClock)
    da_nang = await facts.remember(learner_id, "I live in Da Nang.")
    assert not da_nang.degraded

    private_neo4j.down()
    clock.advance(hours=24)
    hanoi = await facts.remember(learner_id, "I moved to Hanoi.")
    again = await facts.remember(learner_id, "I moved to Hanoi.")
    assert hanoi.degraded and again.degraded and again.id == hanoi.id
    page = await facts.search(learner_id, "Where does the learner live?")
    assert page.degraded and [h.id for h in page.results] == [hanoi.id]
    assert await backlog.pending(learner_id) == 2

    private_neo4j.up()
    await asyncio.sleep(0.3)  # past retry_interval: the next call probes Neo4j
    assert await backlog.replay(learner_id=learner_id) == 2
    assert await backlog.pending(learner_id) == 0
    history = await facts.history(learner_id)
    assert [f.id for f in history] == [hanoi.id, da_nang.id]  # the duplicate created nothing
    assert history[0].superseded == [da_nang.id] and history[1].valid_to == hanoi.valid_from
    page = await facts.search(learner_id, "Where does the learner live?")
    assert not page.degraded and page.results[0].id == hanoi.id

    async with facts.driver.session() as session:
        await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)
