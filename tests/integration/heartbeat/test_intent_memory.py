"""The intent of a question about a value that may have changed is settled by the learner's facts.

"What town is the learner based in?" asks for one value either way; it calls for the current
version among older ones (``contradiction_resolution``) only when memory holds more than one
(real Neo4j, ``agent.heartbeat.effort.classify``).
"""

from __future__ import annotations

import pytest

from agent.heartbeat.effort import classify, classify_offline
from agent.language.intents import reading
from agent.memory.stores import MemoryStores
from agent.resources import Resources

QUESTION = "What town is the learner based in?"


@pytest.fixture
async def stores(resources: Resources, learner_id: str):
    """The stores over the shared clients; the learner's facts are deleted afterwards."""
    yield MemoryStores.wire(resources)
    await resources.neo4j.execute_query(
        "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n", l=learner_id, database_=resources.database
    )


async def test_one_version_is_a_plain_recall(stores: MemoryStores, learner_id: str) -> None:
    assert reading(QUESTION) == ("simple_recall", True), "the words leave it to memory"
    await stores.facts.remember(learner_id, "I live in Paris", valid_from="2026-01-05T00:00:00+00:00")
    assert await classify(stores.facts, learner_id, QUESTION) == "simple_recall"


async def test_a_value_with_history_needs_the_current_version(stores: MemoryStores, learner_id: str) -> None:
    await stores.facts.remember(learner_id, "I live in Paris", valid_from="2026-01-05T00:00:00+00:00")
    await stores.facts.remember(learner_id, "I moved to Hanoi", valid_from="2026-02-20T00:00:00+00:00")
    assert classify_offline(QUESTION) == "simple_recall", "the words alone cannot tell"
    assert await classify(stores.facts, learner_id, QUESTION) == "contradiction_resolution"


async def test_an_unchanged_value_beside_a_changed_one_is_a_plain_recall(
    stores: MemoryStores, learner_id: str
) -> None:
    await stores.facts.remember(learner_id, "I live in Paris", valid_from="2026-01-05T00:00:00+00:00")
    await stores.facts.remember(learner_id, "I moved to Hanoi", valid_from="2026-02-20T00:00:00+00:00")
    await stores.facts.remember(learner_id, "My cat is called Miso", valid_from="2026-01-05T00:00:00+00:00")
    assert reading("What is the learner's cat called?")[1], "a one-value question asks memory"
    assert await classify(stores.facts, learner_id, "What is the learner's cat called?") == "simple_recall"
    # memory holding nothing about a question leaves the words
    assert await classify(stores.facts, learner_id, "What are inner joins?") == "simple_recall"
    assert await classify(stores.facts, learner_id, "How do I write a LEFT JOIN?") == "procedural"
    assert await classify(None, learner_id, QUESTION) == "simple_recall"


async def test_classifying_does_not_touch_the_facts(
    stores: MemoryStores, resources: Resources, learner_id: str
) -> None:
    await stores.facts.remember(learner_id, "I live in Paris", valid_from="2026-01-05T00:00:00+00:00")
    await stores.facts.remember(learner_id, "I moved to Hanoi", valid_from="2026-02-20T00:00:00+00:00")

    async def reads() -> list[tuple[str, int | None, float | None]]:
        records, _, _ = await resources.neo4j.execute_query(
            "MATCH (f:Fact) WHERE f.learner_id = $l RETURN f.id AS id, f.access_count AS n, "
            "f.activation AS a ORDER BY id",
            l=learner_id,
            database_=resources.database,
        )
        return [(r["id"], r["n"], r["a"]) for r in records]

    before = await reads()
    for _ in range(3):
        assert await classify(stores.facts, learner_id, QUESTION) == "contradiction_resolution"
    assert await reads() == before, "an intent is no recall: activation and access counts stay"
