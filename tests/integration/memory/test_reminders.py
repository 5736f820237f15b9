"""Prospective memory on the real Neo4j and Redis: reminders fire once, resolve, stay private."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError
from agent.language.reminders import parse_reminder
from agent.memory.backlog import WriteBacklog
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.reminders import OP_RESOLVE, OP_SET, ReminderStore
from agent.resources import Resources


@dataclass
class Rig:
    store: ReminderStore
    backlog: WriteBacklog
    clock: ManualClock
    other: str


@pytest.fixture
async def rig(resources: Resources, learner_id: str) -> AsyncIterator[Rig]:
    """A store with a private backlog (no auto replay) and a manual clock; cleans up after."""
    backlog = WriteBacklog(
        resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=60, auto_replay=False
    )
    clock = ManualClock("2026-02-03T18:00:00+07:00")
    store = ReminderStore(
        resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog, clock=clock
    )
    other = f"{learner_id}-other"
    yield Rig(store, backlog, clock, other)
    backlog.mark_up()
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in (learner_id, other):
            await session.run("MATCH (n:Reminder {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


async def set_from_text(rig: Rig, learner_id: str, text: str):
    parsed = parse_reminder(text, now=rig.clock())
    assert parsed is not None
    return await rig.store.set(
        learner_id,
        parsed["description"],
        action=parsed["action"],
        keywords=parsed["keywords"],
        concept=parsed["concept"],
        due_at=parsed["due_at"],
    )


async def test_the_group_by_story_fires_exactly_once(rig: Rig, learner_id: str) -> None:
    request = "Please remind me to review GROUP BY when we get to HAVING."
    assert await rig.store.fire(learner_id, message=request) == []  # the monitor runs before the tool
    reminder = await set_from_text(rig, learner_id, request)
    assert (reminder.status, reminder.trigger_kind, reminder.keywords) == ("pending", "keywords", ["HAVING"])
    turns = [
        (request, False),  # a retry of the same turn never fires its own request
        ("Let's do ORDER BY today.", False),
        ("Let's practise LIMIT and OFFSET.", False),
        ("I'm having trouble with OFFSET.", False),
        ("Now I'm ready for HAVING clauses.", True),
        ("More HAVING practice please.", False),  # already fired: never again
    ]
    for message, fires in turns:
        rig.clock.advance(minutes=1)
        fired = await rig.store.fire(learner_id, message=message)
        assert [r.id for r in fired] == ([reminder.id] if fires else []), message
    [stored] = await rig.store.list(learner_id)
    assert stored.status == "triggered"
    assert stored.triggered_at == "2026-02-03T18:05:00+07:00"
    assert stored.description == "review GROUP BY"


async def test_concurrent_callers_fire_each_reminder_once(rig: Rig, learner_id: str) -> None:
    ids = {(await rig.store.set(learner_id, f"task {i}", keywords=["HAVING"])).id for i in range(3)}
    second = ReminderStore(
        rig.store.driver, rig.store.embeddings, database=rig.store.database, clock=rig.clock
    )
    calls = [(rig.store if i % 2 else second).fire(learner_id, message="HAVING now please") for i in range(6)]
    results = await asyncio.gather(*calls)
    fired = [r.id for batch in results for r in batch]
    assert sorted(fired) == sorted(ids)  # every reminder once, none twice
    assert await rig.store.fire(learner_id, message="HAVING again") == []


async def test_resolve_moves_to_resolved_and_lists_filter(rig: Rig, learner_id: str) -> None:
    high = await rig.store.set(learner_id, "check variables first", concept="functions", priority=1)
    low = await rig.store.set(learner_id, "mention indexes", keywords=["performance"], priority=3)
    assert [r.id for r in await rig.store.list(learner_id)] == [high.id, low.id]
    [fired] = await rig.store.fire(learner_id, message="ok", concept="Functions")
    assert fired.id == high.id and fired.status == "triggered"
    resolved = await rig.store.resolve(learner_id, high.id)
    assert resolved.status == "resolved" and resolved.resolved_at == rig.clock().isoformat()
    rig.clock.advance(minutes=5)
    again = await rig.store.resolve(learner_id, high.id)  # idempotent: the first time is kept
    assert again.resolved_at == resolved.resolved_at
    assert [r.id for r in await rig.store.list(learner_id, ["resolved"])] == [high.id]
    assert [r.id for r in await rig.store.list(learner_id, "pending")] == [low.id]
    cancelled = await rig.store.resolve(learner_id, low.id)  # a pending one can be resolved too
    assert cancelled.status == "resolved"
    assert await rig.store.fire(learner_id, message="performance tips?") == []
    with pytest.raises(InvalidInputError, match="no reminder"):
        await rig.store.resolve(learner_id, "rem-does-not-exist")


async def test_time_trigger_follows_the_injected_clock(rig: Rig, learner_id: str) -> None:
    reminder = await set_from_text(rig, learner_id, "remind me to revise subqueries in 2 days")
    assert reminder.trigger_kind == "time"
    assert reminder.due_at == "2026-02-05T00:00:00+07:00"  # a day named: due from its start
    rig.clock.advance(days=1)
    assert await rig.store.fire(learner_id, message="hello") == []
    rig.clock.advance(days=1)
    [fired] = await rig.store.fire(learner_id)
    assert fired.id == reminder.id
    rig.clock.advance(days=1)
    assert await rig.store.fire(learner_id) == []


async def test_same_pending_request_is_not_duplicated(rig: Rig, learner_id: str) -> None:
    a = await rig.store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    b = await rig.store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    c = await rig.store.set(learner_id, "review GROUP BY", keywords=["WINDOW"])
    assert a.id == b.id and c.id != a.id
    assert len(await rig.store.list(learner_id)) == 2


async def test_learners_cannot_see_fire_or_resolve_each_others_reminders(rig: Rig, learner_id: str) -> None:
    mine = await rig.store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    assert await rig.store.list(rig.other) == []
    assert await rig.store.fire(rig.other, message="HAVING now") == []
    with pytest.raises(InvalidInputError, match="no reminder"):
        await rig.store.resolve(rig.other, mine.id)
    [still] = await rig.store.list(learner_id)
    assert still.status == "pending"
    theirs = await rig.store.set(rig.other, "review GROUP BY", keywords=["HAVING"])
    assert theirs.id != mine.id
    [fired] = await rig.store.fire(learner_id, message="HAVING now")
    assert fired.id == mine.id
    assert [r.status for r in await rig.store.list(rig.other)] == ["pending"]


async def test_a_topic_with_a_date_fires_on_the_topic_from_that_date_on(rig: Rig, learner_id: str) -> None:
    """A demanding learner's "On <date>, when we do X, remind me …" waits for both.

    Neither the date alone nor the topic before it fires; the first turn on the topic from that
    date on does, once.
    """
    request = "On February 10, when we do window functions, remind me to ask about ROWS BETWEEN."
    reminder = await set_from_text(rig, learner_id, request)
    assert (reminder.trigger_kind, reminder.concept) == ("concept", "window functions")
    assert reminder.due_at is not None and reminder.due_at.startswith("2026-02-10")
    topic = "Let's do window functions today: how does ROW_NUMBER work?"
    assert await rig.store.fire(learner_id, message=topic) == []  # the topic before its date
    rig.clock.advance(days=7)
    assert await rig.store.fire(learner_id, message="Can we review joins?") == []  # the date alone
    [fired] = await rig.store.fire(learner_id, message=topic)
    assert fired.id == reminder.id
    assert await rig.store.fire(learner_id, message=topic) == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({}, "needs a trigger"),
        ({"keywords": "HAVING"}, "keywords must be a list"),
        ({"keywords": ["it"]}, "only common words"),
        ({"keywords": [""]}, "keywords"),
        ({"due_at": "whenever you like"}, "due_at must be ISO-8601"),  # no time a phrase names
        ({"keywords": ["HAVING"], "priority": 5}, "priority must be 1"),
        ({"keywords": ["HAVING"], "session_id": "bad\nid"}, "invalid session_id"),
    ],
)
async def test_bad_input_is_refused_clearly(rig: Rig, learner_id: str, kwargs: dict, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        await rig.store.set(learner_id, "review GROUP BY", **kwargs)


async def test_other_bad_arguments(rig: Rig, learner_id: str) -> None:
    with pytest.raises(InvalidInputError, match="description"):
        await rig.store.set(learner_id, "  ", keywords=["HAVING"])
    with pytest.raises(InvalidInputError, match="unknown reminder status"):
        await rig.store.list(learner_id, ["done"])
    with pytest.raises(InvalidInputError, match="invalid reminder id"):
        await rig.store.resolve(learner_id, "")
    with pytest.raises(InvalidInputError):
        await rig.store.fire("", message="x")
    with pytest.raises(InvalidInputError, match="message"):
        await rig.store.fire(learner_id, message="bad \ud800 surrogate")
    assert await rig.store.fire(learner_id, message="  ", concept="") == []  # blank: nothing to match


async def test_set_and_resolve_are_parked_while_neo4j_is_down_and_replayed(
    rig: Rig, resources: Resources, learner_id: str
) -> None:
    rig.backlog.mark_down("test outage")
    parked = await rig.store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    assert parked.degraded and parked.status == "pending"
    assert await rig.store.fire(learner_id, message="HAVING") == []  # nothing fires without Neo4j
    closed = await rig.store.resolve(learner_id, parked.id)
    assert closed.degraded and closed.status == "resolved"
    entries = await resources.redis.xrange(rig.backlog.stream_key(learner_id))
    assert [fields["op"] for _, fields in entries] == [OP_SET, OP_RESOLVE]
    assert await rows(resources, "MATCH (r:Reminder {learner_id: $l}) RETURN r", l=learner_id) == []
    rig.backlog.mark_up()
    assert await rig.backlog.replay(rig.store, learner_id=learner_id) == 2
    [stored] = await rig.store.list(learner_id)
    assert stored.id == parked.id and stored.status == "resolved"
    # Replaying the same entries again changes nothing.
    for _, fields in entries:
        await resources.redis.xadd(rig.backlog.stream_key(learner_id), fields)
    await resources.redis.sadd(rig.backlog.learners_key, learner_id)
    assert await rig.backlog.replay(rig.store, learner_id=learner_id) == 2
    assert [(r.id, r.status) for r in await rig.store.list(learner_id)] == [(parked.id, "resolved")]


async def test_erasure_removes_reminders(rig: Rig, resources: Resources, learner_id: str) -> None:
    await rig.store.set(learner_id, "review GROUP BY", keywords=["HAVING"])
    await rig.store.set(rig.other, "review GROUP BY", keywords=["HAVING"])
    assert await owned_nodes(resources, learner_id) == 1
    await erase_learner(resources, learner_id)
    assert await owned_nodes(resources, learner_id) == 0
    assert await rows(resources, "MATCH (r:Reminder {learner_id: $l}) RETURN r", l=learner_id) == []
    assert len(await rig.store.list(rig.other)) == 1  # other learners are untouched
