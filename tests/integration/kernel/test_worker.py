"""The kernel worker on real services: crash mid-batch, redelivery, background loop, stats."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from pathlib import Path

from agent.kernel.worker import build_worker
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources

ROOT = Path(__file__).resolve().parents[3]


def _batch(learner_id: str, n: int) -> list[RecallMessage]:
    return [
        RecallMessage(id=f"{learner_id}-{n}-q", role="user", content=f"Question {n} about window functions"),
        RecallMessage(id=f"{learner_id}-{n}-a", role="assistant", content=f"Answer {n}: use OVER()"),
    ]


async def _count(resources: Resources, query: str, learner_id: str) -> int:
    async with resources.neo4j.session(database=resources.database) as session:
        result = await session.run(query, l=learner_id)
        return int((await result.single())["n"])


MESSAGES = "MATCH (m:Message {learner_id: $l}) RETURN count(m) AS n"
DISTINCT = "MATCH (m:Message {learner_id: $l}) RETURN count(DISTINCT m.id) AS n"
CONTEXTS = "MATCH (m:Memory {learner_id: $l, kind: 'turn_context'}) RETURN count(m) AS n"


async def test_a_worker_killed_after_commit_loses_and_doubles_nothing(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    for n in range(3):
        await stores.recall.log_messages(learner_id, "s1", _batch(learner_id, n))
    proc = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "tests.integration.kernel.crash_worker", learner_id],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -9, proc.stderr[-2000:]
    assert "committed 2" in proc.stdout
    assert await _count(resources, MESSAGES, learner_id) == 2  # the first batch committed
    assert await stores.kernel.depth(learner_id) == 3  # ...but was never acknowledged

    worker = build_worker(resources, stores, consumer="successor", batch_size=50)
    # The dead worker still holds the learner's lock: a successor cannot take it now.
    lock = stores.kernel.key(learner_id, "lock")
    assert await stores.kernel.lock(learner_id) is None
    assert 0 < await resources.redis.pttl(lock) <= stores.kernel.lock_ttl_ms
    # Redis expires it after its TTL (60 s); the test brings that expiry forward instead of
    # sleeping through it. The successor waits for the lock, then reclaims the dead one's entry.
    await resources.redis.pexpire(lock, 500)
    assert await worker.drain(learner_id, wait=120) == 3
    assert await _count(resources, MESSAGES, learner_id) == 6
    assert await _count(resources, DISTINCT, learner_id) == 6
    assert await _count(resources, CONTEXTS, learner_id) == 6
    assert await stores.kernel.depth(learner_id) == 0
    assert await stores.kernel.tail(learner_id) == []
    assert worker.stats()["applied"] == 3


async def test_a_redelivered_event_changes_nothing(resources: Resources, learner_id: str) -> None:
    stores = MemoryStores.wire(resources)
    messages = _batch(learner_id, 0)
    await stores.recall.log_messages(learner_id, "s1", messages)
    await stores.settle(learner_id)
    payload = {
        "learner_id": learner_id,
        "session_id": "s1",
        "messages": [
            {"id": m.id, "role": m.role, "content": m.content, "created_at": None, "seq": None}
            for m in messages
        ],
    }
    # At-least-once: the same event delivered again (a different key, as after a producer retry).
    await stores.kernel.enqueue(learner_id, "recall.log", payload)
    assert await stores.settle(learner_id) == 1
    assert await _count(resources, MESSAGES, learner_id) == 2
    assert await _count(resources, CONTEXTS, learner_id) == 2


class ThreadSpy:
    """Embeddings that record the thread each document batch was encoded on."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.threads: list[str] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.threads.append(threading.current_thread().name)
        return self.inner.embed_documents(texts)


async def test_the_background_loop_drains_within_the_flush_interval_at_low_priority(
    resources: Resources, learner_id: str
) -> None:
    spy = ThreadSpy(resources.embeddings)
    bundle = Resources(
        resources.settings,
        embeddings=spy,
        neo4j_driver=resources.neo4j,
        redis_client=resources.redis,
    )  # shares the fixture's clients: not closed here
    stores = MemoryStores.wire(bundle)
    worker = build_worker(bundle, stores, batch_size=50, flush_interval=0.2, poll_interval=0.05)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        await stores.recall.log_messages(learner_id, "s1", _batch(learner_id, 0))
        for _ in range(600):
            stored = await _count(resources, MESSAGES, learner_id)
            # The worker counts a batch after its last awaits (ack, unlock): the rows can be seen
            # first, so wait for its count too (a fast encode made this race show).
            if stored == 2 and not await stores.kernel.depth(learner_id) and worker.stats()["batches"]:
                break
            await asyncio.sleep(0.1)
        assert await _count(resources, MESSAGES, learner_id) == 2
        assert await stores.kernel.depth(learner_id) == 0
        stats = worker.stats()
        assert stats["running"] and stats["applied"] >= 1 and stats["batches"] >= 1
    finally:
        stop.set()
        await task
    assert not worker.stats()["running"]
    # The running worker encodes on the low-priority thread (agent.priority) ...
    assert spy.threads and all(t.startswith("kag-background") for t in spy.threads), spy.threads
    # ... a drain called directly (a test, ``kag kernel drain``) is not background work.
    spy.threads.clear()
    await stores.recall.log_messages(learner_id, "s1", _batch(learner_id, 1))
    await worker.drain(learner_id)
    assert spy.threads and not any(t.startswith("kag-background") for t in spy.threads), spy.threads


async def test_a_poisoned_event_is_dead_lettered_and_the_rest_apply(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    await stores.kernel.enqueue(learner_id, "recall.log", {"learner_id": learner_id, "broken": True})
    await stores.recall.log_messages(learner_id, "s1", _batch(learner_id, 1))
    worker = build_worker(resources, stores)
    assert await worker.drain(learner_id) == 1
    assert worker.stats()["dead_lettered"] == 1
    assert await resources.redis.xlen(stores.kernel.dead_key(learner_id)) == 1
    assert await _count(resources, MESSAGES, learner_id) == 2
    await resources.redis.delete(stores.kernel.dead_key(learner_id))
