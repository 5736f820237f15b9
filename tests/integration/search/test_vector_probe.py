"""The vector retriever's probe against the real Neo4j.

A small learner is scanned exactly, a big one goes through the index, and a ``kinds``
filter finds that kind only (nothing when the learner has none).
"""

from __future__ import annotations

from agent.memory.archival import ArchivalStore
from agent.search.recipes import VECTOR_ONLY

QUERY = "How does the learner handle recursion in Python?"
TEXTS = [
    "Recursion clicked once the learner drew the call stack for factorial.",
    "The learner prefers list comprehensions over map and filter.",
    "Base cases are still forgotten in recursive tree walks.",
    "SQL joins: the learner mixes up LEFT and INNER joins.",
    "A binary search exercise took three attempts.",
]


async def _by_cosine(store: ArchivalStore, texts: list[str], ids: list[str]) -> list[str]:
    """``ids`` ordered by the cosine of their text to ``QUERY``, computed here (vectors are unit length)."""
    query = await store.embed_query(QUERY)
    vectors = await store.embed_documents(texts)
    score = {i: sum(a * b for a, b in zip(query, v, strict=True)) for i, v in zip(ids, vectors, strict=True)}
    return sorted(ids, key=lambda i: -score[i])


async def test_a_small_learner_is_ranked_by_exact_cosine_and_sees_only_its_own(
    archival: ArchivalStore, learner_id: str
) -> None:
    mine = [(await archival.insert(learner_id, t)).id for t in TEXTS]
    theirs = {(await archival.insert(f"{learner_id}-other", t)).id for t in TEXTS}

    page = await archival.search(learner_id, QUERY, page_size=10, recipe=VECTOR_ONLY)

    found = [h.id for h in page.results]
    assert not theirs & set(found)
    assert found == await _by_cosine(archival, TEXTS, mine)


async def test_a_learner_with_more_candidates_than_asked_goes_through_the_index(
    archival: ArchivalStore, learner_id: str
) -> None:
    texts = [f"Note {n}: {TEXTS[n % len(TEXTS)]}" for n in range(VECTOR_ONLY.min_candidates + 10)]
    ids = [m.id for m in await archival.insert_many(learner_id, [{"content": t} for t in texts])]

    page = await archival.search(learner_id, QUERY, page_size=5, recipe=VECTOR_ONLY)

    found = [h.id for h in page.results]
    assert len(found) == 5 and set(found) <= set(ids)
    scores = [h.scores["vector"] for h in page.results]
    assert scores == sorted(scores, reverse=True)
    best = (await _by_cosine(archival, texts, ids))[:10]
    assert found[0] in best  # the index is approximate, but not that approximate


async def test_a_kinds_filter_finds_only_that_kind(archival: ArchivalStore, learner_id: str) -> None:
    await archival.insert_many(learner_id, [{"content": t} for t in TEXTS])
    assert (await archival.search(learner_id, QUERY, recipe=VECTOR_ONLY, kinds=["procedure"])).results == []

    wanted = [(await archival.insert(learner_id, t, kind="worked_example")).id for t in TEXTS[:2]]
    page = await archival.search(learner_id, QUERY, recipe=VECTOR_ONLY, kinds=["worked_example"])
    assert [h.id for h in page.results] == await _by_cosine(archival, TEXTS[:2], wanted)
