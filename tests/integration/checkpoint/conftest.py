"""Fixtures of the checkpoint saver tests: a key prefix of their own, and both savers over it."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Iterator

import pytest
import redis

from agent.checkpoint import AsyncRedisSaver, RedisSaver
from agent.settings import Settings


def _drop_prefix(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(keys), 500):
            client.unlink(*keys[i : i + 500])
    finally:
        client.close()


@pytest.fixture
def prefix(settings: Settings) -> Iterator[str]:
    """A key prefix no other test uses; its keys are deleted afterwards."""
    value = f"kag:test:ckpt:{uuid.uuid4().hex[:12]}"
    yield value
    _drop_prefix(settings.redis_url, value)


@pytest.fixture
async def asaver(settings: Settings, prefix: str) -> AsyncIterator[AsyncRedisSaver]:
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        yield saver


@pytest.fixture
def saver(settings: Settings, prefix: str) -> Iterator[RedisSaver]:
    with RedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as s:
        s.setup()
        yield s
