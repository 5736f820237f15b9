"""On the real Neo4j and Redis: a trigger word in another sense does not use a reminder up."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.clock import ManualClock
from agent.language.reminders import parse_reminder
from agent.memory.backlog import WriteBacklog
from agent.memory.reminders import ReminderStore
from agent.resources import Resources


@pytest.fixture
async def store(resources: Resources, learner_id: str) -> AsyncIterator[ReminderStore]:
    """A reminder store with a private backlog and a manual clock; deletes what it made."""
    backlog = WriteBacklog(
        resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=60, auto_replay=False
    )
    clock = ManualClock("2026-01-19T18:00:00+01:00")
    yield ReminderStore(
        resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog, clock=clock
    )
    async with resources.neo4j.session(database=resources.database) as session:
        await session.run("MATCH (n:Reminder {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


@pytest.mark.parametrize(
    ("request_text", "turns"),
    [
        (
            "Once pointers come up, I want you to remind me to ask why arrays decay.",
            [
                ("Let's do loops in C.", False),
                ("Can you point me to a good C book?", False),
                ("Any pointers for staying focused?", False),
                ("Explain pointers to me.", True),
                ("What is a pointer to a pointer?", False),  # fired once: never again
            ],
        ),
        (
            "I'd like a reminder about the validate argument the first time we do merges in pandas.",
            [
                ("groupby basics today, please.", False),
                ("Our two teams at work are merging next month, so I might be busy.", False),
                ("How do I merge two DataFrames in pandas?", True),
                ("And what does how='outer' do in a merge?", False),
            ],
        ),
        (
            # a rare topic word in another form (MiniLM read the firing turn at 0.40 from "rebasing")
            "If rebasing comes up, remind me that I still have uncommitted changes on my branch.",
            [
                ("How do I rename a branch?", False),
                ("The storm broke two big branches off the oak, so I'm late.", False),
                ("Can I rebase my feature branch onto main without losing anything?", True),
                ("What does --onto do when I rebase?", False),
            ],
        ),
        (
            "When we reach merging DataFrames, remind me to check my ID columns are strings.",
            [
                ("I got a merge conflict in git on my notebook, how do I keep my version?", False),
                ("Can I concat two DataFrames with different columns?", False),
                ("Let's do merging: how do I merge two DataFrames on two columns at once?", True),
            ],
        ),
    ],
)
async def test_fires_once_on_the_topic_not_on_the_word(
    store: ReminderStore, learner_id: str, request_text: str, turns: list[tuple[str, bool]]
) -> None:
    parsed = parse_reminder(request_text, now=store.clock())
    assert parsed is not None and parsed["trigger_kind"] == "keywords"
    made = await store.set(
        learner_id, parsed["description"], action=parsed["action"], keywords=parsed["keywords"]
    )
    for message, fires in turns:
        store.clock.advance(minutes=1)
        fired = await store.fire(learner_id, message=message)
        assert [r.id for r in fired] == ([made.id] if fires else []), message
    [stored] = await store.list(learner_id)
    assert stored.status == "triggered"


async def test_tomorrow_is_due_from_the_start_of_the_next_day(store: ReminderStore, learner_id: str) -> None:
    """Said at 21:00, "tomorrow" fires in the next day's 17:30 session, not a session later."""
    store.clock.set("2026-04-14T21:00:00+02:00")
    parsed = parse_reminder("Remind me tomorrow to send the titration data to Sofia.", now=store.clock())
    assert parsed is not None and parsed["when"] == "tomorrow"
    made = await store.set(learner_id, parsed["description"], due_at=parsed["when"])
    assert made.due_at == "2026-04-15T00:00:00+02:00"
    store.clock.advance(minutes=10)
    assert await store.fire(learner_id, message="What's a systematic error?") == []
    store.clock.set("2026-04-15T17:30:00+02:00")
    assert [r.id for r in await store.fire(learner_id, message="Hi!")] == [made.id]
    assert await store.fire(learner_id, message="Thanks") == []
