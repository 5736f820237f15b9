"""A learner's full-text ranking depends on that learner's documents only (real Neo4j).

Lucene's BM25 takes document frequencies, the document count and the mean length over the
whole index, i.e. over every learner. Before, learner B storing a word changed the scores of
learner A's hits on it and could flip their order, so A could tell which words B wrote.
Every full-text list now scores one-term range clauses boosted by A's own IDF
(``agent.search.lucene``). Here B writes many documents, some long, on A's query words, and
each of A's searches must return the same hits in the same order with the same raw score
in every list: memories (the default recipe and a full-text-only one), messages, notes and
facts. Each test fails on the BM25 form: B's writes move A's full-text scores.
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from agent.memory import blend
from agent.memory.blend import SOURCES, RetrievalPlan, blended_search
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage, RecallStore
from agent.memory.stores import MemoryStores
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.search import termstats
from agent.search.recipes import DEFAULT_RECIPE, SearchRecipe
from agent.search.results import SearchPage
from tests.integration.notes.rows import note_row

FULLTEXT_ONLY = SearchRecipe("fulltext_only", "The full-text list alone.", vector_weight=0.0)
CROWD = 40


@dataclass
class Tenants:
    stores: MemoryStores
    recall: RecallStore
    notes: NoteStore
    a: str
    b: str
    words: tuple[str, str, str]

    @property
    def query(self) -> str:
        return " ".join(self.words)


def _ranked(page: SearchPage) -> list[tuple[str, dict[str, float]]]:
    """Each hit's id and its raw score per list, in order."""
    return [(h.id, dict(h.scores)) for h in page.results]


def _texts(words: tuple[str, str, str]) -> list[str]:
    """A's documents: the query words at different frequencies, short and long."""
    w1, w2, w3 = words
    return [
        f"Note one: {w1}.",
        f"Note two: {w2} and a longer text that mentions {w2} again after many other words.",
        f"Note three: {w1} with {w3}.",
        f"Note four: {w3} on its own.",
        "Note five: nothing to do with the question at all.",
    ]


@pytest.fixture
async def tenants(resources: Resources, learner_id: str) -> AsyncIterator[Tenants]:
    """Learner A's memories, messages, notes and facts on three rare words; B has none yet."""
    stores = MemoryStores.wire(resources)
    recall = RecallStore(resources.neo4j, resources.embeddings, database=resources.database)
    notes = NoteStore.for_resources(resources)
    await notes.ensure_schema()
    await stores.facts.setup()
    a, b = f"{learner_id}-a", f"{learner_id}-b"
    words = tuple(f"{p}{uuid.uuid4().hex[:8]}" for p in ("qzx", "qwv", "qjk"))
    texts = _texts(words)  # type: ignore[arg-type]
    for text in texts:
        await stores.archival.insert(a, text, session_id="sa")
        await stores.facts.remember(a, text)
    await recall.log_messages(
        a, "sa", [RecallMessage(id=f"{a}-m{i}", role="user", content=t) for i, t in enumerate(texts)]
    )
    await notes.upsert_notes(a, [note_row(a, t, await notes.embed_query(t)) for t in texts])
    yield Tenants(stores, recall, notes, a, b, words)  # type: ignore[arg-type]
    for learner in (a, b):
        await erase_learner(resources, learner)


async def _crowd(t: Tenants) -> None:
    """B writes ``CROWD`` documents of each kind on A's words: frequent, repeated and long."""
    w1, w2, w3 = t.words
    filler = "a long passage of unrelated words " * 20
    texts = [f"B {i}: {w2} {w2} {w1 if i % 2 else w3} {filler if i % 3 == 0 else ''}" for i in range(CROWD)]
    await t.stores.archival.insert_many(t.b, [{"content": x, "session_id": "sb"} for x in texts])
    for text in texts[:10]:
        await t.stores.facts.remember(t.b, text)
    await t.recall.log_messages(
        t.b, "sb", [RecallMessage(id=f"{t.b}-m{i}", role="user", content=x) for i, x in enumerate(texts)]
    )
    embedding = await t.notes.embed_query(texts[0])
    await t.notes.upsert_notes(t.b, [note_row(t.b, x, embedding) for x in texts])


async def _snapshot(t: Tenants) -> dict[str, Any]:
    archival = t.stores.archival
    return {
        "default": _ranked(await archival.search(t.a, t.query, recipe=DEFAULT_RECIPE, page_size=10)),
        "fulltext": _ranked(await archival.search(t.a, t.query, recipe=FULLTEXT_ONLY, page_size=10)),
        "turns": _ranked(await archival.search_turns(t.a, t.query, recipe=DEFAULT_RECIPE, page_size=10)),
        "messages": _ranked(await t.recall.search(t.a, t.query, recipe=DEFAULT_RECIPE, page_size=10)),
        "notes": await t.notes.text_hits(t.a, t.query, k=10),
        # Reading a fact raises its activation, which fact ranking blends in: compare the lists' scores.
        "facts": {
            h.id: (h.text, h.scores.get("fulltext"))
            for h in (await t.stores.facts.search(t.a, t.query, k=10)).results
        },
    }


async def test_another_learners_words_do_not_move_a_learners_ranking(tenants: Tenants) -> None:
    before = await _snapshot(tenants)
    # A's own documents are found by full text, with distinct scores: there is an order to move.
    fulltext = [scores["fulltext"] for _, scores in before["fulltext"]]
    assert len(fulltext) >= 4 and len(set(fulltext)) >= 3  # memories and facts (both :Memory)
    assert len(before["notes"]) == 4 and len(before["facts"]) >= 4
    assert all(any("fulltext" in s for _, s in before[name]) for name in ("default", "messages"))
    # Every current fact of A's that names a query word is found by full text. Which facts are
    # current is the write-time rule's call: "Note three: X with Y" can close "Note one: X" as
    # its new value (about one run in four, by the random words), so count the current ones.
    worded = [score for text, score in before["facts"].values() if any(w in text for w in tenants.words)]
    assert len(worded) >= 2 and all(score is not None for score in worded)
    await _crowd(tenants)
    after = await _snapshot(tenants)
    for name in before:
        assert after[name] == before[name], name


async def test_a_learners_own_documents_set_the_weights(tenants: Tenants) -> None:
    """The weights are live and the learner's own: A's new documents on a word lower its weight."""
    archival, w1 = tenants.stores.archival, tenants.words[0]

    async def note_one() -> float:
        page = await archival.search(tenants.a, w1, recipe=FULLTEXT_ONLY, page_size=20)
        return next(h.scores["fulltext"] for h in page.results if h.text.startswith("Note one"))

    alone = await note_one()
    for i in range(6):
        await archival.insert(tenants.a, f"More of A: {w1} number {i}.", session_id="sa2")
    assert await note_one() < alone


async def test_a_consultations_sources_count_each_term_once(
    tenants: Tenants, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Blended sources (facts, procedures, archival: one index) share their term counts."""
    counted: list[str] = []
    real_fetch = termstats.fetch

    async def counting_fetch(tx: Any, query: str, **params: Any) -> list[dict[str, Any]]:
        counted.extend(params["queries"])
        return await real_fetch(tx, query, **params)

    monkeypatch.setattr(termstats, "fetch", counting_fetch)
    plan = RetrievalPlan("all_sources", SOURCES, k=10, page_size=10)

    async def blended() -> tuple[set[str], list[str]]:
        counted.clear()
        hits = await blended_search(tenants.stores, tenants.a, tenants.query, plan)
        return {h.id for h in hits}, list(counted)

    shared, shared_counts = await blended()
    monkeypatch.setattr(blend, "shared_term_counts", contextlib.nullcontext)
    alone, alone_counts = await blended()
    assert shared and shared == alone  # the same weights, so the same hits
    assert len(shared_counts) == len(set(shared_counts)), "no term counted twice"
    assert set(shared_counts) == set(alone_counts) and len(alone_counts) > len(shared_counts)
