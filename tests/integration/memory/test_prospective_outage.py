"""Procedures and reminders through a real Neo4j outage (a private Neo4j that goes down and back).

The shared Neo4j is never touched: the session's private server (``tests/integration/private_neo4j.py``).
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator

import neo4j
import pytest

from agent.clock import ManualClock
from agent.memory.backlog import WriteBacklog
from agent.memory.procedures import ProcedureStore
from agent.memory.reminders import ReminderStore
from agent.resources import Resources
from tests.integration.private_neo4j import CurrentPassword, PrivateNeo4j


@pytest.fixture
async def stores(
    private_neo4j: PrivateNeo4j, resources: Resources
) -> AsyncIterator[tuple[ProcedureStore, ReminderStore, WriteBacklog, neo4j.AsyncDriver]]:
    driver = neo4j.AsyncGraphDatabase.driver(
        private_neo4j.uri,
        auth=CurrentPassword(private_neo4j),
        connection_timeout=2.0,
        connection_acquisition_timeout=5.0,
    )
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=0.2)
    clock = ManualClock("2026-02-03T18:00:00+07:00")
    procedures = ProcedureStore(driver, resources.embeddings, backlog=backlog, clock=clock)
    reminders = ReminderStore(driver, resources.embeddings, backlog=backlog, clock=clock)
    await procedures.setup()
    yield procedures, reminders, backlog, driver
    await backlog.wait_idle()
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)
    await driver.close()


async def test_writes_park_during_a_real_outage_and_replay_once(
    private_neo4j: PrivateNeo4j,
    stores: tuple[ProcedureStore, ReminderStore, WriteBacklog, neo4j.AsyncDriver],
    learner_id: str,
) -> None:
    procedures, reminders, backlog, driver = stores
    early = await reminders.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    assert not early.degraded

    private_neo4j.down()
    saved = await procedures.save(learner_id, "write a LEFT JOIN", ["keep the left table", "join", "filter"])
    assert saved.degraded
    parked = await reminders.set(learner_id, "check NULLs", concept="outer joins")
    assert parked.degraded
    closed = await reminders.resolve(learner_id, early.id)
    assert closed.degraded
    assert await reminders.fire(learner_id, message="HAVING now") == []  # no exactly-once without Neo4j
    page = await procedures.recall(learner_id, "write a LEFT JOIN")
    assert page.degraded and page.results[0].id == saved.id
    assert await backlog.pending(learner_id) == 3

    private_neo4j.up()
    await asyncio.sleep(0.3)  # past retry_interval: the next call probes Neo4j
    assert await backlog.replay(procedures, reminders, learner_id=learner_id) == 3
    await backlog.wait_idle()
    assert await backlog.pending(learner_id) == 0
    [procedure] = await procedures.list(learner_id)
    assert procedure.steps == ["keep the left table", "join", "filter"]
    statuses = {r.description: r.status for r in await reminders.list(learner_id)}
    assert statuses == {"review GROUP BY": "resolved", "check NULLs": "pending"}
    [fired] = await reminders.fire(learner_id, message="now outer joins", concept=None)
    assert fired.id == parked.id

    async with driver.session() as session:
        for label in ("Memory", "Reminder"):
            await session.run(f"MATCH (n:{label} {{learner_id: $l}}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)
