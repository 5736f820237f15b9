"""``agent.graphdb.schema.ensure_schema``: one setup per driver, database and key."""

from __future__ import annotations

import asyncio

import pytest

from agent.graphdb.schema import ensure_schema


class Driver:
    """Stands in for ``neo4j.AsyncDriver`` (only identity and weak references matter)."""


async def test_concurrent_callers_share_one_setup() -> None:
    driver, runs = Driver(), []

    async def setup() -> None:
        runs.append("memory")
        await asyncio.sleep(0.01)

    results = await asyncio.gather(*(ensure_schema(driver, "neo4j", setup, key="memory") for _ in range(5)))
    assert runs == ["memory"] and sorted(results) == [False] * 4 + [True]
    assert not await ensure_schema(driver, "neo4j", setup, key="memory")
    # Another database, key or driver is a separate setup.
    assert await ensure_schema(driver, "other", setup, key="memory")
    assert await ensure_schema(driver, "neo4j", setup, key="notes")
    assert await ensure_schema(Driver(), "neo4j", setup, key="memory")
    assert len(runs) == 4


async def test_a_failed_setup_is_retried_and_nesting_another_key_does_not_deadlock() -> None:
    driver, runs = Driver(), []

    async def failing() -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await ensure_schema(driver, "neo4j", failing, key="notes")

    async def inner() -> None:
        runs.append("memory")

    async def outer() -> None:  # e.g. the notes setup writes through a store that sets up memory
        await ensure_schema(driver, "neo4j", inner, key="memory")
        runs.append("notes")

    assert await asyncio.wait_for(ensure_schema(driver, "neo4j", outer, key="notes"), timeout=2)
    assert runs == ["memory", "notes"]
