"""Sensory memory on the real Redis and its promotion into Neo4j (ATTENDED_TO)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import neo4j
import pytest
import redis.asyncio as aioredis

from agent.clock import ManualClock
from agent.errors import InvalidInputError, StoreUnavailableError
from agent.memory.backlog import WriteBacklog
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.recall import RecallMessage, RecallStore
from agent.memory.sensory import SensoryBuffer, trace_of
from agent.resources import Resources

CLOCK_START = "2026-03-02T09:00:00+00:00"


@pytest.fixture
async def buffer(resources: Resources, learner_id: str) -> AsyncIterator[SensoryBuffer]:
    """A buffer under the real key prefix (so erasure finds it); cleared afterwards."""
    sensory = SensoryBuffer(resources.redis, clock=ManualClock(CLOCK_START))
    yield sensory
    await sensory.clear(learner_id)
    await sensory.clear(f"{learner_id}-other")


@pytest.fixture
async def recall(resources: Resources, learner_id: str) -> AsyncIterator[RecallStore]:
    """A recall store on a private backlog prefix; the learner's nodes are deleted afterwards."""
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", auto_replay=False)
    store = RecallStore(resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog)
    await store.setup()
    yield store
    await erase_learner(resources, learner_id)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


async def test_capture_sets_the_ttl_in_one_hash_slot_and_peek_lists_items(
    buffer: SensoryBuffer, resources: Resources, learner_id: str
) -> None:
    request = await buffer.capture(learner_id, "request", "What is a LEFT JOIN?")
    tool = await buffer.capture(learner_id, "tool_output", '{"results": []}', meta={"tool": "search"})
    for key in (buffer.item_key(learner_id, request), buffer.index_key(learner_id)):
        ttl = await resources.redis.ttl(key)
        assert 290 <= ttl <= 300, (key, ttl)
        assert f"{{{learner_id}}}" in key  # the hash tag keeps the learner in one slot
    items = await buffer.peek(learner_id)
    assert [i["id"] for i in items] == [request, tool]
    assert items[1] == {
        "id": tool,
        "kind": "tool_output",
        "content": '{"results": []}',
        "meta": {"tool": "search"},
        "captured_at": CLOCK_START,
    }
    # peek takes nothing; an item that expired on its own drops out of the index.
    await resources.redis.delete(buffer.item_key(learner_id, request))
    assert [i["id"] for i in await buffer.peek(learner_id)] == [tool]
    assert await resources.redis.zrange(buffer.index_key(learner_id), 0, -1) == [tool]


async def test_attend_takes_items_once_and_learners_are_isolated(
    buffer: SensoryBuffer, learner_id: str
) -> None:
    other = f"{learner_id}-other"
    mine = await buffer.capture(learner_id, "paste", "SELECT * FROM a LEFT JOIN b ON a.id = b.id;")
    theirs = await buffer.capture(other, "request", "hello")
    assert await buffer.attend(learner_id, [theirs]) == []  # another learner's id finds nothing
    assert [i["id"] for i in await buffer.peek(other)] == [theirs]
    taken = await buffer.attend(learner_id, [mine, mine])
    assert [i["content"] for i in taken] == ["SELECT * FROM a LEFT JOIN b ON a.id = b.id;"]
    assert await buffer.attend(learner_id, [mine]) == []  # GETDEL: returned to one caller only
    assert await buffer.peek(learner_id) == []


async def test_the_buffer_is_capped_and_drops_the_oldest(resources: Resources, learner_id: str) -> None:
    small = SensoryBuffer(resources.redis, max_items=3)
    try:
        ids = [await small.capture(learner_id, "context", f"payload {n}") for n in range(5)]
        assert [i["id"] for i in await small.peek(learner_id)] == ids[2:]
        assert await resources.redis.exists(small.item_key(learner_id, ids[0])) == 0
    finally:
        await small.clear(learner_id)


async def test_bad_input_is_refused(buffer: SensoryBuffer, learner_id: str) -> None:
    with pytest.raises(InvalidInputError, match="kind"):
        await buffer.capture(learner_id, "smell", "x")
    with pytest.raises(InvalidInputError, match="Unicode"):
        await buffer.capture(learner_id, "request", "bad \ud800 text")
    with pytest.raises(InvalidInputError, match="limit"):
        await buffer.capture(learner_id, "paste", "x" * (64 * 1024 + 1))
    with pytest.raises(InvalidInputError, match="non-empty"):
        await buffer.capture(learner_id, "request", "   ")
    with pytest.raises(InvalidInputError, match="JSON"):
        await buffer.capture(learner_id, "request", "hi", meta={"x": object()})
    with pytest.raises(InvalidInputError, match="learner_id"):
        await buffer.capture("bad id!", "request", "hi")
    with pytest.raises(InvalidInputError, match="32 hex"):
        await buffer.attend(learner_id, ["*"])
    with pytest.raises(InvalidInputError, match="list"):
        await buffer.attend(learner_id, "abc")
    assert await buffer.peek(learner_id) == []


async def test_redis_down_is_a_store_unavailable_error(learner_id: str) -> None:
    closed = aioredis.Redis.from_url("redis://127.0.0.1:1/0", decode_responses=True, socket_connect_timeout=1)
    down = SensoryBuffer(closed)
    try:
        for call in (
            down.capture(learner_id, "request", "hi"),
            down.attend(learner_id, [uuid.uuid4().hex]),
            down.peek(learner_id),
        ):
            with pytest.raises(StoreUnavailableError, match="Redis"):
                await call
    finally:
        await closed.aclose()


async def test_attended_items_are_promoted_with_attended_to_and_the_rest_is_not(
    buffer: SensoryBuffer, recall: RecallStore, resources: Resources, learner_id: str
) -> None:
    request = await buffer.capture(learner_id, "request", "My dog Rex hates LEFT JOINs.")
    context = await buffer.capture(learner_id, "context", '{"course": "SQL"}')
    tool = await buffer.capture(learner_id, "tool_output", "found 2 results")
    ignored = await buffer.capture(learner_id, "paste", "a long paste nobody used")
    [req_item] = await buffer.attend(learner_id, [request])
    attended = await buffer.attend(learner_id, [context, tool])
    logged = await recall.log_messages(
        learner_id,
        "s1",
        [
            RecallMessage(id=f"{learner_id}-m1", role="user", content=req_item["content"], attended=req_item),
            RecallMessage(
                id=f"{learner_id}-m2",
                role="tool",
                content="found 2 results",
                attended=[trace_of(i) for i in attended],
            ),
            RecallMessage(id=f"{learner_id}-m3", role="assistant", content="Let us look at it."),
        ],
    )
    assert logged.count == 3
    links = await rows(
        resources,
        "MATCH (m:Message {learner_id: $l})-[:ATTENDED_TO]->(s:SensoryTrace) "
        "MATCH (:Learner {id: $l})-[:HAS_SENSORY_TRACE]->(s) "
        "RETURN m.id AS m, s.id AS s, s.kind AS kind, s.captured_at AS at, s.learner_id AS owner "
        "ORDER BY kind",
        l=learner_id,
    )
    assert [(r["m"], r["s"], r["kind"]) for r in links] == [
        (f"{learner_id}-m2", context, "context"),
        (f"{learner_id}-m1", request, "request"),
        (f"{learner_id}-m2", tool, "tool_output"),
    ]
    assert all(r["at"] == CLOCK_START and r["owner"] == learner_id for r in links)
    # The unattended paste is still only in Redis (it will expire), never in Neo4j.
    assert [i["id"] for i in await buffer.peek(learner_id)] == [ignored]
    assert await rows(resources, "MATCH (s:SensoryTrace {id: $id}) RETURN s", id=ignored) == []
    # Relogging is idempotent: no second trace or link.
    await recall.log_messages(
        learner_id, "s1", [RecallMessage(id=f"{learner_id}-m1", role="user", content="x", attended=req_item)]
    )
    again = await rows(
        resources, "MATCH (:Message)-[r:ATTENDED_TO]->(:SensoryTrace {id: $id}) RETURN r", id=request
    )
    assert len(again) == 1
    # Erasure removes the traces and the buffer.
    assert await owned_nodes(resources, learner_id) == 6
    await erase_learner(resources, learner_id)
    assert await owned_nodes(resources, learner_id) == 0
    assert await rows(resources, "MATCH (s:SensoryTrace {learner_id: $l}) RETURN s", l=learner_id) == []
    assert (
        await resources.redis.exists(buffer.index_key(learner_id), buffer.item_key(learner_id, ignored)) == 0
    )


async def test_a_parked_write_keeps_its_attended_link(
    buffer: SensoryBuffer, resources: Resources, learner_id: str
) -> None:
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", auto_replay=False)
    dead = neo4j.AsyncGraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "x"), connection_timeout=1)
    down = RecallStore(dead, resources.embeddings, database=resources.database, backlog=backlog)
    healthy = RecallStore(resources.neo4j, resources.embeddings, database=resources.database)
    try:
        [item] = await buffer.attend(
            learner_id, [await buffer.capture(learner_id, "request", "I live in Hue.")]
        )
        message = RecallMessage(id=f"{learner_id}-p1", role="user", content="I live in Hue.", attended=item)
        assert (await down.log_messages(learner_id, "s1", [message])).degraded
        assert await backlog.pending(learner_id) == 1
        assert await backlog.replay(healthy, learner_id=learner_id) == 1
        linked = await rows(
            resources,
            "MATCH (m:Message {id: $m})-[:ATTENDED_TO]->(s:SensoryTrace) RETURN s.id AS id, s.kind AS kind",
            m=f"{learner_id}-p1",
        )
        assert linked == [{"id": item["id"], "kind": "request"}]
    finally:
        await dead.close()
        await erase_learner(resources, learner_id)
        keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
        if keys:
            await resources.redis.delete(*keys)


async def test_bad_attended_traces_are_refused(recall: RecallStore, learner_id: str) -> None:
    bad = [
        {"id": "x", "kind": "request"},
        {"id": "x", "kind": "request", "captured_at": "yesterday"},
        "not a mapping",
    ]
    for attended in bad:
        message = RecallMessage(id=f"{learner_id}-b", role="user", content="hi", attended=attended)  # type: ignore[arg-type]
        with pytest.raises(InvalidInputError, match="attended"):
            await recall.log_messages(learner_id, "s1", [message])
    assert await recall.count(learner_id) == 0
