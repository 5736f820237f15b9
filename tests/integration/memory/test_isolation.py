"""Learner B never sees learner A's memories or messages, whatever B types."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agent.errors import InvalidInputError
from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources
from agent.search.recipes import RECIPES

SECRET = "Alpha secret: the vault code is 7391 banana"
CRAFTED = [
    "' OR 1=1 //",
    "}) MATCH (n) RETURN n //",
    "text:* OR learner_id:*",
    "learner_key:* OR content:*",
    "*",
    "\\",
    '"',
    "   ",
    "\n\t",
    "?",
    "vault code banana",
    SECRET,
    "banana 7391 vault " * 600,  # ~10 KB
    "x" * 10_000,
    "(((( [[[ {{{ ~~~ ^^^ !!! &&& |||",
]


@dataclass
class World:
    archival: ArchivalStore
    recall: RecallStore
    backlog: WriteBacklog
    a: str
    b: str
    b_ids: set[str]


@pytest.fixture
async def world(resources: Resources, learner_id: str) -> AsyncIterator[World]:
    """Learner A holds the secret; learner B has unrelated data of its own."""
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=3600)
    archival = ArchivalStore(
        resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog
    )
    recall = RecallStore(resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog)
    a, b = f"{learner_id}-a", f"{learner_id}-b"
    await archival.insert(a, SECRET, tags=["vault"])
    await archival.write_summary(
        a, f"Summary: {SECRET}", message_ids=[], previous_summary_id=None, session_id="sa"
    )
    await recall.log_messages(a, "sa", [RecallMessage(id=f"{a}-m", role="user", content=SECRET)])
    b_ids = {(await archival.insert(b, "Learner B likes graph databases")).id}
    b_ids.add(f"{b}-m")
    await recall.log_messages(
        b, "sb", [RecallMessage(id=f"{b}-m", role="user", content="B asks about Cypher")]
    )
    yield World(archival, recall, backlog, a, b, b_ids)
    await backlog.wait_idle()
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in (a, b, f"{learner_id}-empty"):
            await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Message {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


def assert_only_b(world: World, page: object, label: str) -> None:
    for hit in page.results:  # type: ignore[attr-defined]
        assert hit.id in world.b_ids, label
        assert "vault" not in hit.text, label


@pytest.mark.parametrize("recipe", sorted(RECIPES))
async def test_archival_and_recall_search_never_cross_learners(world: World, recipe: str) -> None:
    # A can find its own secret, so the data is there to leak.
    own = await world.archival.search(world.a, "vault code", recipe=recipe)
    assert any("vault" in h.text for h in own.results)
    for query in CRAFTED:
        for page_no in (0, 1):
            page = await world.archival.search(world.b, query, recipe=recipe, page=page_no)
            assert_only_b(world, page, f"archival {recipe} {query[:30]!r}")
            page = await world.recall.search(world.b, query, recipe=recipe, page=page_no)
            assert_only_b(world, page, f"recall {recipe} {query[:30]!r}")
        empty = await world.archival.search(f"{world.a[:-2]}-empty", query, recipe=recipe)
        assert empty.results == []


async def test_degraded_redis_reads_are_isolated_too(world: World) -> None:
    world.backlog.mark_down("simulated outage")  # retry_interval=3600: stays in Redis mode
    try:
        for query in CRAFTED:
            page = await world.archival.search(world.b, query)
            assert page.degraded
            assert_only_b(world, page, f"degraded archival {query[:30]!r}")
            page = await world.recall.search(world.b, query)
            assert page.degraded
            assert_only_b(world, page, f"degraded recall {query[:30]!r}")
        hit = await world.archival.search(world.a, "vault code")
        assert hit.degraded and "vault" in hit.results[0].text
    finally:
        world.backlog.mark_up()


async def test_get_count_and_id_reuse_are_scoped(world: World) -> None:
    assert await world.recall.get(world.b, [f"{world.a}-m"]) == []
    assert await world.recall.count(world.b) == 1
    with pytest.raises(InvalidInputError, match="another learner"):
        await world.recall.log_messages(
            world.b, "sb", [RecallMessage(id=f"{world.a}-m", role="user", content="hijack")]
        )
    [mine] = await world.recall.get(world.a, [f"{world.a}-m"])
    assert mine.content == SECRET
    # B cannot attach A's message as a source or summarise it.
    record = await world.archival.insert(world.b, "B's insight", source_ids=[f"{world.a}-m"])
    assert record.linked_sources == 0
    world.b_ids.add(record.id)
    summary = await world.archival.write_summary(
        world.b,
        "B's summary",
        message_ids=[f"{world.a}-m"],
        previous_summary_id=None,
        session_id="sb",
    )
    world.b_ids.add(summary.id)
    page = await world.archival.search(world.b, "vault")
    assert_only_b(world, page, "search beside A's message")
