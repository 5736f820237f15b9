"""Erasing an owner's threads on a real 3-master Redis Cluster: threads in many slots, one index each."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from agent.checkpoint import AsyncRedisSaver
from tests.integration.checkpoint.test_checkpoint_conformance import drop_prefix


@pytest.fixture
def prefix(redis_cluster_url: str) -> Iterator[str]:
    value = f"kag:test:cluster-erase:{uuid.uuid4().hex[:12]}"
    yield value
    drop_prefix(redis_cluster_url, value, cluster=True)


@pytest.fixture
async def asaver(redis_cluster_url: str, prefix: str) -> AsyncIterator[AsyncRedisSaver]:
    url = redis_cluster_url.replace("redis://", "redis+cluster://", 1)
    async with AsyncRedisSaver.from_conn_string(url, key_prefix=prefix) as saver:
        await saver.setup()
        yield saver


async def test_an_owners_threads_in_every_slot_go_and_nobody_elses(asaver: AsyncRedisSaver) -> None:
    def cfg(thread: str, learner: str | None) -> dict:
        configurable = {"thread_id": thread, "checkpoint_ns": ""}
        return {
            "configurable": {**configurable, "langgraph_auth_user_id": learner} if learner else configurable
        }

    mine = [f"ana-{i}" for i in range(12)]  # spread over the three masters' slots
    for thread in mine:
        await asaver.aput(cfg(thread, "ana"), empty_checkpoint(), {"step": 0}, {})
    await asaver.aput(cfg("bob-1", "bob"), empty_checkpoint(), {"step": 0}, {})
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"], checkpoint["channel_versions"] = {"learner_id": "ana"}, {"learner_id": "1"}
    await asaver.aput(cfg("notebook", None), checkpoint, {"step": 0}, {"learner_id": "1"})

    erased = await asaver.aerase_owner("ana", adopt=lambda ch, v: v == "ana", channels=("learner_id",))

    assert sorted(erased) == sorted([*mine, "notebook"])
    for thread in [*mine, "notebook"]:
        assert await asaver.aget_tuple(cfg(thread, None)) is None
    assert await asaver.aget_tuple(cfg("bob-1", "bob")) is not None
    assert not await asaver.client.exists(asaver.owned_key("ana"))
    assert await asaver.client.smembers(asaver.threads_key()) == {b"bob-1"}
