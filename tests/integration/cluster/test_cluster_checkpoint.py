"""The Redis checkpoint saver on a real 3-master Redis Cluster (issue 18).

The conformance suite, graphs with interrupts and subgraph namespaces, delete, prune,
copy and delete-for-runs spread over threads in different slots, owners, and the
``redis+cluster://`` URL scheme.
"""

from __future__ import annotations

import asyncio
import operator
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Annotated, Any, TypedDict

import pytest
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from redis.asyncio.cluster import RedisCluster as AsyncRedisCluster

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.checkpoint.owners import owner_key
from agent.errors import ThreadOwnedError
from tests.integration.checkpoint.test_checkpoint_conformance import drop_prefix, run_conformance


def cluster_url(url: str) -> str:
    """The fixture's ``redis://`` URL as the saver's ``redis+cluster://`` form."""
    return url.replace("redis://", "redis+cluster://", 1)


@pytest.fixture
def prefix(redis_cluster_url: str) -> Iterator[str]:
    """A key prefix of this test's own, deleted afterwards."""
    value = f"kag:test:cluster:{uuid.uuid4().hex[:12]}"
    yield value
    drop_prefix(redis_cluster_url, value, cluster=True)


@pytest.fixture
async def asaver(redis_cluster_url: str, prefix: str) -> AsyncIterator[AsyncRedisSaver]:
    async with AsyncRedisSaver.from_conn_string(cluster_url(redis_cluster_url), key_prefix=prefix) as saver:
        await saver.setup()
        yield saver


@pytest.mark.parametrize("kind", ["AsyncRedisSaver", "RedisSaver"])
async def test_conformance_full_on_the_cluster(redis_cluster_url: str, kind: str) -> None:
    await run_conformance(kind, redis_cluster_url, cluster=True)


class Notes(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    n: int


def _review_graph() -> StateGraph:
    def prepare(state: Notes) -> Notes:
        return {"log": ["prepared"]}

    def review(state: Notes) -> Notes:
        return {"log": [f"answer:{interrupt({'question': 'approve?'})}"]}

    child = StateGraph(Notes)
    child.add_node("prepare", prepare)
    child.add_edge(START, "prepare")
    child.add_edge("prepare", END)
    builder = StateGraph(Notes)
    builder.add_node("sub", child.compile())  # a subgraph: its own checkpoint namespace
    builder.add_node("review", review)
    builder.add_edge(START, "sub")
    builder.add_edge("sub", "review")
    builder.add_edge("review", END)
    return builder


def _threads_on_every_master(saver: AsyncRedisSaver, per_master: int) -> list[str]:
    """Random thread ids, ``per_master`` in distinct slots on each master.

    Random ids alone miss a master now and then; drawing until each master has its
    share keeps the test about the saver, not about luck.
    """
    masters = {node.name for node in saver.client.get_primaries()}
    chosen: dict[str, list[str]] = {name: [] for name in masters}
    slots: set[int] = set()
    while any(len(ids) < per_master for ids in chosen.values()):
        tid = f"cl-{uuid.uuid4().hex[:8]}"
        key = saver.ns_set_key(tid)
        slot, node = saver.client.keyslot(key), saver.client.get_node_from_key(key).name
        if slot not in slots and len(chosen[node]) < per_master:
            slots.add(slot)
            chosen[node].append(tid)
    return [tid for ids in zip(*chosen.values(), strict=True) for tid in ids]


async def test_threads_in_many_slots_interrupt_resume_prune_copy_and_delete(asaver: AsyncRedisSaver) -> None:
    graph = _review_graph().compile(checkpointer=asaver)
    threads = _threads_on_every_master(asaver, per_master=4)
    slots = {asaver.client.keyslot(asaver.ns_set_key(t)) for t in threads}
    nodes = {asaver.client.get_node_from_key(asaver.ns_set_key(t)).name for t in threads}
    assert len(slots) == 12 and len(nodes) == 3, "the threads should cover every master"

    async def drive(g: Any, tid: str) -> list[str]:
        def cfg() -> dict:  # the LangGraph server names each run in the configurable
            return {"configurable": {"thread_id": tid, "run_id": str(uuid.uuid4())}}

        out = await g.ainvoke({"log": [tid]}, cfg())
        assert out["__interrupt__"][0].value == {"question": "approve?"}
        return (await g.ainvoke(Command(resume="ok"), cfg()))["log"]

    reference = _review_graph().compile(checkpointer=InMemorySaver())
    expected = [(await drive(reference, t)) for t in threads]
    assert await asyncio.gather(*(drive(graph, t) for t in threads)) == expected

    listed = [t async for t in asaver.alist(None)]
    assert {t.config["configurable"]["thread_id"] for t in listed} >= set(threads)
    first = {"configurable": {"thread_id": threads[0]}}
    history = [t async for t in asaver.alist(first)]
    assert len(history) >= 4

    await asaver.aprune([threads[0]], strategy="keep_latest")
    namespaces = {t.config["configurable"]["checkpoint_ns"] for t in history}
    assert len(namespaces) == 2  # the root and the subgraph's
    assert len([t async for t in asaver.alist(first)]) == 2, "the newest checkpoint per namespace"
    await asaver.acopy_thread(threads[1], "copy-" + threads[1])
    copied = await graph.aget_state({"configurable": {"thread_id": "copy-" + threads[1]}})
    assert copied.values["log"] == expected[1]

    runs = {t.metadata.get("run_id") async for t in asaver.alist({"configurable": {"thread_id": threads[2]}})}
    assert len(runs) == 2 and None not in runs
    await asaver.adelete_for_runs(list(runs))
    assert await asaver.aget_tuple({"configurable": {"thread_id": threads[2]}}) is None
    await asaver.adelete_thread(threads[3])
    assert [t async for t in asaver.alist({"configurable": {"thread_id": threads[3]}})] == []
    members = {m.decode() for m in await asaver.client.smembers(asaver.threads_key())}
    assert threads[3] not in members and threads[2] not in members and threads[4] in members


async def test_owners_on_the_cluster(asaver: AsyncRedisSaver) -> None:
    from langgraph.checkpoint.base import empty_checkpoint

    def cfg(learner: str) -> dict:
        return {
            "configurable": {"thread_id": "owned", "checkpoint_ns": "", "langgraph_auth_user_id": learner}
        }

    await asaver.aput(cfg("ada"), empty_checkpoint(), {"step": 0}, {})
    assert await asaver.client.get(owner_key(asaver, "owned")) == b"ada"
    assert await asaver.aget_tuple(cfg("bob")) is None
    with pytest.raises(ThreadOwnedError):
        await asaver.aput(cfg("bob"), empty_checkpoint(), {"step": 1}, {})


def test_sync_saver_and_a_passed_cluster_client(redis_cluster_url: str, prefix: str) -> None:
    with RedisSaver.from_conn_string(redis_cluster_url, key_prefix=prefix, cluster=True) as saver:
        assert saver.cluster
        saver.setup()
        graph = _review_graph().compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": f"sync-{uuid.uuid4().hex[:6]}"}}
        graph.invoke({"log": ["x"]}, cfg)
        assert graph.get_state(cfg).next == ("review",)
        assert graph.invoke(Command(resume="y"), cfg)["log"][-2:] == ["prepared", "answer:y"]


async def test_scripts_are_reloaded_after_a_flush(redis_cluster_url: str, prefix: str) -> None:
    client = AsyncRedisCluster.from_url(redis_cluster_url, decode_responses=False)
    try:
        saver = AsyncRedisSaver(client, key_prefix=prefix)
        await saver.setup()
        await client.script_flush()  # every primary forgets the scripts (as after a restart)
        graph = _review_graph().compile(checkpointer=saver)
        cfg = {"configurable": {"thread_id": f"flush-{uuid.uuid4().hex[:6]}"}}
        await graph.ainvoke({"log": ["x"]}, cfg)
        assert (await graph.aget_state(cfg)).next == ("review",)
    finally:
        await client.aclose()
