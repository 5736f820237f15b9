"""Which learners the kernel worker drains first, and learner isolation of what it drains."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from agent.kernel import worker as worker_module
from agent.kernel.stream import KernelStream
from agent.kernel.worker import EARLY_FRACTION, KernelWorker, Waiting, build_worker, pick_due
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources


def test_due_learners_come_longest_waiting_first_and_early_ones_only_when_none_is_due() -> None:
    flush = 10.0
    waiting = [
        Waiting("fresh", depth=3, age=1.0),
        Waiting("full", depth=50, age=2.0),
        Waiting("late", depth=4, age=12.0),
        Waiting("half", depth=2, age=flush * EARLY_FRACTION),
    ]
    assert pick_due(waiting, batch_size=50, flush_interval=flush) == ["late", "full"]
    # Nobody due: an idle worker drains ahead those that waited EARLY_FRACTION of the flush.
    idle = [w for w in waiting if w.learner_id in {"fresh", "half"}]
    assert pick_due(idle, batch_size=50, flush_interval=flush) == ["half"]
    assert pick_due([Waiting("fresh", depth=3, age=1.0)], batch_size=50, flush_interval=flush) == []


@pytest.fixture
async def private_stream(resources: Resources) -> AsyncIterator[KernelStream]:
    """A kernel stream under a prefix of its own: no other process's learners are in its active set."""
    prefix = f"kag-test-sched-{uuid.uuid4().hex[:8]}"
    yield KernelStream(resources.redis, prefix=prefix)
    keys = [k async for k in resources.redis.scan_iter(match=f"{prefix}:*", count=1000)]
    if keys:
        await resources.redis.delete(*keys)


class PinnedClock:
    """The worker's ``time`` module with ``time()`` pinned where the test puts it (monotonic stays real)."""

    def __init__(self) -> None:
        self.now = 0.0
        self.monotonic = time.monotonic

    def time(self) -> float:
        return self.now


async def _enqueued_at(stream: KernelStream, learner_id: str) -> float:
    """When Redis appended the learner's oldest event (its stream id's milliseconds), in seconds."""
    [(entry_id, _)] = await stream.redis.xrange(stream.stream_key(learner_id), count=1)
    return int(str(entry_id).split("-")[0]) / 1000


async def test_the_poll_drains_due_learners_first_and_ahead_only_when_idle(
    private_stream: KernelStream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ages are read against a clock pinned to "old"'s enqueue time, so the machine's load cannot move them.

    Redis stamps the events; only the gap between "old" and the later events is real (at
    least the 1 s slept), and every check holds for any gap over 0.5 s.
    """
    clock = PinnedClock()
    monkeypatch.setattr(worker_module, "time", clock)
    worker = KernelWorker(private_stream, {}, batch_size=3, flush_interval=4.0)
    await private_stream.enqueue("old", "noop", {})
    await asyncio.sleep(1.0)  # the later events are stamped at least 1 s after "old"
    await private_stream.enqueue("young", "noop", {})
    old_at = await _enqueued_at(private_stream, "old")
    clock.now = old_at + 2.5  # "old" has waited past EARLY_FRACTION of the flush interval, "young" not
    assert await worker.due() == ["old"]  # nobody due: the idle worker drains ahead

    for n in range(3):  # a full batch is due at once
        await private_stream.enqueue("busy", "noop", {"n": n})
    assert await worker.due() == ["busy"]  # something due: nobody is drained ahead
    clock.now = old_at + 4.5  # two seconds later "old" is past its flush interval
    due = await worker.due()
    assert due[:2] == ["old", "busy"]  # past its flush interval, and the longest waiting


def _messages(learner_id: str) -> list[RecallMessage]:
    return [
        RecallMessage(id=f"{learner_id}-q", role="user", content="What does GROUP BY do?"),
        RecallMessage(id=f"{learner_id}-a", role="assistant", content="It groups rows by a key."),
    ]


async def _messages_of(resources: Resources, learner_id: str) -> int:
    async with resources.neo4j.session(database=resources.database) as session:
        result = await session.run("MATCH (m:Message {learner_id: $l}) RETURN count(m) AS n", l=learner_id)
        return int((await result.single())["n"])


async def test_an_event_naming_another_learner_is_dead_lettered_and_written_under_nobody(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    other = f"{learner_id}-other"
    payload = {
        "learner_id": other,
        "session_id": "s1",
        "messages": [
            {"id": f"{other}-x", "role": "user", "content": "Not mine", "created_at": None, "seq": None}
        ],
    }
    # A foreign payload on this learner's stream, between two of the learner's own batches.
    await stores.recall.log_messages(learner_id, "s1", _messages(learner_id)[:1])
    await stores.kernel.enqueue(learner_id, "recall.log", payload)
    await stores.recall.log_messages(learner_id, "s1", _messages(learner_id)[1:])
    worker = build_worker(resources, stores)
    try:
        assert await worker.drain(learner_id) == 2
        assert worker.stats()["dead_lettered"] == 1
        assert await _messages_of(resources, learner_id) == 2
        assert await _messages_of(resources, other) == 0
        assert await stores.kernel.depth(learner_id) == 0
    finally:
        await resources.redis.delete(stores.kernel.dead_key(learner_id))
