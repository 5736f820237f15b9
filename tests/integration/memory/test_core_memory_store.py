import asyncio
import uuid

import pytest

from agent.errors import CoreMemoryLimitError, InvalidInputError
from agent.memory.core import CoreMemoryStore, core_key


@pytest.fixture
async def core(resources, learner_id):
    store = CoreMemoryStore(resources.redis, section_limit=100, ttl_seconds=3600)
    yield store
    await store.clear(learner_id)


async def test_append_replace_read(core, learner_id, resources):
    assert await core.read(learner_id) == {"user_profile": "", "current_goals": ""}
    await core.append(learner_id, "user_profile", "Name: Ana")
    sections = await core.append(learner_id, "user_profile", "Level: Beginner")
    assert sections["user_profile"] == "Name: Ana\nLevel: Beginner"
    sections = await core.replace(learner_id, "user_profile", "Beginner", "Intermediate")
    assert sections["user_profile"] == "Name: Ana\nLevel: Intermediate"
    assert (await core.read(learner_id))["user_profile"] == "Name: Ana\nLevel: Intermediate"
    ttl = await resources.redis.ttl(core_key(learner_id))
    assert 3500 < ttl <= 3600


async def test_limit_is_a_clear_error_and_nothing_is_truncated(core, learner_id):
    await core.append(learner_id, "current_goals", "x" * 90)
    with pytest.raises(CoreMemoryLimitError, match="core_memory_replace"):
        await core.append(learner_id, "current_goals", "y" * 20)
    assert (await core.read(learner_id))["current_goals"] == "x" * 90


async def test_bad_arguments(core, learner_id):
    with pytest.raises(InvalidInputError, match="section"):
        await core.append(learner_id, "User Profile!", "x")
    with pytest.raises(InvalidInputError, match="not found"):
        await core.replace(learner_id, "user_profile", "missing", "new")
    with pytest.raises(InvalidInputError, match="learner_id"):
        await core.append("bad id with spaces", "user_profile", "x")


async def test_concurrent_appends_are_all_kept(resources, learner_id):
    store = CoreMemoryStore(resources.redis, section_limit=10_000)
    await asyncio.gather(*(store.append(learner_id, "notes", f"line {i}") for i in range(30)))
    lines = (await store.read(learner_id))["notes"].splitlines()
    assert sorted(lines) == sorted(f"line {i}" for i in range(30))
    await store.clear(learner_id)


async def test_learners_are_isolated(core, learner_id):
    other = learner_id + "-b"
    await core.append(learner_id, "user_profile", "secret of A")
    assert "secret of A" not in str(await core.read(other))
    await core.clear(other)


# ----- durable core memory: Neo4j is the source of truth, Redis its cache -----


@pytest.fixture
async def durable(resources, learner_id):
    store = CoreMemoryStore(
        resources.redis,
        section_limit=100,
        ttl_seconds=3600,
        driver=resources.neo4j,
        embeddings=resources.embeddings,
        database=resources.database,
    )
    yield store
    await store.clear(learner_id)


async def _durable_sections(resources, learner_id) -> dict[str, str]:
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (:Learner {id: $l})-[:HAS_CORE]->(s:CoreSection) RETURN s.name AS name, s.text AS text",
        l=learner_id,
        database_=resources.database,
    )
    return {r["name"]: r["text"] for r in records}


async def test_core_memory_survives_its_cache_expiring(durable, learner_id, resources):
    await durable.append(learner_id, "user_profile", "Name: Ana")
    await durable.append(learner_id, "current_goals", "Learn SQL joins")
    await durable.replace(learner_id, "current_goals", "SQL joins", "Rust")
    assert await _durable_sections(resources, learner_id) == {
        "user_profile": "Name: Ana",
        "current_goals": "Learn Rust",
    }
    # A learner away for longer than the TTL: the cache key expires.
    await resources.redis.expire(core_key(learner_id), 1)
    await asyncio.sleep(1.5)
    assert not await resources.redis.exists(core_key(learner_id))
    sections = await durable.read(learner_id)
    assert sections == {"user_profile": "Name: Ana", "current_goals": "Learn Rust"}
    # Read-through re-filled the cache, with the TTL.
    assert await resources.redis.hgetall(core_key(learner_id)) == sections
    assert 3500 < await resources.redis.ttl(core_key(learner_id)) <= 3600


async def test_a_write_on_a_cold_cache_keeps_the_other_sections(durable, learner_id, resources):
    await durable.append(learner_id, "user_profile", "Name: Ana")
    await durable.append(learner_id, "hobbies", "chess")
    await resources.redis.delete(core_key(learner_id))
    sections = await durable.append(learner_id, "current_goals", "Learn Rust")
    assert sections == {"user_profile": "Name: Ana", "current_goals": "Learn Rust", "hobbies": "chess"}
    assert await _durable_sections(resources, learner_id) == sections
    # The limits still hold on re-filled sections.
    with pytest.raises(CoreMemoryLimitError):
        await durable.append(learner_id, "user_profile", "z" * 100)


async def test_a_stale_version_never_overwrites_a_newer_section(durable, learner_id, resources):
    await durable.append(learner_id, "user_profile", "new text")
    assert durable.graph is not None
    await durable.graph.apply_backlog_entry(
        "core.section", {"learner_id": learner_id, "name": "user_profile", "text": "old text", "version": 1}
    )
    assert (await _durable_sections(resources, learner_id))["user_profile"] == "new text"


async def test_clear_and_erasure_remove_the_durable_copy(durable, learner_id, resources):
    from agent.memory.erasure import erase_learner

    await durable.append(learner_id, "user_profile", "Name: Ana")
    await durable.clear(learner_id)
    assert await _durable_sections(resources, learner_id) == {}
    assert (await durable.read(learner_id))["user_profile"] == ""
    await durable.append(learner_id, "user_profile", "Name: Ana")
    await erase_learner(resources, learner_id)
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (s:CoreSection {learner_id: $l}) RETURN count(s) AS n",
        l=learner_id,
        database_=resources.database,
    )
    assert records[0]["n"] == 0
    assert (await durable.read(learner_id))["user_profile"] == ""


async def test_degraded_mode_parks_section_writes_and_replays_them(resources, learner_id, caplog):
    import neo4j

    from agent.errors import StoreUnavailableError
    from agent.memory.backlog import WriteBacklog

    backlog = WriteBacklog(resources.redis, prefix=f"kagtest{uuid.uuid4().hex[:8]}", auto_replay=False)
    dead = neo4j.AsyncGraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "x"), connection_timeout=1)
    healthy = CoreMemoryStore(
        resources.redis, driver=resources.neo4j, embeddings=resources.embeddings, database=resources.database
    )
    down = CoreMemoryStore(
        resources.redis,
        driver=dead,
        embeddings=resources.embeddings,
        database=resources.database,
        backlog=backlog,
    )
    try:
        await healthy.append(learner_id, "user_profile", "Name: Ana")
        # Neo4j goes down; the cache is warm, so writes are applied in Redis and parked.
        sections = await down.append(learner_id, "current_goals", "Learn Rust")
        assert sections["current_goals"] == "Learn Rust"
        assert await backlog.pending(learner_id) == 1
        assert "current_goals" not in await _durable_sections(resources, learner_id)
        assert (await down.read(learner_id))["current_goals"] == "Learn Rust"
        # A cold cache with Neo4j down: reads answer empty sections, writes are refused.
        await resources.redis.delete(core_key(learner_id))
        assert await down.read(learner_id) == {"user_profile": "", "current_goals": ""}
        with pytest.raises(StoreUnavailableError, match="cold"):
            await down.append(learner_id, "user_profile", "Level: Beginner")
        # Neo4j is back: the parked write replays into the durable copy, and the cache re-fills.
        assert healthy.graph is not None
        assert await backlog.replay(healthy.graph, learner_id=learner_id) == 1
        assert await healthy.read(learner_id) == {"user_profile": "Name: Ana", "current_goals": "Learn Rust"}
    finally:
        await dead.close()
        await healthy.clear(learner_id)
        await resources.redis.delete(backlog.stream_key(learner_id), backlog.learners_key)
