import asyncio

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
