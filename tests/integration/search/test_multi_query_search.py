"""Stem prefixes and the whole-question full-text pass against the real Neo4j, learner by learner."""

from __future__ import annotations

from dataclasses import replace

from agent.memory.archival import ArchivalStore
from agent.search.recipes import SearchRecipe
from bench.locomo.recipes import HYBRID_MULTI_QUERY, HYBRID_STEMS

# Full text only, so every hit below is owed to the Lucene query under test.
KEYWORDS = SearchRecipe("test_keywords", vector_weight=0.0, keyword_query=True)


async def _insert_twice(
    store: ArchivalStore, learner_id: str, texts: list[str]
) -> tuple[list[str], set[str]]:
    """``texts`` for the learner (their ids) and the same texts for another learner (those ids)."""
    mine = [(await store.insert(learner_id, t, session_id="s-1")).id for t in texts]
    other = {(await store.insert(f"{learner_id}-other", t, session_id="s-1")).id for t in texts}
    return mine, other


async def _ids(store: ArchivalStore, learner_id: str, query: str, recipe: SearchRecipe) -> list[str]:
    page = await store.search(learner_id, query, page_size=10, recipe=recipe)
    assert not page.degraded
    return [hit.id for hit in page.results]


async def test_stem_prefixes_find_inflected_words_of_this_learner_only(
    archival: ArchivalStore, learner_id: str
) -> None:
    (research, weather), other = await _insert_twice(
        archival,
        learner_id,
        ["Researching adoption agencies has been a dream of mine", "We talked about the weather"],
    )
    query = "What did Caroline research?"
    # The index does not stem: the plain keyword query misses "Researching"...
    assert research not in await _ids(archival, learner_id, query, KEYWORDS)
    # ...its stem as a prefix finds it, and only in this learner's memories.
    found = await _ids(archival, learner_id, query, replace(KEYWORDS, name="t", stem_prefixes=True))
    assert found == [research]
    assert weather not in found and not other & set(found)


async def test_question_pass_matches_what_the_keyword_query_drops(
    archival: ArchivalStore, learner_id: str
) -> None:
    (promise, _), other = await _insert_twice(
        archival, learner_id, ["I will always be there for you", "Dance studio opening tomorrow"]
    )
    # The keyword query keeps only "Jon", which no memory contains.
    query = "Will you be there for me, Jon?"
    assert await _ids(archival, learner_id, query, KEYWORDS) == []
    found = await _ids(archival, learner_id, query, replace(KEYWORDS, name="t", question_weight=0.5))
    assert found[0] == promise and not other & set(found)

    page = await archival.search(learner_id, query, recipe=HYBRID_MULTI_QUERY)
    assert page.results[0].id == promise and "question" in page.results[0].scores
    assert not other & {hit.id for hit in page.results}
    stems = await archival.search(learner_id, query, recipe=HYBRID_STEMS)
    assert all("question" not in hit.scores for hit in stems.results)
