"""Erasure with a store down: an error naming what is left, never "erased"; a second run finishes.

The store is really unreachable (a client pointed at a port nobody listens on), nothing is
mocked; the Redis client's backoffs between its connection attempts are counted, not slept.
The learner's data is planted through a heartbeat run checkpointed in Redis (its owner
recorded, as the CLI does) and a core-memory edit; after the second erasure a scan of every
Redis key and Neo4j property finds neither the learner's word nor their id.
"""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import uuid

import pytest
import redis.asyncio.retry

from agent.checkpoint import AsyncRedisSaver
from agent.checkpoint.owners import owned_config
from agent.context import Context
from agent.memory.core import CoreMemoryStore, core_key
from agent.memory.erasure import ErasureIncompleteError, erase_learner, owned_nodes
from agent.redis_retry import RETRIES
from agent.resources import Resources
from graphs.heartbeat import make_builder
from tests.integration.erasure_scan import neo4j_hits, redis_hits

pytestmark = pytest.mark.integration

WORD = "marmalopsis"
"""A word that cannot occur in ids, hashes or timestamps."""


def closed_port() -> int:
    """A loopback port nobody listens on."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def plant(resources: Resources, learner: str) -> None:
    """A heartbeat run (checkpoints owned by the learner) and a core-memory edit, both with WORD."""
    prefix = resources.settings.checkpoint_prefix or "kag:ckpt"
    async with AsyncRedisSaver.from_conn_string(resources.settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        graph = make_builder(resources).compile(checkpointer=saver)
        said = {"learner_id": learner, "request": f"My favourite word is {WORD}."}
        await graph.ainvoke(said, owned_config(f"t-{uuid.uuid4().hex[:8]}", learner), context=Context())
    await CoreMemoryStore(resources.redis).append(learner, "user_profile", f"Likes the word {WORD}")


async def assert_nothing_left(resources: Resources, learner: str) -> None:
    """No key or value in Redis, no property in Neo4j holds WORD or the learner id."""
    assert await redis_hits(resources.settings.redis_url, [WORD, learner]) == {WORD: [], learner: []}
    assert await neo4j_hits(resources, [WORD, learner]) == {WORD: [], learner: []}


@pytest.fixture
async def learner(resources: Resources):
    learner_id = f"down-{uuid.uuid4().hex[:10]}"
    yield learner_id
    await erase_learner(resources, learner_id)


async def test_redis_down_names_what_is_left_and_a_second_run_finishes(
    resources: Resources, learner: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    await plant(resources, learner)
    settings = dataclasses.replace(resources.settings, redis_url=f"redis://127.0.0.1:{closed_port()}/0")
    down = Resources(settings, embeddings=resources.embeddings)  # its own clients: closed below
    slept: list[float] = []

    async def backoff(seconds: float) -> None:  # counted, not slept: every attempt still connects
        slept.append(seconds)
        await asyncio.sleep(0)

    try:
        with monkeypatch.context() as patched, pytest.raises(ErasureIncompleteError) as failed:
            patched.setattr(redis.asyncio.retry, "sleep", backoff)
            await erase_learner(down, learner)
    finally:
        await down.aclose()
    # Each Redis command the erasure tried waited out its whole retry budget before giving up.
    assert slept and len(slept) % RETRIES == 0, len(slept)
    message, report = str(failed.value), failed.value.report
    assert "incomplete" in message and "redis: checkpoints of the learner's threads" in message
    assert list(report.left) == ["redis"] and not report.complete
    assert report.removed["neo4j"]["learner"] == 1, report.removed  # the reachable store went
    assert await resources.redis.exists(core_key(learner)), "what is left is really left"
    assert await owned_nodes(resources, learner) == 0

    again = await erase_learner(resources, learner)
    assert again.complete and again.removed["redis"]["threads"] == 1 and again.removed["redis"]["keys"] > 0
    await assert_nothing_left(resources, learner)


async def test_neo4j_down_names_what_is_left_and_a_second_run_finishes(
    resources: Resources, learner: str
) -> None:
    await plant(resources, learner)
    settings = dataclasses.replace(resources.settings, neo4j_uri=f"bolt://127.0.0.1:{closed_port()}")
    down = Resources(settings, embeddings=resources.embeddings)
    try:
        with pytest.raises(ErasureIncompleteError) as failed:
            await erase_learner(down, learner)
    finally:
        await down.aclose()
    report = failed.value.report
    assert list(report.left) == ["neo4j"] and "notes, memories" in str(failed.value)
    assert report.removed["redis"]["threads"] == 1, report.removed
    assert await owned_nodes(resources, learner) > 0, "what is left is really left"

    again = await erase_learner(resources, learner)
    assert again.complete and again.removed["neo4j"]["learner"] == 1
    await assert_nothing_left(resources, learner)


async def test_a_worker_that_drains_after_the_erasure_recreates_no_key(
    resources: Resources, learner: str
) -> None:
    from agent.kernel.stream import KernelStream

    kernel = KernelStream(resources.redis, prefix=resources.settings.kernel_prefix)
    await kernel.enqueue(learner, "recall.log", {"text": WORD})
    assert await kernel.active_learners() and learner in await kernel.active_learners()
    await erase_learner(resources, learner)
    # A worker that listed the learner as active before the erasure reads their stream after it.
    assert await kernel.read(learner, "worker-1", 10, claim_idle_ms=0) == []
    assert await kernel.ack(learner, []) == 0
    await assert_nothing_left(resources, learner)
