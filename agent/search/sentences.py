"""The ``sentence`` retriever's ranking: turn contexts by their best sentence.

``agent.kernel.sentences`` stores every sentence of a conversational turn as a
``:TurnSentence`` with its own embedding; ``agent.search.hybrid`` reads the learner's
nearest sentences (vector probe, learner-filtered, exact-scan fallback) and this module
turns them into a ranked list of turn contexts: each turn context at the rank of its best
sentence, with the cosine of that sentence. Fused with weight ``SearchRecipe.sentence_weight``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import neo4j

from agent.graphdb.store import fetch
from agent.search.probe import probed, query_params, vector_k
from agent.search.queries import SENTENCE_EXACT, SENTENCE_PROBE
from agent.turns import turn_of_sentence

SentenceList = tuple[list[tuple[str, float]], set[str]]
"""The ranked ``(turn context id, cosine)`` list and the turn contexts flagged as no disclosure."""


def best_sentence_turns(rows: Iterable[dict[str, Any]], limit: int) -> SentenceList:
    """The ranked list and the turns flagged as no disclosure, from sentence hits in any order.

    The list holds ``(turn context id, its best sentence's cosine)``, best first, at most
    ``limit``; ``rows`` are ``{id, score, disclosure}``. Ties go by sentence id (stable).
    """
    best: dict[str, float] = {}
    flagged: set[str] = set()
    for row in sorted(rows, key=lambda r: (-float(r["score"] or 0.0), str(r["id"]))):
        turn = turn_of_sentence(str(row["id"]))
        if turn in best:
            continue
        best[turn] = float(row["score"] or 0.0)
        if row.get("disclosure") is False:
            flagged.add(turn)
        if len(best) >= limit:
            break
    return list(best.items()), flagged


async def read_sentence_list(
    tx: neo4j.AsyncTransaction,
    index: str,
    learner_id: str,
    embedding: list[float],
    limit: int,
    oversample: int,
) -> SentenceList:
    """The ``sentence`` list: the learner's nearest ``limit`` sentences, as their turn contexts.

    The ``:TurnSentence`` vector index (``index``) is read through the shared probe
    (``agent.search.probe``): oversampled, learner-filtered, the exact scan when it comes up
    short. Sentences have no ``kind``, so only other learners' sentences share the top-k.
    """
    params = {"learner_id": learner_id, "kinds": None, "limit": limit, "oversample": oversample}
    params["embedding"] = embedding
    args = query_params(params, embedding=True)
    [row] = await fetch(tx, SENTENCE_PROBE, index=index, k=vector_k(params), **args)
    return best_sentence_turns(await probed(tx, row, SENTENCE_EXACT, params), limit)
