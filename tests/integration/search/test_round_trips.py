"""The merged search queries against the real Neo4j: one round trip, the same lists as one query each.

``FIRST_STAGE`` runs the vector probe and both full-text passes together, and
``CONTEXT_HYDRATE`` reads the context neighbours with the page's hits; each must give what
the single queries give. Paging far down a context recipe pins the candidates hydrated early.
"""

from __future__ import annotations

from typing import Any

import neo4j
import pytest

from agent.graphdb.schema import learner_key
from agent.graphdb.store import fetch
from agent.memory.archival import ArchivalStore
from agent.search.lucene import LuceneScope
from agent.search.queries import (
    CONTEXT_HYDRATE,
    CONTEXT_MEMORY,
    FIRST_STAGE,
    HYDRATE_BY_LABEL,
    PROBE_TEMPLATE,
)
from bench.locomo.recipes import HYBRID_MULTI_QUERY

QUERY = "Which garden did the learner plant tomatoes in?"
TOPICS = ["tomatoes in the garden", "a recursion exercise", "the chess club", "a trip to the coast"]

# The full-text pass alone, as a query of its own (FIRST_STAGE must return the same list).
FULLTEXT_QUERY = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $k}) YIELD node, score
WITH node, score
WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
RETURN node.id AS id, score
ORDER BY score DESC, node.seq, node.id LIMIT $limit
"""


async def _remember(store: ArchivalStore, learner_id: str, count: int) -> None:
    """``count`` memories over four sessions, every one about a topic and a garden or a plan."""
    drafts = [
        {
            "content": f"Turn {i}: the learner talked about {TOPICS[i % 4]} and a garden plan number {i}.",
            "session_id": f"s-{i % 4}",
        }
        for i in range(count)
    ]
    await store.insert_many(learner_id, drafts)


def _lists(row: dict[str, Any]) -> dict[str, Any]:
    lists = ("few", "indexed", "fulltext", "question")
    return {name: [(h["id"], h["score"]) for h in row[name] or []] for name in lists} | {
        "candidates": row["candidates"]
    }


@pytest.mark.parametrize("limit", [5, 50], ids=["index", "exact-scan"])
async def test_first_stage_returns_what_each_retriever_returns_alone(
    archival: ArchivalStore, learner_id: str, limit: int
) -> None:
    await _remember(archival, learner_id, 12)
    key = learner_key(learner_id)
    terms = LuceneScope(("text",), key)
    words = terms.term_clauses("garden tomatoes") + terms.prefix_clauses(["plant"])
    lucene = terms.query(words, {c: 1.0 + i for i, c in enumerate(words)})
    question = terms.query(terms.term_clauses(QUERY), dict.fromkeys(terms.term_clauses(QUERY), 1.0))
    scope = {"learner_id": learner_id, "kinds": None, "limit": limit}
    vector = {"embedding": await archival.embed_query(QUERY), "index": archival.names.memory_vector, "k": 100}
    text = {"index": archival.names.memory_fulltext, "k": 100}

    async def work(tx: neo4j.AsyncTransaction) -> tuple[dict[str, Any], dict[str, Any], dict[str, str]]:
        [probe] = await fetch(tx, PROBE_TEMPLATE.format(label="Memory"), **scope, **vector)
        alone = dict(probe)
        alone["fulltext"] = await fetch(tx, FULLTEXT_QUERY, lucene=lucene, **scope, **text)
        alone["question"] = await fetch(tx, FULLTEXT_QUERY, lucene=question, **scope, **text)
        [together] = await fetch(
            tx,
            FIRST_STAGE[("Memory", ("vector", "fulltext", "question"))],
            lucene=lucene,
            question=question,
            text_index=text["index"],
            text_k=text["k"],
            **scope,
            **vector,
        )
        rows = await fetch(
            tx, "MATCH (n:Memory {learner_id: $l}) RETURN n.id AS id, n.session_id AS s", l=learner_id
        )
        return alone, together, {r["id"]: r["s"] for r in rows}

    alone, together, sessions = await archival.read(work)

    assert _lists(together) == _lists(alone)
    assert together["fulltext"] and together["question"]
    # The index runs only for a full probe, and the probe's cosines only when it is short.
    assert bool(together["indexed"]) == (limit == 5) == (not together["few"])
    assert together["candidates"] == min(limit, 12)
    hits = [h for name in ("few", "indexed", "fulltext", "question") for h in together[name] or []]
    assert all(h["session"] == sessions[h["id"]] for h in hits)


async def test_context_hydrate_returns_the_context_list_and_the_hits(
    archival: ArchivalStore, learner_id: str
) -> None:
    await _remember(archival, learner_id, 12)

    async def work(tx: neo4j.AsyncTransaction) -> tuple[list[dict[str, Any]], dict[str, Any], list[Any]]:
        ids = [
            r["id"]
            for r in await fetch(tx, "MATCH (n:Memory {learner_id: $l}) RETURN n.id AS id", l=learner_id)
        ]
        seeds, page = ids[:3], ids[2:6]
        args = {"seeds": seeds, "window": 1, "learner_id": learner_id, "kinds": None, "limit": 30}
        context = await fetch(tx, CONTEXT_MEMORY, **args)
        [row] = await fetch(tx, CONTEXT_HYDRATE["Memory"], ids=page, **args)
        wanted = page + [c["id"] for c in context if c["id"] not in page]
        hydrated = await fetch(tx, HYDRATE_BY_LABEL["Memory"], ids=wanted, learner_id=learner_id)
        return context, row, [r["hit"] for r in hydrated]

    context, row, hydrated = await archival.read(work)

    assert context and row["context"] == context
    assert sorted(row["hits"], key=lambda h: h["id"]) == sorted(hydrated, key=lambda h: h["id"])


async def test_a_far_page_of_a_context_recipe_is_the_slice_of_one_long_page(
    archival: ArchivalStore, learner_id: str
) -> None:
    await _remember(archival, learner_id, 40)
    # Both ask every retriever for 90 candidates, so the far page is a slice of the long one;
    # it starts past the context's reach (10 seeds x 2), so its hits are hydrated from further down.
    assert HYBRID_MULTI_QUERY.candidates(5, 5) == HYBRID_MULTI_QUERY.candidates(0, 30)
    far = await archival.search(learner_id, QUERY, page=5, page_size=5, recipe=HYBRID_MULTI_QUERY)
    long = await archival.search(learner_id, QUERY, page=0, page_size=30, recipe=HYBRID_MULTI_QUERY)

    assert len(far.results) == 5 and far.has_more
    assert [(h.id, h.score, h.text) for h in far.results] == [
        (h.id, h.score, h.text) for h in long.results[25:]
    ]
    assert any("context" in h.scores for h in long.results)
