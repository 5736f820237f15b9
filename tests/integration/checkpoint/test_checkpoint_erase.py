"""Erasing one owner's threads on real Redis: the owner index, the guard, unowned threads, legacy ones."""

from __future__ import annotations

from typing import Any

import pytest
from langgraph.checkpoint.base import empty_checkpoint

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.checkpoint.owners import INDEX_FIELD
from agent.errors import ThreadOwnedError


def cfg(thread: str, learner: str | None = None, run: str | None = None) -> dict:
    configurable: dict[str, Any] = {"thread_id": thread, "checkpoint_ns": ""}
    if learner:
        configurable["langgraph_auth_user_id"] = learner
    if run:
        configurable["run_id"] = run
    return {"configurable": configurable}


def named(learner: str) -> Any:
    return lambda channel, value: (
        value == learner or (isinstance(value, dict) and value.get("learner_id") == learner)
    )


async def put(saver: AsyncRedisSaver, config: dict, values: dict | None = None) -> dict:
    checkpoint = empty_checkpoint()
    checkpoint["channel_values"] = dict(values or {})
    versions = {ch: saver.get_next_version(None, None) for ch in checkpoint["channel_values"]}
    checkpoint["channel_versions"] = versions
    return await saver.aput(config, checkpoint, {"step": 0}, versions)


async def keys_of(saver: AsyncRedisSaver) -> list[str]:
    return sorted([k.decode() async for k in saver.client.scan_iter(match=f"{saver.key_prefix}:*")])


async def test_erase_owner_takes_every_thread_of_the_owner_and_nothing_of_anyone_else(
    asaver: AsyncRedisSaver,
) -> None:
    p = asaver.key_prefix
    stored = await put(asaver, cfg("ana-1", "ana", run="run-a"), {"messages": "ana says hi"})
    writes_config = {"configurable": {**stored["configurable"], "langgraph_auth_user_id": "ana"}}
    await asaver.aput_writes(writes_config, [("x", "ana's write")], "task")
    await put(asaver, cfg("child", "ana"))
    await put(asaver, cfg("bob-1", "bob"), {"messages": "bob says hi"})
    with pytest.raises(ThreadOwnedError):
        await put(asaver, cfg("bob-1", "ana"))  # refused: leaves ana's index naming bob's thread
    assert await asaver.client.sismember(f"{p}:owned:ana", "bob-1")
    await put(asaver, cfg("nb-ana"), {"learner_id": "ana"})  # a notebook run: no owner, names ana
    await put(asaver, cfg("nb-bob"), {"__start__": {"learner_id": "bob", "request": "hi"}})

    erased = await asaver.aerase_owner("ana", adopt=named("ana"), channels=("learner_id", "__start__"))

    assert sorted(erased) == ["ana-1", "child", "nb-ana"]
    left = await keys_of(asaver)
    assert not [k for k in left if "ana" in k], left  # threads, owner records, index ("n" is not hex)
    assert await asaver.client.smembers(f"{p}:run:run-a") == set()
    assert await asaver.aget_tuple(cfg("bob-1", "bob")) is not None, "bob's thread is untouched"
    assert await asaver.aget_tuple(cfg("nb-bob")) is not None, "an unowned thread naming bob stays"
    assert await asaver.client.smembers(f"{p}:threads") == {b"bob-1", b"nb-bob"}
    assert await asaver.aerase_owner("ana", adopt=named("ana"), channels=("learner_id",)) == [], "idempotent"


async def test_setup_indexes_threads_written_before_the_owner_index(asaver: AsyncRedisSaver) -> None:
    p = asaver.key_prefix
    await put(asaver, cfg("old-owned", "ana"))
    await put(asaver, cfg("old-free"), {"learner_id": "ana"})
    # As a prefix written before the index existed: no index sets, no "owners" field.
    await asaver.client.delete(f"{p}:owned:ana", f"{p}:unowned")
    await asaver.client.hdel(f"{p}:meta", INDEX_FIELD)
    await asaver.setup()
    assert await asaver.client.smembers(f"{p}:owned:ana") == {b"old-owned"}
    assert await asaver.client.smembers(f"{p}:unowned") == {b"old-free"}
    erased = await asaver.aerase_owner("ana", adopt=named("ana"), channels=("learner_id",))
    assert sorted(erased) == ["old-free", "old-owned"]
    assert [k for k in await keys_of(asaver) if not k.endswith(":meta")] == []


def test_the_sync_saver_erases_the_same_way(saver: RedisSaver) -> None:
    config = cfg("s-1", "ana")
    checkpoint = empty_checkpoint()
    saver.put(config, checkpoint, {"step": 0}, {})
    assert saver.erase_owner("ana") == ["s-1"]
    assert saver.get_tuple(cfg("s-1")) is None and not saver.client.exists(f"{saver.key_prefix}:owned:ana")
