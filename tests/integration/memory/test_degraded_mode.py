"""Degraded mode with a private Neo4j that really goes down mid-run and comes back.

The shared Neo4j is never touched: this module uses the session's private one (a free port).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import neo4j
import pytest

from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources
from tests.integration.private_neo4j import CurrentPassword, PrivateNeo4j


@dataclass
class Rig:
    server: PrivateNeo4j
    driver: neo4j.AsyncDriver
    backlog: WriteBacklog
    archival: ArchivalStore
    recall: RecallStore


@pytest.fixture
async def rig(private_neo4j: PrivateNeo4j, resources: Resources) -> AsyncIterator[Rig]:
    driver = neo4j.AsyncGraphDatabase.driver(
        private_neo4j.uri,
        auth=CurrentPassword(private_neo4j),
        connection_timeout=2.0,
        connection_acquisition_timeout=5.0,
    )
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=0.2)
    archival = ArchivalStore(driver, resources.embeddings, backlog=backlog)
    recall = RecallStore(driver, resources.embeddings, backlog=backlog)
    await archival.setup()
    yield Rig(private_neo4j, driver, backlog, archival, recall)
    await backlog.wait_idle()
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)
    await driver.close()


async def graph_counts(driver: neo4j.AsyncDriver, learner_id: str) -> dict[str, int]:
    async with driver.session() as session:
        result = await session.run(
            "CALL () { MATCH (m:Memory {learner_id: $l}) WHERE NOT m:SessionSummary "
            "RETURN count(m) AS memories } "
            "CALL () { MATCH (s:SessionSummary {learner_id: $l}) RETURN count(s) AS summaries } "
            "CALL () { MATCH (m:Message {learner_id: $l}) RETURN count(m) AS messages } "
            "CALL () { MATCH (:Message {learner_id: $l})-[r:NEXT]->() RETURN count(r) AS nexts } "
            "CALL () { MATCH (s:SessionSummary {learner_id: $l})-[r:SUMMARIZES]->() "
            "RETURN count(r) AS summarizes } "
            "CALL () { MATCH (m:Message {learner_id: $l}) "
            "RETURN count(DISTINCT m.seq) AS distinct_seqs } "
            "RETURN memories, summaries, messages, nexts, summarizes, distinct_seqs",
            l=learner_id,
        )
        return dict(await result.single())


def batch(learner_id: str, start: int, n: int) -> list[RecallMessage]:
    return [
        RecallMessage(id=f"{learner_id}-m{i}", role="user", content=f"message {i} about topic {i}")
        for i in range(start, start + n)
    ]


async def test_outage_backlogs_writes_reads_redis_and_replays_exactly_once(
    rig: Rig, learner_id: str, resources: Resources, caplog: pytest.LogCaptureFixture
) -> None:
    # Normal operation.
    for i in range(3):
        assert not (await rig.archival.insert(learner_id, f"healthy memory {i}")).degraded
    assert (await rig.recall.log_messages(learner_id, "s1", batch(learner_id, 0, 10))).count == 10

    rig.server.down()  # Neo4j dies mid-run; the driver still holds pooled connections.
    caplog.set_level(logging.WARNING)
    degraded = [
        await rig.archival.insert(learner_id, f"outage memory {i} about zebras", session_id="s1")
        for i in range(4)
    ]
    assert all(r.degraded and r.seq is None for r in degraded)
    dup = await rig.archival.insert(learner_id, "outage memory 0 about zebras", session_id="s1")
    assert dup.degraded and dup.id == degraded[0].id
    logged = await rig.recall.log_messages(learner_id, "s1", batch(learner_id, 10, 10))
    assert logged.count == 10 and logged.degraded
    relogged = await rig.recall.log_messages(learner_id, "s1", batch(learner_id, 15, 5))
    assert relogged.degraded  # parked again; replay must not duplicate them
    summary = await rig.archival.write_summary(
        learner_id,
        "Summary of the zebra discussion",
        message_ids=[f"{learner_id}-m{i}" for i in range(10, 14)],
        previous_summary_id=None,
        session_id="s1",
    )
    assert summary.degraded
    assert any(r.levelno == logging.ERROR and "Neo4j disconnected" in r.getMessage() for r in caplog.records)

    # Reads come from Redis.
    page = await rig.archival.search(learner_id, "zebras outage memory 2")
    assert page.degraded
    assert page.results[0].id == degraded[2].id
    assert any(r.levelno == logging.WARNING and "degraded" in r.getMessage() for r in caplog.records)
    page = await rig.recall.search(learner_id, "message 12 topic 12")
    assert page.degraded and page.results[0].id == f"{learner_id}-m12"
    assert page.results[0].metadata["session_id"] == "s1"
    parked = await rig.backlog.pending(learner_id)
    assert parked == 4 + 1 + 2 + 1
    entries = await resources.redis.xrange(rig.backlog.stream_key(learner_id))

    rig.server.up()
    await asyncio.sleep(0.3)  # past retry_interval: the next call probes Neo4j
    assert await rig.backlog.replay(learner_id=learner_id) == parked
    await rig.backlog.wait_idle()
    assert await rig.backlog.pending(learner_id) == 0
    counts = await graph_counts(rig.driver, learner_id)
    assert counts == {
        "memories": 3 + 4,
        "summaries": 1,
        "messages": 20,
        "nexts": 19,  # one chain through the outage
        "summarizes": 4,
        "distinct_seqs": 20,
    }

    # Replaying again is a no-op; so is re-applying the very same entries.
    assert await rig.backlog.replay(learner_id=learner_id) == 0
    for _, fields in entries:
        await resources.redis.xadd(rig.backlog.stream_key(learner_id), fields)
    await resources.redis.sadd(rig.backlog.learners_key, learner_id)
    assert await rig.backlog.replay(learner_id=learner_id) == parked
    assert await graph_counts(rig.driver, learner_id) == counts

    page = await rig.archival.search(learner_id, "zebras outage memory 2")
    assert not page.degraded and page.results[0].id == degraded[2].id
    page = await rig.recall.search(learner_id, "message 12 topic 12")
    assert not page.degraded and page.results[0].id == f"{learner_id}-m12"

    async with rig.driver.session() as session:
        for label in ("Memory", "Message"):
            await session.run(f"MATCH (n:{label} {{learner_id: $l}}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)


async def test_new_writes_never_overtake_parked_ones(rig: Rig, learner_id: str) -> None:
    await rig.recall.log_messages(learner_id, "s", batch(learner_id, 0, 2))
    rig.server.down()
    assert (await rig.recall.log_messages(learner_id, "s", batch(learner_id, 2, 2))).degraded
    rig.server.up()
    await asyncio.sleep(0.3)
    # No explicit replay: the next write replays this learner's backlog first.
    logged = await rig.recall.log_messages(learner_id, "s", batch(learner_id, 4, 1))
    assert logged.count == 1 and not logged.degraded
    got = await rig.recall.get(learner_id, [f"{learner_id}-m{i}" for i in range(5)])
    assert [m.seq for m in got] == [1, 2, 3, 4, 5]
    assert await rig.backlog.pending(learner_id) == 0
    async with rig.driver.session() as session:
        await session.run("MATCH (n:Message {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)
