"""LangGraph's checkpointer conformance suite against both Redis savers.

``run_conformance`` is shared with ``tests/integration/cluster``, which runs the same
suite against a real Redis Cluster.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import redis
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES
from langgraph.checkpoint.conformance.report import ProgressCallbacks
from redis.cluster import RedisCluster

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.settings import Settings


def drop_prefix(url: str, prefix: str, *, cluster: bool = False) -> None:
    """Delete every key under ``prefix`` (on each primary of a cluster), one key per command."""
    client = RedisCluster.from_url(url) if cluster else redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.unlink(key)
        pipe.execute()
    finally:
        client.close()


async def run_conformance(kind: str, url: str, *, cluster: bool = False) -> None:
    """Run the full suite for ``kind`` on ``url`` and assert FULL conformance."""
    prefix = f"kag:test:conformance:{uuid.uuid4().hex[:12]}"

    async def lifespan() -> AsyncIterator[None]:
        yield
        drop_prefix(url, prefix, cluster=cluster)

    @checkpointer_test(name=kind, lifespan=lifespan)
    async def factory() -> AsyncIterator[BaseCheckpointSaver]:
        if kind == "AsyncRedisSaver":
            async with AsyncRedisSaver.from_conn_string(url, key_prefix=prefix, cluster=cluster) as saver:
                await saver.setup()
                yield saver
        else:
            with RedisSaver.from_conn_string(url, key_prefix=prefix, cluster=cluster) as saver:
                saver.setup()
                yield saver

    report = await validate(factory, progress=ProgressCallbacks.default())
    report.print_report()
    failures = [f for r in report.results.values() for f in r.failures]
    assert failures == []
    assert set(report.results) == {c.value for c in ALL_CAPABILITIES}
    assert all(r.detected and r.passed for r in report.results.values()), report.to_dict()
    assert report.conformance_level() == "FULL"
    assert sum(r.tests_passed for r in report.results.values()) > 80


@pytest.mark.parametrize("kind", ["AsyncRedisSaver", "RedisSaver"])
async def test_conformance_full(settings: Settings, kind: str) -> None:
    await run_conformance(kind, settings.redis_url)
