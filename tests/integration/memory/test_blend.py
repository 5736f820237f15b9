"""The ranked blend of memory sources per intent, on the real Neo4j and Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError
from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.memory.blend import PLANS, RetrievalPlan, blended_search
from agent.memory.facts import FactStore
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources


@dataclass
class Stores:
    """The subset of ``MemoryStores`` the blend reads (``procedures`` may be absent)."""

    facts: FactStore
    archival: ArchivalStore
    recall: RecallStore
    clock: ManualClock
    procedures: Any = None


@pytest.fixture
async def stores(resources: Resources, learner_id: str) -> AsyncIterator[Stores]:
    clock = ManualClock("2026-01-05T20:00:00+00:00")
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}")
    common = {"database": resources.database, "backlog": backlog, "clock": clock}
    neo = (resources.neo4j, resources.embeddings)
    yield Stores(FactStore(*neo, **common), ArchivalStore(*neo, **common), RecallStore(*neo, **common), clock)
    await backlog.wait_idle()
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in (learner_id, f"{learner_id}-b"):
            await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Message {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def say(stores: Stores, learner_id: str, session: str, text: str, *, fact: bool = True) -> str:
    """Log a learner message and (when ``fact``) remember it as a fact derived from it."""
    message_id = f"{learner_id}-{uuid.uuid4().hex[:8]}"
    await stores.recall.log_messages(learner_id, session, [RecallMessage(message_id, "user", text)])
    if fact:
        await stores.facts.remember(learner_id, text, episode_id=message_id)
    return message_id


async def test_contradiction_puts_the_current_fact_first_and_keeps_the_old_one(
    stores: Stores, learner_id: str
) -> None:
    stores.clock.set("2026-01-10T08:00:00+07:00")
    await say(stores, learner_id, "s1", "I live in Da Nang and study online in the evenings.")
    await stores.archival.insert(learner_id, "Learner prefers evening sessions.")
    stores.clock.set("2026-02-14T08:00:00+07:00")
    await say(stores, learner_id, "s2", "Actually, I moved to Hanoi last week for my internship.")
    stores.clock.set("2026-02-20T08:00:00+07:00")
    hits = await blended_search(
        stores, learner_id, "Where does the learner live?", "contradiction_resolution"
    )
    assert "Hanoi" in hits[0].text and hits[0].kind == "fact" and hits[0].metadata["current"]
    facts = [h for h in hits if h.kind == "fact"]
    assert [h.metadata["current"] for h in facts] == [True, False]  # the old version is still found
    assert "Da Nang" in facts[1].text
    assert hits[0].metadata["store"] == "facts"  # facts lead...
    stale = hits.index(facts[1])
    assert all(not (h.kind == "fact" and not h.metadata["current"]) for h in hits[:stale])
    assert stale == len(hits) - 1  # ...and the superseded version comes after everything current
    assert len({h.id for h in hits}) == len(hits)

    as_of = await blended_search(
        stores, learner_id, "Where does the learner live?", "simple_recall", as_of="2026-01-20T00:00:00+07:00"
    )
    assert "Da Nang" in as_of[0].text
    assert all("Hanoi" not in h.text for h in as_of)  # later facts and messages are not seen


async def test_temporal_comparison_returns_every_score_in_order(stores: Stores, learner_id: str) -> None:
    said = [
        ("2026-01-05T20:00:00+00:00", "I scored 54 out of 100 on the first statistics quiz."),
        ("2026-01-19T20:00:00+00:00", "Second statistics quiz: 71 out of 100. p-values make more sense now."),
        ("2026-02-02T20:00:00+00:00", "Third quiz done, I got 86 out of 100!"),
    ]
    for i, (when, text) in enumerate(said):
        stores.clock.set(when)
        await say(stores, learner_id, f"s{i + 1}", text)
    stores.clock.set("2026-02-03T20:00:00+00:00")
    hits = await blended_search(stores, learner_id, "statistics quiz score", PLANS["temporal_comparison"])
    found = [next(i for i, h in enumerate(hits) if score in h.text) for score in ("54", "71", "86")]
    assert found == sorted(found)
    stamps = [h.created_at for h in hits]
    assert stamps == sorted(stamps)


async def test_synthesis_expands_over_similar_and_derived_links(stores: Stores, learner_id: str) -> None:
    m1 = await say(stores, learner_id, "s1", "I practise SQL joins every evening after work.")
    await say(stores, learner_id, "s1", "I practise SQL joins every evening after my work.")
    await say(stores, learner_id, "s2", "My cat is called Miso.")
    plan = RetrievalPlan("expand_only", ("facts",), k=20, expand_depth=2)
    hits = await blended_search(stores, learner_id, "evening SQL practice", plan)
    by_store = {h.id: h.metadata["store"] for h in hits}
    assert by_store.get(m1) == "expand"  # the episode message, reached through DERIVES_FROM
    synthesis = await blended_search(stores, learner_id, "evening SQL practice", "multi_source_synthesis")
    assert m1 in {h.id for h in synthesis}
    assert {h.metadata["store"] for h in synthesis} >= {"facts", "recall"}
    assert all(h.kind != "fact" or h.metadata["store"] in ("facts", "expand") for h in synthesis)


async def test_procedural_plan_works_with_and_without_procedures(
    stores: Stores, learner_id: str, resources: Resources
) -> None:
    await say(stores, learner_id, "s1", "I write all my SQL in DBeaver.")
    hits = await blended_search(stores, learner_id, "how do I write a LEFT JOIN", "procedural")
    assert hits and all(h.metadata["store"] != "procedures" for h in hits)  # no store: skipped
    from agent.memory.procedures import ProcedureStore

    stores.procedures = ProcedureStore(
        resources.neo4j, resources.embeddings, database=resources.database, clock=stores.clock
    )
    await stores.procedures.save(
        learner_id, "write a LEFT JOIN", ["pick the table to keep", "LEFT JOIN the other", "match in ON"]
    )
    hits = await blended_search(stores, learner_id, "how do I write a LEFT JOIN", "procedural")
    assert hits[0].metadata["store"] == "procedures" and hits[0].kind == "procedure"


async def test_blend_is_scoped_to_the_learner(stores: Stores, learner_id: str) -> None:
    await say(stores, learner_id, "s1", "I live in Da Nang.")
    other = f"{learner_id}-b"
    for name in PLANS:
        hits = await blended_search(stores, other, "Where does the learner live? Da Nang", name)
        assert hits == []
    hits = await blended_search(
        stores, other, "Da Nang", "contradiction_resolution", as_of="2026-06-01T00:00:00Z"
    )
    assert hits == []


async def test_bad_arguments_are_rejected(stores: Stores, learner_id: str) -> None:
    with pytest.raises(InvalidInputError, match="valid plans"):
        await blended_search(stores, learner_id, "x", "everything")
    with pytest.raises(InvalidInputError):
        await blended_search(stores, "", "x", "simple_recall")
    with pytest.raises(InvalidInputError, match="as_of"):
        await blended_search(stores, learner_id, "x", "simple_recall", as_of="last week")
