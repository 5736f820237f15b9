"""Full-text queries weighted by the learner's own term statistics (one round trip).

``agent.search.lucene`` builds clauses that Lucene scores by boost alone; this module
counts, in the same index and the same transaction, how many of the learner's documents
match each clause, and boosts each clause by its IDF over the learner's documents. So the
ranking of a learner's full-text hits depends on that learner's documents only.

A count stops at ``TERM_COUNT_CAP``: a term in more of a learner's documents than that
gets the IDF of the cap, which only matters for very common words of very large learners.
"""

from __future__ import annotations

from collections.abc import Sequence

import neo4j

from agent.graphdb.store import fetch
from agent.search.lucene import LuceneScope, idf
from agent.search.queries import TERM_STATS

TERM_COUNT_CAP = 2000


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
    by_query = {scope.count_query(c): c for c in unique}
    [row] = await fetch(
        tx,
        TERM_STATS[label],
        index=index,
        learner_id=learner_id,
        queries=list(by_query),
        cap=TERM_COUNT_CAP,
    )
    n = max(int(row["n"]), 1)
    return {by_query[d["query"]]: idf(n, int(d["df"])) for d in row["dfs"] if d["df"]}
