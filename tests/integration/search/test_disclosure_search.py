"""Conversational filler ranks lower: the write-time ``disclosure`` flag, read by every retriever."""

from __future__ import annotations

import pytest

from agent.kernel.derive import turn_context_id
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.search.conversation import search_conversation
from bench.locomo.recipes import HYBRID_DISCLOSURE, HYBRID_DISCLOSURE_STRONG, HYBRID_MULTI_QUERY

FLAGS = """
MATCH (m:Memory {learner_id: $l}) WHERE m.kind = 'turn_context'
RETURN m.id AS id, m.disclosure AS disclosure
"""


async def flags(resources: Resources, learner_id: str) -> dict[str, bool]:
    async with resources.neo4j.session(database=resources.database) as session:
        rows = await (await session.run(FLAGS, {"l": learner_id})).data()
    return {r["id"]: r["disclosure"] for r in rows}


async def test_questions_and_reactions_rank_lower_than_what_the_learner_said(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    at = "2023-05-08T13:56:0{}+00:00"
    ids = [f"{learner_id}-{i}" for i in range(4)]
    messages = [
        RecallMessage(ids[0], "user", "I adopted a grey kitten called Pixel last spring.", at.format(0)),
        RecallMessage(ids[1], "assistant", "Is Pixel the grey kitten you adopted in spring?", at.format(1)),
        RecallMessage(ids[2], "user", "Yes! My sister helped me choose her.", at.format(2)),
        RecallMessage(ids[3], "assistant", "Pixel the grey kitten, how lovely!", at.format(3)),
    ]
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        await build_worker(resources, stores).drain(learner_id)
        # Decided once, at write time, by the kernel worker.
        assert await flags(resources, learner_id) == {
            turn_context_id(ids[0]): True,
            turn_context_id(ids[1]): False,  # a question
            turn_context_id(ids[2]): True,
            turn_context_id(ids[3]): False,  # a reaction: no first person
        }
        await stores.archival.insert(learner_id, "Pixel is a grey kitten the learner adopted.")

        query = "grey kitten Pixel adopted"
        plain = await search_conversation(stores, learner_id, query, recipe=HYBRID_MULTI_QUERY, page_size=4)
        strong = await search_conversation(
            stores, learner_id, query, recipe=HYBRID_DISCLOSURE_STRONG, page_size=4
        )
        assert {h.id for h in plain.results} == {h.id for h in strong.results} == set(ids)
        for hit in plain.results:
            assert "disclosure" not in hit.scores and hit.score == pytest.approx(hit.scores["rrf"])
        for hit in strong.results:
            factor = 0.5 if hit.id in (ids[1], ids[3]) else None
            assert hit.scores.get("disclosure") == factor
            assert hit.score == pytest.approx(hit.scores["rrf"] * (factor or 1.0))
        assert [h.score for h in strong.results] == sorted((h.score for h in strong.results), reverse=True)
        rank = {h.id: i for i, h in enumerate(strong.results)}
        assert max(rank[ids[0]], rank[ids[2]]) < min(rank[ids[1]], rank[ids[3]])  # statements first

        # A memory without the flag (the agent's own insert) keeps its fused score.
        mixed = await stores.archival.search(learner_id, query, recipe=HYBRID_DISCLOSURE, page_size=10)
        inserted = [h for h in mixed.results if h.kind == "memory"]
        assert len(inserted) == 1 and "disclosure" not in inserted[0].scores
        assert inserted[0].score == pytest.approx(inserted[0].scores["rrf"])
        # Another learner's search sees none of it.
        other = await search_conversation(stores, learner_id + "-x", query, recipe=HYBRID_DISCLOSURE)
        assert other.results == []
    finally:
        await erase_learner(resources, learner_id)
