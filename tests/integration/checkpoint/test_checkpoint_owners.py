"""Thread ownership in the Redis saver: recorded at the first write, enforced on reads and writes."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from langgraph.checkpoint.base import empty_checkpoint

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.errors import ThreadOwnedError
from agent.settings import Settings


def cfg(thread: str, learner: str | None = None, checkpoint_id: str | None = None) -> dict:
    configurable = {"thread_id": thread, "checkpoint_ns": ""}
    if learner:
        configurable["langgraph_auth_user_id"] = learner
    if checkpoint_id:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


@pytest.fixture
def prefix(settings: Settings) -> Iterator[str]:
    value = f"kag:test:own:{uuid.uuid4().hex[:12]}"
    yield value
    client = redis.Redis.from_url(settings.redis_url)
    keys = list(client.scan_iter(match=f"{value}:*"))
    if keys:
        client.delete(*keys)
    client.close()


async def test_async_saver_records_the_owner_and_hides_the_thread_from_others(settings, prefix):
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        stored = await saver.aput(cfg("t1", "ada"), empty_checkpoint(), {"step": 0}, {})
        await saver.aput_writes(cfg("t1", "ada", stored["configurable"]["checkpoint_id"]), [("x", 1)], "task")
        assert await saver.client.get(f"{prefix}:{{t1}}:owner") == b"ada"

        assert (await saver.aget_tuple(cfg("t1", "ada"))) is not None, "the owner reads it back"
        assert [t async for t in saver.alist(cfg("t1", "ada"))]
        assert await saver.aget_tuple(cfg("t1", "bob")) is None
        assert [t async for t in saver.alist(cfg("t1", "bob"))] == []
        assert [t async for t in saver.alist(None)], "no principal: housekeeping sees everything"

        with pytest.raises(ThreadOwnedError, match="another learner"):
            await saver.aput(cfg("t1", "bob"), empty_checkpoint(), {"step": 1}, {})
        with pytest.raises(ThreadOwnedError):
            await saver.aput_writes(
                cfg("t1", "bob", stored["configurable"]["checkpoint_id"]), [("x", 2)], "t"
            )
        assert len([t async for t in saver.alist(cfg("t1", "ada"))]) == 1, "bob wrote nothing"

        await saver.adelete_thread("t1")
        assert await saver.client.get(f"{prefix}:{{t1}}:owner") is None, "deleting a thread frees its id"
        await saver.aput(cfg("t1", "bob"), empty_checkpoint(), {"step": 0}, {})
        assert await saver.aget_tuple(cfg("t1", "bob")) is not None
        assert await saver.aget_tuple(cfg("t1", "ada")) is None


async def test_a_copy_belongs_to_whoever_copies_and_only_owners_can_copy(settings, prefix):
    who = {"id": "ada"}
    async with AsyncRedisSaver.from_conn_string(
        settings.redis_url, key_prefix=prefix, principal=lambda config: who["id"]
    ) as saver:
        await saver.setup()
        await saver.aput(cfg("src"), empty_checkpoint(), {"step": 0}, {})
        await saver.acopy_thread("src", "fork")
        assert await saver.aget_tuple(cfg("fork")) is not None
        who["id"] = "bob"
        await saver.acopy_thread("src", "stolen")
        assert await saver.client.exists(f"{prefix}:{{stolen}}:ns") == 0, "bob copied nothing of ada's"
        assert await saver.aget_tuple(cfg("fork")) is None


def test_sync_saver_applies_the_same_rules(settings, prefix):
    with RedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        saver.setup()
        saver.put(cfg("t2", "ada"), empty_checkpoint(), {"step": 0}, {})
        assert saver.get_tuple(cfg("t2", "ada")) is not None
        assert saver.get_tuple(cfg("t2", "bob")) is None
        assert list(saver.list(cfg("t2", "bob"))) == []
        with pytest.raises(ThreadOwnedError):
            saver.put(cfg("t2", "bob"), empty_checkpoint(), {"step": 1}, {})
        assert saver.get_tuple(cfg("t2")) is not None, "no principal, no check (plain Python)"
