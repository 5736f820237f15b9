"""Full-text queries weighted by the learner's own term statistics (one round trip).

``agent.search.lucene`` builds clauses that Lucene scores by boost alone; this module
counts, in the same index, how many of the learner's documents match each clause, and
boosts each clause by its IDF over the learner's documents. So the ranking of a learner's
full-text hits depends on that learner's documents only.

A count stops at ``TERM_COUNT_CAP``: a term in more of a learner's documents than that
gets the IDF of the cap, which only matters for very common words of very large learners.

Searches that run together for one request (a consultation's sources) share their counts
inside :func:`shared_term_counts`: a clause another search is already counting is awaited,
not counted again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

import neo4j

from agent.graphdb.store import fetch
from agent.search.lucene import LuceneScope, idf
from agent.search.queries import TERM_STATS

TERM_COUNT_CAP = 2000

Counted = tuple[int, int]
"""``(documents, documents matching)`` of one clause, over one learner's documents."""
_SHARED: ContextVar[dict[tuple[str, str, str], asyncio.Future[Counted]] | None] = ContextVar(
    "shared_term_counts", default=None
)


@contextmanager
def shared_term_counts() -> Iterator[None]:
    """Share term counts among the searches run in this block and the tasks it starts.

    Counts are keyed by index, learner and clause, and live only as long as the block.
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


async def _count(
    tx: neo4j.AsyncTransaction,
    scope: LuceneScope,
    clauses: Sequence[str],
    index: str,
    label: str,
    learner_id: str,
) -> dict[str, Counted]:
    """Each clause's ``(n, df)`` in one round trip."""
    by_query = {scope.count_query(c): c for c in clauses}
    [row] = await fetch(
        tx, TERM_STATS[label], index=index, learner_id=learner_id, queries=list(by_query), cap=TERM_COUNT_CAP
    )
    return {by_query[d["query"]]: (int(row["n"]), int(d["df"])) for d in row["dfs"]}


async def learner_weights(
    tx: neo4j.AsyncTransaction,
    scope: LuceneScope,
    clauses: Sequence[str],
    *,
    index: str,
    label: str,
    learner_id: str,
) -> dict[str, float]:
    """Each clause's IDF over the learner's ``label`` documents in ``index`` (absent when no match).

    ``label`` is the index's label whose count is the learner's document count (``TERM_STATS``).
    """
    unique = list(dict.fromkeys(clauses))
    if not unique:
        return {}
    shared = _SHARED.get()
    if shared is None:
        counted = await _count(tx, scope, unique, index, label, learner_id)
    else:
        counted = await _count_shared(tx, shared, scope, unique, index, label, learner_id)
    return {c: idf(max(n, 1), df) for c, (n, df) in counted.items() if df}


async def weighted_query(
    tx: neo4j.AsyncTransaction,
    scope: LuceneScope,
    clauses: Sequence[str],
    *,
    index: str,
    label: str,
    learner_id: str,
) -> str | None:
    """``scope``'s Lucene query over ``clauses``, each boosted by :func:`learner_weights`.

    None when no clause matches any of the learner's documents (nothing to search).
    """
    weights = await learner_weights(tx, scope, clauses, index=index, label=label, learner_id=learner_id)
    return scope.query(clauses, weights)


async def _count_shared(
    tx: neo4j.AsyncTransaction,
    shared: dict[tuple[str, str, str], asyncio.Future[Counted]],
    scope: LuceneScope,
    clauses: list[str],
    index: str,
    label: str,
    learner_id: str,
) -> dict[str, Counted]:
    """Count the clauses nobody is counting yet; await the others' counts.

    A count that failed in the other search is counted here after all.
    """
    loop = asyncio.get_running_loop()
    mine: dict[str, asyncio.Future[Counted]] = {}
    theirs: dict[str, asyncio.Future[Counted]] = {}
    for clause in clauses:
        key = (index, learner_id, clause)
        if key in shared:
            theirs[clause] = shared[key]
        else:
            mine[clause] = shared[key] = loop.create_future()
    counted: dict[str, Counted] = {}
    if mine:
        try:
            counted = await _count(tx, scope, list(mine), index, label, learner_id)
        except BaseException as exc:
            for clause, future in mine.items():
                del shared[(index, learner_id, clause)]
                future.set_exception(LookupError(f"term count failed: {exc!r}"))
                future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        for clause, future in mine.items():
            future.set_result(counted[clause])
    retry: list[str] = []
    for clause, future in theirs.items():
        try:
            counted[clause] = await asyncio.shield(future)
        except LookupError:
            retry.append(clause)
    if retry:
        counted |= await _count(tx, scope, retry, index, label, learner_id)
    return counted
