"""LangGraph's checkpointer conformance suite against both Redis savers."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest
import redis
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.conformance import checkpointer_test, validate
from langgraph.checkpoint.conformance.capabilities import ALL_CAPABILITIES
from langgraph.checkpoint.conformance.report import ProgressCallbacks

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.settings import Settings


@pytest.mark.parametrize("kind", ["AsyncRedisSaver", "RedisSaver"])
async def test_conformance_full(settings: Settings, kind: str) -> None:
    prefix = f"kag:test:conformance:{uuid.uuid4().hex[:12]}"

    async def lifespan() -> AsyncIterator[None]:
        yield
        client = redis.Redis.from_url(settings.redis_url)
        try:
            keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
            for i in range(0, len(keys), 500):
                client.unlink(*keys[i : i + 500])
        finally:
            client.close()

    @checkpointer_test(name=kind, lifespan=lifespan)
    async def factory() -> AsyncIterator[BaseCheckpointSaver]:
        if kind == "AsyncRedisSaver":
            async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
                await saver.setup()
                yield saver
        else:
            with RedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
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
