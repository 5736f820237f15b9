"""The saver's history bound: when a put trims, and what ``keep`` accepts (no Redis)."""

from __future__ import annotations

import pytest
import redis.asyncio as aioredis

from agent.checkpoint import AsyncRedisSaver
from agent.checkpoint.ops import trim_due
from agent.errors import InvalidInputError


def test_a_put_trims_only_past_keep_plus_the_slack() -> None:
    assert not trim_due(10_000, None)  # no bound: never
    assert not trim_due(30, 20) and trim_due(31, 20)  # slack of at least 10
    assert not trim_due(550, 500) and trim_due(551, 500)  # a tenth of keep
    assert trim_due(2, 1) is False and trim_due(12, 1) is True


@pytest.mark.parametrize("keep", [0, -3, True, 2.5])
async def test_keep_must_be_a_positive_count(keep: object) -> None:
    client = aioredis.Redis()  # never connected: construction checks its arguments only
    with pytest.raises(InvalidInputError, match="keep"):
        AsyncRedisSaver(client, keep=keep)  # type: ignore[arg-type]
    await client.aclose()
