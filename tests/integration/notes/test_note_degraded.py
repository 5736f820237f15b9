"""Note writes in degraded mode: a private Neo4j goes down mid-run, notes are parked and replayed.

Like ``test_degraded_mode``, the shared Neo4j is never touched: this module starts its
own (a free port, via ``scripts/services.sh``) and stops it to simulate the outage.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import neo4j
import pytest
import redis.asyncio as aioredis

from agent.errors import StoreUnavailableError
from agent.graphdb.store import now_iso
from agent.memory.backlog import WriteBacklog
from agent.notes.artifacts import delete_stream
from agent.notes.pipeline import ingest_session
from agent.notes.store import OP_UPSERT, NoteStore
from agent.resources import Resources
from agent.settings import Settings
from tests.integration.private_neo4j import CurrentPassword, PrivateNeo4j

SESSION = [
    {"role": "user", "content": "I keep mixing up inner joins and left joins."},
    {
        "role": "assistant",
        "content": "An inner join returns only rows that match in both tables. A left join keeps "
        "every row of the left table, with NULLs where the right table has no match.",
    },
    {"role": "user", "content": "Oh I get it, so a left join keeps my customers without orders."},
    {"role": "assistant", "content": "Exactly. The inner join would drop those customers."},
]
COUNT = "MATCH (n:Note {learner_id: $l}) RETURN count(n) AS notes, collect(n.seq) AS seqs"


@dataclass
class Rig:
    server: PrivateNeo4j
    driver: neo4j.AsyncDriver
    backlog: WriteBacklog
    notes: NoteStore


@pytest.fixture
async def rig(private_neo4j: PrivateNeo4j, resources: Resources) -> AsyncIterator[Rig]:
    driver = neo4j.AsyncGraphDatabase.driver(
        private_neo4j.uri,
        auth=CurrentPassword(private_neo4j),
        connection_timeout=2.0,
        connection_acquisition_timeout=5.0,
    )
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=0.2)
    notes = NoteStore(driver, resources.embeddings, backlog=backlog)
    await notes.ensure_schema()
    yield Rig(private_neo4j, driver, backlog, notes)
    await backlog.wait_idle()
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)
    await driver.close()


def note(learner_id: str, i: int, dimension: int) -> dict[str, Any]:
    embedding = [0.0] * dimension
    embedding[0], embedding[i + 1] = 1.0, 0.5
    return {
        "id": f"{learner_id}-note-{i}",
        "learner_id": learner_id,
        "concept": f"concept {i}",
        "text": f"concept {i}: a note written around an outage",
        "keywords": [f"k{i}"],
        "tags": ["general"],
        "description": f"note {i}",
        "embedding": embedding,
        "created_at": now_iso(),
    }


async def graph_notes(driver: neo4j.AsyncDriver, learner_id: str) -> tuple[int, list[int]]:
    records, _, _ = await driver.execute_query(COUNT, l=learner_id)
    return records[0]["notes"], sorted(records[0]["seqs"])


async def erase(driver: neo4j.AsyncDriver, learner_id: str) -> None:
    await driver.execute_query("MATCH (n:Note {learner_id: $l}) DETACH DELETE n", l=learner_id)
    await driver.execute_query("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)


async def test_outage_parks_note_writes_and_replays_them_once(
    rig: Rig, learner_id: str, resources: Resources
) -> None:
    dim = resources.embeddings.dimension
    healthy = await rig.notes.upsert_notes(learner_id, [note(learner_id, i, dim) for i in range(2)])
    assert healthy is not None and [r["created"] for r in healthy] == [True, True]

    rig.server.down()  # Neo4j dies mid-run; the driver still holds pooled connections.
    outage = [note(learner_id, i, dim) for i in range(2, 5)]
    assert await rig.notes.upsert_notes(learner_id, outage) is None  # parked, not failed
    assert await rig.notes.upsert_note(learner_id, outage[0]) is None  # a duplicate, parked too
    with pytest.raises(StoreUnavailableError):
        await rig.notes.get_notes(learner_id, [outage[0]["id"]])
    assert await rig.backlog.pending(learner_id) == 2
    entries = await resources.redis.xrange(rig.backlog.stream_key(learner_id))
    assert {fields["op"] for _, fields in entries} == {OP_UPSERT}

    rig.server.up()
    await asyncio.sleep(0.3)  # past retry_interval: the next call probes Neo4j
    assert await rig.backlog.replay(learner_id=learner_id) == 2
    await rig.backlog.wait_idle()
    assert await rig.backlog.pending(learner_id) == 0
    assert await graph_notes(rig.driver, learner_id) == (5, [1, 2, 3, 4, 5])  # nothing lost or doubled
    stored = await rig.notes.get_notes(learner_id, [n["id"] for n in outage])
    assert [n["id"] for n in stored] == [n["id"] for n in outage]

    # Re-applying the very same entries creates nothing new (MERGE on note ids).
    for _, fields in entries:
        await resources.redis.xadd(rig.backlog.stream_key(learner_id), fields)
    await resources.redis.sadd(rig.backlog.learners_key, learner_id)
    assert await rig.backlog.replay(learner_id=learner_id) == 2
    assert await graph_notes(rig.driver, learner_id) == (5, [1, 2, 3, 4, 5])
    await erase(rig.driver, learner_id)


async def test_pipeline_parks_a_session_and_a_later_write_replays_it(
    rig: Rig, learner_id: str, resources: Resources, settings: Settings
) -> None:
    # A bundle of its own (driver on the private Neo4j, own Redis client: its own breaker).
    # Its settings name the private Neo4j, so its kernel prefix is that database's alone:
    # no other process's kernel worker drains these writes into the shared Neo4j.
    bundle = Resources(
        settings.with_overrides(neo4j_uri=rig.server.uri),
        chat_model=resources.chat_model,
        embeddings=resources.embeddings,
        neo4j_driver=rig.driver,
        redis_client=aioredis.from_url(settings.redis_url, decode_responses=True),
    )
    store = NoteStore.for_resources(bundle)
    assert store.backlog is not None
    try:
        rig.server.down()
        out = await ingest_session(bundle, learner_id, SESSION, "sql.joins", "s1")
        assert out["failures"] == [] and out["artifacts"] == []
        assert out["metrics"]["notes_parked"] == 2 and out["metrics"]["notes_created"] == 0
        assert await store.backlog.pending(learner_id) == 1

        rig.server.up()
        await asyncio.sleep(store.backlog.retry_interval + 0.1)
        # The same session again: the parked batch is replayed first, then this one finds it.
        again = await ingest_session(bundle, learner_id, SESSION, "sql.joins", "s1")
        await store.backlog.wait_idle()
        assert again["failures"] == [] and again["metrics"]["notes_parked"] == 0
        assert again["metrics"]["notes_existing"] == 2 and again["metrics"]["notes_created"] == 0
        assert len(again["artifacts"]) == 2
        assert await store.backlog.pending(learner_id) == 0
        assert await graph_notes(rig.driver, learner_id) == (2, [1, 2])
    finally:
        backlog = store.backlog
        await bundle.redis.delete(backlog.stream_key(learner_id), backlog.dead_key(learner_id))
        await bundle.redis.srem(backlog.learners_key, learner_id)
        await delete_stream(bundle.redis, learner_id)
        await erase(rig.driver, learner_id)
        await bundle.redis.aclose()
