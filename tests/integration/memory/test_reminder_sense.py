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
