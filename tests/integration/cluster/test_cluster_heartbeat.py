"""The heartbeat graph checkpointed on a real 3-master Redis Cluster (issue 18).

Scripted models drive the real heartbeat; the memory stores stay on the plain Redis
and Neo4j, only the checkpoint saver talks to the cluster.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.cluster import RedisCluster

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.resources import Resources
from graphs.heartbeat import make_builder
from tests.integration.checkpoint.test_checkpoint_conformance import drop_prefix
from tests.scripted_models import call, scripted


@pytest.fixture
async def cleanup(resources: Resources, learner_id: str) -> AsyncIterator[None]:
    yield
    await CoreMemoryStore(resources.redis).clear(learner_id)
    for query in (
        "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n",
        "MATCH (n:Learner {id: $l}) DETACH DELETE n",
    ):
        await resources.neo4j.execute_query(query, l=learner_id, database_=resources.database)


@pytest.fixture
async def saver(redis_cluster_url: str) -> AsyncIterator[AsyncRedisSaver]:
    prefix = f"kag:test:cluster-hb:{uuid.uuid4().hex[:12]}"
    url = redis_cluster_url.replace("redis://", "redis+cluster://", 1)
    async with AsyncRedisSaver.from_conn_string(url, key_prefix=prefix) as s:
        await s.setup()
        yield s
    drop_prefix(redis_cluster_url, prefix, cluster=True)


async def _turn(graph: Any, learner_id: str, request: str, thread: str) -> dict:
    config = {"configurable": {"thread_id": thread}}
    state = {"learner_id": learner_id, "request": request, "context": {}}
    return await graph.ainvoke(state, config, context=Context())


async def test_heartbeat_turns_checkpoint_and_resume_on_the_cluster(
    resources: Resources, saver: AsyncRedisSaver, learner_id: str, cleanup: None, redis_cluster_url: str
) -> None:
    def build(model: Any) -> Any:
        bundle = Resources(
            resources.settings,
            chat_model=model,
            embeddings=resources.embeddings,
            neo4j_driver=resources.neo4j,
            redis_client=resources.redis,
        )
        return make_builder(bundle).compile(checkpointer=saver)

    model = scripted(
        call("core_memory_append", 0, section="user_profile", content="Name: Ana"),
        "Hello Ana.",
        "You told me your name is Ana.",
    )
    graph = build(model)
    threads = [f"{learner_id}-t{i}" for i in range(2)]
    first = await _turn(graph, learner_id, "I'm Ana.", threads[0])
    assert first["response"] == "Hello Ana."
    second = await _turn(graph, learner_id, "Who am I?", threads[0])
    assert second["response"] == "You told me your name is Ana."
    assert (await CoreMemoryStore(resources.redis).read(learner_id))["user_profile"] == "Name: Ana"

    cfg = {"configurable": {"thread_id": threads[0]}}
    history = [t async for t in saver.alist(cfg)]
    assert len(history) >= 6 and history[0].checkpoint["id"] == (await saver.aget_tuple(cfg)).checkpoint["id"]
    # A fresh process-like saver (new client) reads the same state back from the cluster.
    async with AsyncRedisSaver.from_conn_string(
        redis_cluster_url, key_prefix=saver.key_prefix, cluster=True
    ) as again:
        fresh = make_builder(
            Resources(
                resources.settings,
                chat_model=scripted("unused"),
                embeddings=resources.embeddings,
                neo4j_driver=resources.neo4j,
                redis_client=resources.redis,
            )
        ).compile(checkpointer=again)
        state = await fresh.aget_state(cfg)
        assert state.values["response"] == "You told me your name is Ana."
        assert [t.checkpoint["id"] async for t in again.alist(cfg)] == [t.checkpoint["id"] for t in history]

    third = await _turn(build(scripted("Welcome back.")), learner_id, "Hi again", threads[1])
    assert third["response"] == "Welcome back."
    client = RedisCluster.from_url(redis_cluster_url)
    try:
        for tid in threads:
            keys = list(client.scan_iter(match=f"{saver.thread_base(tid)}:*"))
            assert keys and len({client.keyslot(k) for k in keys}) == 1, "a thread's keys share one slot"
        slots = {client.keyslot(saver.ns_set_key(t)) for t in threads}
        assert len(slots) == 2
    finally:
        client.close()
