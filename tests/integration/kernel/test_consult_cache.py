"""The consultation cache on the real Redis: one entry per request, valid at one write generation."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.kernel.consult.cache import ConsultCache
from agent.kernel.consult.models import parse_request
from agent.kernel.stream import KernelStream
from agent.resources import Resources


@pytest.fixture
async def cache(resources: Resources) -> AsyncIterator[tuple[ConsultCache, KernelStream]]:
    """A cache over a private key prefix (its keys are deleted afterwards)."""
    stream = KernelStream(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}")
    yield ConsultCache(resources.redis, stream), stream
    keys = [k async for k in resources.redis.scan_iter(match=f"{stream.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def test_an_entry_is_served_at_its_generation_only(
    cache: tuple[ConsultCache, KernelStream], learner_id: str
) -> None:
    consults, stream = cache
    request = parse_request({"query": "How do joins work?"})
    first = await consults.lookup(learner_id, request)
    assert first.payload is None and first.slot is not None
    assert await consults.put(first.slot, {"synthesized_brief": "joins"})
    assert (await consults.lookup(learner_id, request)).payload == {"synthesized_brief": "joins"}

    await stream.bump(f"{learner_id}-other")  # another learner's write: still served
    assert (await consults.lookup(learner_id, request)).payload == {"synthesized_brief": "joins"}

    await stream.bump(learner_id)  # the learner's own write: a miss, then the new entry
    after = await consults.lookup(learner_id, request)
    assert after.payload is None and after.slot is not None
    assert after.slot["key"] == first.slot["key"] and after.slot["generation"] != first.slot["generation"]
    assert await consults.put(after.slot, {"synthesized_brief": "joins, again"})
    assert (await consults.lookup(learner_id, request)).payload == {"synthesized_brief": "joins, again"}


async def test_a_payload_that_raced_a_write_is_never_served(
    cache: tuple[ConsultCache, KernelStream], learner_id: str
) -> None:
    consults, stream = cache
    request = parse_request({"query": "Where do I live?"})
    before = await consults.lookup(learner_id, request)  # read, then the search runs...
    await stream.bump(learner_id)  # ...while the learner writes
    assert await consults.put(before.slot, {"synthesized_brief": "stale"})
    assert (await consults.lookup(learner_id, request)).payload is None
