"""The per-turn shortcuts of the heartbeat's stores, on real Neo4j and Redis.

Each shortcut skips a round trip a turn used to make; each test shows the answer is the
same as without it, including when another write races the shortcut.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.memory.backlog import WriteBacklog
from agent.memory.core import EMPTY_MARK, CoreMemoryStore, core_key
from agent.memory.reminders import ReminderStore, flag_key
from agent.memory.sensory import SensoryBuffer
from agent.resources import Resources


class Counting:
    """Counts calls to one async method of an object (the call still happens)."""

    def __init__(self, target: object, name: str) -> None:
        self.calls = 0
        real = getattr(target, name)

        async def counted(*args: object, **kwargs: object) -> object:
            self.calls += 1
            return await real(*args, **kwargs)

        setattr(target, name, counted)


@pytest.fixture
async def backlog(resources: Resources) -> AsyncIterator[WriteBacklog]:
    """A private backlog (no auto replay)."""
    log = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", auto_replay=False)
    yield log
    keys = [k async for k in resources.redis.scan_iter(match=f"{log.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


@pytest.fixture
async def wipe(resources: Resources, learner_id: str) -> AsyncIterator[None]:
    """Delete the learner's reminders, core sections and Redis keys afterwards."""
    yield
    async with resources.neo4j.session(database=resources.database) as session:
        await session.run("MATCH (n:Reminder {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:CoreSection {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)
    await resources.redis.delete(core_key(learner_id), flag_key(learner_id))


def _core(resources: Resources, backlog: WriteBacklog) -> CoreMemoryStore:
    return CoreMemoryStore(
        resources.redis,
        driver=resources.neo4j,
        embeddings=resources.embeddings,
        database=resources.database,
        backlog=backlog,
    )


def _reminders(resources: Resources, backlog: WriteBacklog) -> ReminderStore:
    return ReminderStore(resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog)


# ----- core memory: "no sections" is cached -----
async def test_a_learner_without_core_memory_is_read_from_redis_after_the_first_turn(
    resources, backlog, learner_id, wipe
):
    core = _core(resources, backlog)
    assert core.graph is not None
    loads = Counting(core.graph, "load")
    empty = {"user_profile": "", "current_goals": ""}
    assert await core.read(learner_id) == empty
    assert await core.read(learner_id) == empty
    assert loads.calls == 1, "the second read is answered by the cached 'no sections' note"
    assert await resources.redis.hgetall(core_key(learner_id)) == {EMPTY_MARK: "1"}
    # The first section written replaces the note, in Redis and durably.
    assert (await core.append(learner_id, "user_profile", "Name: Ana"))["user_profile"] == "Name: Ana"
    assert await resources.redis.hgetall(core_key(learner_id)) == {"user_profile": "Name: Ana"}
    assert await core.read(learner_id) == {"user_profile": "Name: Ana", "current_goals": ""}
    await resources.redis.delete(core_key(learner_id))
    assert await core.read(learner_id) == {"user_profile": "Name: Ana", "current_goals": ""}


async def test_the_note_does_not_count_against_the_section_limit(resources, backlog, learner_id, wipe):
    core = _core(resources, backlog)
    await core.read(learner_id)  # leaves the note
    for i in range(10):  # 12 sections in all with the two defaults
        await core.append(learner_id, f"extra_{i}", "x")
    sections = await core.read(learner_id)
    assert len(sections) == 12 and EMPTY_MARK not in sections


async def test_a_replayed_section_clears_the_note(resources, backlog, learner_id, wipe):
    core = _core(resources, backlog)
    assert core.graph is not None
    await core.read(learner_id)  # the note: Neo4j has nothing yet
    payload = {"learner_id": learner_id, "name": "user_profile", "text": "Name: Ana", "version": 1}
    await core.graph.apply_backlog_entry("core.section", payload)  # a write parked in an outage
    assert await core.read(learner_id) == {"user_profile": "Name: Ana", "current_goals": ""}


# ----- reminders: "nothing pending" is cached, and invalidated by every set -----
async def test_fire_skips_neo4j_while_nothing_is_pending(resources, backlog, learner_id, wipe):
    store = _reminders(resources, backlog)
    reads = Counting(store, "read")
    assert await store.fire(learner_id, message="Tell me about HAVING") == []
    assert await store.fire(learner_id, message="More on HAVING") == []
    assert reads.calls == 1
    made = await store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    fired = await store.fire(learner_id, message="What does HAVING do?")
    assert [r.id for r in fired] == [made.id]
    assert reads.calls == 2
    assert await store.fire(learner_id, message="HAVING again") == []  # fired once
    assert await store.fire(learner_id, message="HAVING again") == []  # and now noted as none
    assert reads.calls == 3


async def test_a_set_racing_the_note_is_never_hidden(resources, backlog, learner_id, wipe):
    store = _reminders(resources, backlog)
    # A fire reads the generation, then finds nothing pending in Neo4j...
    gen = await store._generation(learner_id)
    assert gen is not None
    # ...a set commits before the fire records its note...
    made = await store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    await store._note_none(learner_id, gen)
    # ...so the note is stale and the next fire still asks Neo4j.
    fired = await store.fire(learner_id, message="What does HAVING do?")
    assert [r.id for r in fired] == [made.id]


async def test_without_redis_fire_asks_neo4j_every_time(resources, learner_id, wipe):
    store = ReminderStore(resources.neo4j, resources.embeddings, database=resources.database)
    assert store.redis is None
    reads = Counting(store, "read")
    await store.fire(learner_id, message="anything")
    await store.fire(learner_id, message="anything")
    assert reads.calls == 2


# ----- sensory memory: attended at once, without a round trip -----
async def test_an_input_attended_at_once_leaves_the_buffer_as_capture_then_attend_would(
    resources, learner_id
):
    buffer = SensoryBuffer(resources.redis)
    item = buffer.attended(learner_id, "request", "Explain LEFT JOIN")
    assert item["kind"] == "request" and item["content"] == "Explain LEFT JOIN"
    assert len(item["id"]) == 32 and item["captured_at"]
    assert await buffer.peek(learner_id) == []
    captured = await buffer.capture(learner_id, "request", "Explain LEFT JOIN")
    (taken,) = await buffer.attend(learner_id, [captured])
    assert set(taken) == set(item) and await buffer.peek(learner_id) == []
