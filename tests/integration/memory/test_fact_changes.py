"""New values told in other words, on the real Neo4j: the write path and the read-time net (issue 39)."""

from __future__ import annotations

import random
import string
from collections.abc import AsyncIterator

import pytest

from agent.clock import ManualClock
from agent.memory.facts import FactStore
from agent.resources import Resources


@pytest.fixture
def clock() -> ManualClock:
    """The fact store's clock (a test sets it per session)."""
    return ManualClock("2026-01-05T09:00:00Z")


@pytest.fixture
async def facts(resources: Resources, learner_id: str, clock: ManualClock) -> AsyncIterator[FactStore]:
    """A fact store on ``clock``; removes the learner's facts after."""
    store = FactStore(resources.neo4j, resources.embeddings, database=resources.database, clock=clock)
    yield store
    async with resources.neo4j.session(database=resources.database) as session:
        await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)


async def test_items_of_a_numbered_series_never_close_each_other(facts: FactStore, learner_id: str) -> None:
    rng = random.Random(39)
    for trial in range(6):
        w1, w2, w3 = ("".join(rng.choices(string.ascii_lowercase + string.digits, k=9)) for _ in range(3))
        lid = f"{learner_id}-{trial}"
        written = [
            await facts.remember(lid, text)
            for text in (f"Note one: {w1}.", f"Note two: {w2} on its own.", f"Note three: {w1} with {w3}.")
        ]
        assert all(r.superseded == [] for r in written), [r.content for r in written if r.superseded]
        assert all(f.current for f in await facts.history(lid))
        async with facts.driver.session(database=facts.database) as session:
            await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)


async def test_a_home_in_a_compound_statement_is_shown_as_was_until_the_new_one(
    facts: FactStore, learner_id: str, clock: ManualClock
) -> None:
    clock.set("2026-01-05T09:00:00+07:00")
    da_nang = await facts.remember(learner_id, "I live in Da Nang and study SQL online in the evenings.")
    await facts.remember(learner_id, "My SQL course has twelve modules.")
    clock.set("2026-03-02T09:00:00+07:00")
    hanoi = await facts.remember(learner_id, "Since last week I've been living in Hanoi, for my internship.")
    assert hanoi.superseded == [] and da_nang.current  # not near-certain at write time: both stay open
    page = await facts.search(learner_id, "Where does the learner live?")
    places = {h.id: i for i, h in enumerate(page.results)}
    assert places[hanoi.id] < places[da_nang.id]
    assert page.results[places[da_nang.id]].metadata["was_until"] == hanoi.valid_from
    assert "was_until" not in page.results[places[hanoi.id]].metadata


async def test_a_new_instrument_told_without_change_words_ranks_first_with_was_until(
    facts: FactStore, learner_id: str, clock: ManualClock
) -> None:
    clock.set("2026-02-02T18:00:00+01:00")
    upright = await facts.remember(learner_id, "I practise on a battered upright piano in the church hall.")
    clock.set("2026-03-09T18:00:00+01:00")
    kawai = await facts.remember(
        learner_id, "A Kawai digital piano arrived on Tuesday, and my daily practice happens on it now."
    )
    assert kawai.superseded == [] and upright.current  # not near-certain at write time: both stay open
    page = await facts.search(learner_id, "What instrument does the learner practise on?")
    places = {h.id: i for i, h in enumerate(page.results)}
    assert places[kawai.id] < places[upright.id]
    assert page.results[places[upright.id]].metadata["was_until"] == kawai.valid_from
