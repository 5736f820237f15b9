"""Which of KAG's Redis keys work on a real 3-master Redis Cluster (issue 18).

Cluster rules: every multi-key command, MULTI/EXEC and script must touch one hash slot.
Core memory (one hash per learner, one-key scripts) and the degraded-mode write backlog
(its enqueue is a plain pipeline, not a MULTI across slots) are cluster-safe. So is
the checkpoint saver: a thread's keys share the hash tag ``{T}``, its scripts get
every key through ``KEYS``, and the prefix-wide sets are written apart from the
thread's transaction (``test_cluster_checkpoint.py`` runs the conformance suite here).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio.cluster import RedisCluster

from agent.checkpoint import AsyncRedisSaver
from agent.memory.backlog import WriteBacklog
from agent.memory.core import CoreMemoryStore, core_key


@pytest.fixture
async def cluster(redis_cluster_url: str) -> AsyncIterator[RedisCluster]:
    client = RedisCluster.from_url(redis_cluster_url, decode_responses=True)
    yield client
    await client.aclose()


async def test_the_cluster_has_three_masters_covering_every_slot(cluster: RedisCluster) -> None:
    info = await cluster.cluster_info()
    assert info["cluster_state"] == "ok"
    assert int(info["cluster_slots_assigned"]) == 16384
    assert len(cluster.get_primaries()) == 3


async def test_core_memory_is_cluster_safe(cluster: RedisCluster) -> None:
    learners = [f"cluster-{uuid.uuid4().hex[:8]}" for _ in range(6)]
    slots = {cluster.keyslot(core_key(learner)) for learner in learners}
    assert len(slots) > 1, "learners should spread over slots"
    core = CoreMemoryStore(cluster)
    for learner in learners:
        await core.append(learner, "user_profile", f"Name: {learner}")
        await core.replace(learner, "user_profile", f"Name: {learner}", "Name: Ada")
    for learner in learners:
        assert (await core.read(learner))["user_profile"] == "Name: Ada"
        await core.clear(learner)
        assert (await core.read(learner))["user_profile"] == ""


class Recorder:
    """A backlog consumer that records what it applies."""

    backlog_ops = frozenset({"test.op"})

    def __init__(self) -> None:
        """Nothing applied yet."""
        self.applied: list[dict[str, Any]] = []

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Record one entry."""
        self.applied.append(payload)


async def test_the_write_backlog_is_cluster_safe(cluster: RedisCluster) -> None:
    backlog = WriteBacklog(cluster, prefix=f"kag-cluster-{uuid.uuid4().hex[:6]}", auto_replay=False)
    learners = [f"cluster-{uuid.uuid4().hex[:8]}" for _ in range(4)]
    assert (
        len(
            {cluster.keyslot(backlog.stream_key(lr)) for lr in learners}
            | {cluster.keyslot(backlog.learners_key)}
        )
        > 1
    )
    for n, learner in enumerate(learners):
        for i in range(3):
            await backlog.enqueue(learner, "test.op", {"learner": learner, "i": i, "n": n})
    assert await backlog.pending() == 12
    recorder = Recorder()
    assert await backlog.replay(recorder) == 12
    assert sorted((p["learner"], p["i"]) for p in recorder.applied) == sorted(
        (lr, i) for lr in learners for i in range(3)
    )
    assert await backlog.pending() == 0
    assert await backlog.remember("recall", learners[0], [{"id": "m1", "text": "hi"}])
    assert [i["id"] for i in await backlog.recent("recall", learners[0])] == ["m1"]
    await cluster.delete(backlog.recent_key("recall", learners[0]))


async def test_checkpoint_saver_on_the_cluster(redis_cluster_url: str) -> None:
    client = RedisCluster.from_url(redis_cluster_url, decode_responses=False)
    try:
        saver = AsyncRedisSaver(client, key_prefix=f"kag-cluster-{uuid.uuid4().hex[:6]}")
        assert saver.cluster
        await saver.setup()
        cfg = {"configurable": {"thread_id": "t1", "checkpoint_ns": ""}}
        checkpoint = {
            "v": 1,
            "id": "1f0",
            "ts": "2026-01-01T00:00:00+00:00",
            "channel_values": {"a": 1},
            "channel_versions": {"a": "1"},
            "versions_seen": {},
        }
        stored = await saver.aput(cfg, checkpoint, {}, {"a": "1"})
        assert (await saver.aget_tuple(stored)).checkpoint["channel_values"] == {"a": 1}
        await saver.adelete_thread("t1")
        assert await saver.aget_tuple(cfg) is None
    finally:
        await client.aclose()
