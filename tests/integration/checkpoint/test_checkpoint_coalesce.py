"""Batches asked for in one loop iteration share a round trip, and keep their own replies."""

from __future__ import annotations

import asyncio
import operator
import uuid
from collections.abc import AsyncIterator
from typing import Annotated, Any, TypedDict

import pytest
import redis
from langgraph.checkpoint.base import empty_checkpoint
from langgraph.graph import END, START, StateGraph

from agent.checkpoint import AsyncRedisSaver
from agent.checkpoint.coalesce import Coalescer
from agent.errors import StoreError
from agent.settings import Settings


@pytest.fixture
async def asaver(settings: Settings) -> AsyncIterator[AsyncRedisSaver]:
    prefix = f"kag:test:ckpt:{uuid.uuid4().hex[:12]}"
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        yield saver
    client = redis.Redis.from_url(settings.redis_url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        if keys:
            client.unlink(*keys)
    finally:
        client.close()


@pytest.fixture
def pipelines(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many batches each pipeline sent carried."""
    sizes: list[int] = []
    real = Coalescer._execute

    async def counted(self: Coalescer, batches: list[Any]) -> list[list[Any]]:
        sizes.append(len(batches))
        return await real(self, batches)

    monkeypatch.setattr(Coalescer, "_execute", counted)
    return sizes


def _config(thread: str) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread, "checkpoint_ns": ""}}


async def test_concurrent_puts_share_one_pipeline(asaver: AsyncRedisSaver, pipelines: list[int]) -> None:
    first = await asaver.aput(_config("a"), empty_checkpoint(), {"step": -1}, {})
    pipelines.clear()
    second = empty_checkpoint()
    second["channel_values"] = {"x": 1}
    second["channel_versions"] = {"x": asaver.get_next_version(None, None)}
    stored, _ = await asyncio.gather(
        asaver.aput(first, second, {"step": 0}, second["channel_versions"]),
        asaver.aput_writes(first, [("x", 1), ("y", "z")], "task-1"),
    )
    assert pipelines == [2]
    latest = await asaver.aget_tuple(_config("a"))
    assert latest is not None and latest.config == stored
    assert latest.checkpoint["channel_values"] == {"x": 1}
    parent = await asaver.aget_tuple(first)
    assert parent is not None and parent.pending_writes == [("task-1", "x", 1), ("task-1", "y", "z")]


async def test_an_error_reply_goes_only_to_its_own_caller(asaver: AsyncRedisSaver) -> None:
    bad = await asaver.aput(_config("bad"), empty_checkpoint(), {"step": -1}, {})
    good = await asaver.aput(_config("good"), empty_checkpoint(), {"step": -1}, {})
    # The writes hash of "bad" holds a string: its PUT_WRITES script fails (WRONGTYPE).
    await asaver.client.set(asaver.write_fields_key("bad", ""), b"not a hash")
    outcome = await asyncio.gather(
        asaver.aput_writes(bad, [("x", 1)], "t"),
        asaver.aput_writes(good, [("x", 2)], "t"),
        return_exceptions=True,
    )
    assert isinstance(outcome[0], StoreError)
    assert outcome[1] is None
    tup = await asaver.aget_tuple(good)
    assert tup is not None and tup.pending_writes == [("t", "x", 2)]


class _State(TypedDict):
    n: int
    log: Annotated[list[str], operator.add]


def _chain() -> StateGraph:
    builder = StateGraph(_State)
    for name in ("a", "b", "c"):
        builder.add_node(name, lambda s, name=name: {"n": s.get("n", 0) + 1, "log": [name]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    builder.add_edge("c", END)
    return builder


async def test_a_run_sends_fewer_round_trips_than_batches_and_resumes_intact(
    asaver: AsyncRedisSaver, pipelines: list[int]
) -> None:
    graph = _chain().compile(checkpointer=asaver)
    cfg = {"configurable": {"thread_id": f"chain-{uuid.uuid4().hex[:6]}"}}
    for _ in range(3):
        await graph.ainvoke({"log": ["in"]}, cfg)
    assert len(pipelines) < sum(pipelines), "a step's writes and its checkpoint went together"
    state = await graph.aget_state(cfg)
    assert state.values["n"] == 9
    assert state.values["log"] == ["in", "a", "b", "c"] * 3
    history = [t async for t in asaver.alist(cfg)]
    assert len(history) == 15  # input + 3 steps + the end, per run: one checkpoint per step
