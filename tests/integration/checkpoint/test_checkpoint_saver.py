"""The Redis checkpoint saver against real Redis: resume in a new process, concurrency, round trips."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.settings import Settings
from tests.integration.checkpoint.toy_graphs import counter_graph

# ---- resume after the saver and the process are recreated ------------------------
CHILD = """
import asyncio, json, operator, sys
from typing import Annotated, TypedDict
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from agent.checkpoint import AsyncRedisSaver, RedisSaver

class Notes(TypedDict, total=False):
    log: Annotated[list[str], operator.add]

def prepare(state):
    return {"log": ["prepared"]}

def review(state):
    return {"log": ["answer:" + interrupt({"question": "approve?"})]}

builder = StateGraph(Notes)
builder.add_node("prepare", prepare)
builder.add_node("review", review)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "review")
builder.add_edge("review", END)
phase, url, prefix, thread = sys.argv[1:5]
cfg = {"configurable": {"thread_id": thread}}
if phase == "start":  # sync saver in the first process
    with RedisSaver.from_conn_string(url, key_prefix=prefix) as saver:
        out = builder.compile(checkpointer=saver).invoke({"log": ["in"]}, cfg)
        print(json.dumps({"interrupt": out["__interrupt__"][0].value, "log": out["log"]}))
else:  # async saver in the second process
    async def main():
        async with AsyncRedisSaver.from_conn_string(url, key_prefix=prefix) as saver:
            graph = builder.compile(checkpointer=saver)
            before = await graph.aget_state(cfg)
            out = await graph.ainvoke(Command(resume="yes"), cfg)
            print(json.dumps({"next": list(before.next), "log": out["log"]}))
    asyncio.run(main())
"""


def _child(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_interrupt_resumes_in_a_new_process(settings: Settings, prefix: str) -> None:
    thread = f"resume-{uuid.uuid4()}"
    first = _child("start", settings.redis_url, prefix, thread)
    assert first == {"interrupt": {"question": "approve?"}, "log": ["in", "prepared"]}
    second = _child("resume", settings.redis_url, prefix, thread)
    assert second["next"] == ["review"]
    # "prepare" ran once: the second process resumed from the checkpoint, not from scratch.
    assert second["log"] == ["in", "prepared", "answer:yes"]


# ---- concurrency -------------------------------------------------------------------
async def test_twenty_async_threads_do_not_interfere(asaver: AsyncRedisSaver) -> None:
    graph = counter_graph().compile(checkpointer=asaver)
    threads = [f"conc-{i}-{uuid.uuid4().hex[:6]}" for i in range(20)]

    async def drive(i: int, tid: str) -> None:
        cfg = {"configurable": {"thread_id": tid}}
        for step in range(5):
            await graph.ainvoke({"log": [f"{i}.{step}"]}, cfg)

    await asyncio.gather(*(drive(i, t) for i, t in enumerate(threads)))
    counts = set()
    for i, tid in enumerate(threads):
        cfg = {"configurable": {"thread_id": tid}}
        state = await graph.aget_state(cfg)
        assert state.values["n"] == 5
        assert [x for x in state.values["log"] if not x.startswith("bump")] == [f"{i}.{s}" for s in range(5)]
        counts.add(len([t async for t in asaver.alist(cfg)]))
    assert counts == {15}  # 3 checkpoints per invoke, none borrowed from other threads


def test_twenty_os_threads_share_one_sync_saver(saver: RedisSaver) -> None:
    graph = counter_graph().compile(checkpointer=saver)
    threads = [f"sync-{i}-{uuid.uuid4().hex[:6]}" for i in range(20)]

    def drive(tid: str) -> int:
        cfg = {"configurable": {"thread_id": tid}}
        for _ in range(5):
            graph.invoke({"log": [tid]}, cfg)
        return graph.get_state(cfg).values["n"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(drive, threads)) == [5] * 20
    for tid in threads:
        state = graph.get_state({"configurable": {"thread_id": tid}})
        assert {x for x in state.values["log"] if not x.startswith("bump")} == {tid}


async def test_sync_saver_works_inside_a_running_loop(saver: RedisSaver) -> None:
    graph = counter_graph().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": f"loop-{uuid.uuid4()}"}}
    graph.invoke({"log": ["sync"]}, cfg)  # blocking call from the loop thread
    await graph.ainvoke({"log": ["async"]}, cfg)  # async API of the sync saver
    assert (await graph.aget_state(cfg)).values["n"] == 2


async def test_async_saver_sync_bridge_needs_another_thread(asaver: AsyncRedisSaver) -> None:
    graph = counter_graph().compile(checkpointer=asaver)
    cfg = {"configurable": {"thread_id": f"bridge-{uuid.uuid4()}"}}
    await graph.ainvoke({"log": ["x"]}, cfg)
    state = await asyncio.to_thread(graph.get_state, cfg)
    assert state.values["n"] == 1
    with pytest.raises(asyncio.InvalidStateError, match="another thread"):
        asaver.get_tuple(cfg)


# ---- round trips -------------------------------------------------------------------
async def test_get_tuple_is_one_round_trip_and_list_is_paged(asaver: AsyncRedisSaver) -> None:
    graph = counter_graph().compile(checkpointer=asaver)
    cfg = {"configurable": {"thread_id": f"rt-{uuid.uuid4()}"}}
    for _ in range(150):
        await graph.ainvoke({"log": ["x"]}, cfg)
    sent: list[int] = []
    real_send = asaver._send

    async def counting(batch: Any) -> list[Any]:
        sent.append(len(batch.commands))
        return await real_send(batch)

    asaver._send = counting  # type: ignore[method-assign]
    try:
        latest = await asaver.aget_tuple(cfg)
        assert sent == [1]
        sent.clear()
        listed = [t async for t in asaver.alist(cfg)]
        assert len(listed) == 450
        ids = [t.config["configurable"]["checkpoint_id"] for t in listed]
        assert ids == sorted(ids, reverse=True) and ids[0] == latest.checkpoint["id"]
        assert len(sent) == 5  # namespaces, then per page of 250: rows+writes, blobs
        sent.clear()
        assert len([t async for t in asaver.alist(cfg, limit=7)]) == 7
        assert len(sent) == 3
    finally:
        del asaver._send


def test_small_pages_list_the_same_history(saver: RedisSaver) -> None:
    graph = counter_graph().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": f"pages-{uuid.uuid4()}"}}
    for _ in range(100):
        graph.invoke({"log": ["x"]}, cfg)
    small = RedisSaver(saver.client, key_prefix=saver.key_prefix, list_page_size=7)
    full, paged = list(saver.list(cfg)), list(small.list(cfg))
    assert len(full) == 300 and [t.checkpoint for t in paged] == [t.checkpoint for t in full]
    assert [t.pending_writes for t in paged] == [t.pending_writes for t in full]
    before = {
        "configurable": {
            **cfg["configurable"],
            "checkpoint_id": full[100].config["configurable"]["checkpoint_id"],
        }
    }
    assert [t.config for t in small.list(cfg, before=before, limit=30)] == [t.config for t in full[101:131]]
