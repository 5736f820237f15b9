"""Shared term counts (``agent.search.termstats``) without services: ``_count`` is scripted."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import pytest

from agent.search import termstats
from agent.search.lucene import LuceneScope, idf

SCOPE = LuceneScope(("text",), "lkabc")
N = 100


class ScriptedCounts:
    """Stands in for the ``TERM_STATS`` round trip: records what it counts, fails on request."""

    def __init__(self, fail_first: bool = False) -> None:
        self.calls: list[list[str]] = []
        self.fail_first = fail_first
        self.started = asyncio.Event()

    async def __call__(
        self, tx: Any, scope: LuceneScope, clauses: Sequence[str], index: str, label: str, learner_id: str
    ) -> dict[str, tuple[int, int]]:
        self.calls.append(list(clauses))
        self.started.set()
        await asyncio.sleep(0.01)  # let the other search find these clauses in flight
        if self.fail_first and len(self.calls) == 1:
            raise ConnectionError("Neo4j went away")
        return {c: (N, 1 + len(c) % 5) for c in clauses}


async def _weights(clauses: list[str], learner_id: str = "learner-a") -> dict[str, float]:
    return await termstats.learner_weights(
        None,  # type: ignore[arg-type]
        SCOPE,
        clauses,
        index="memory_text_fulltext",
        label="Memory",
        learner_id=learner_id,
    )


async def test_searches_in_the_block_count_each_clause_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = ScriptedCounts()
    monkeypatch.setattr(termstats, "_count", counts)
    one, two = SCOPE.term_clauses("alpha beta"), SCOPE.term_clauses("beta gamma")
    with termstats.shared_term_counts():
        first, second = await asyncio.gather(_weights(one), _weights(two))
    assert sorted(c for call in counts.calls for c in call) == sorted(set(one + two))
    assert second[two[0]] == first[one[1]] == idf(N, 1 + len(two[0]) % 5)
    # Outside the block, and for another learner inside it, nothing is shared.
    counts.calls.clear()
    await asyncio.gather(_weights(one), _weights(two))
    with termstats.shared_term_counts():
        await asyncio.gather(_weights(one), _weights(one, learner_id="learner-b"))
    assert [len(call) for call in counts.calls] == [2, 2, 2, 2]


async def test_a_failed_count_is_counted_again_by_the_search_waiting_for_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    counts = ScriptedCounts(fail_first=True)
    monkeypatch.setattr(termstats, "_count", counts)
    clauses = SCOPE.term_clauses("alpha beta")
    with termstats.shared_term_counts():
        owner = asyncio.ensure_future(_weights(clauses))
        await counts.started.wait()
        waiter = asyncio.ensure_future(_weights(clauses))
        results = await asyncio.gather(owner, waiter, return_exceptions=True)
    assert isinstance(results[0], ConnectionError)  # the owner's own error reaches its caller
    assert results[1] == {c: idf(N, 1 + len(c) % 5) for c in clauses}
    assert counts.calls == [clauses, clauses]
