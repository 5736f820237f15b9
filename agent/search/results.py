"""Search result values and the pure ranking maths (RRF fusion, keyword scoring)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import groupby
from typing import Any

from agent.search.recipes import RRF_K


@dataclass(frozen=True)
class SearchHit:
    """One result: a memory, summary, note or message."""

    id: str
    text: str
    score: float
    created_at: str | None
    kind: str
    tags: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)
    """Raw score per retriever that found it (``vector``, ``fulltext``, ...) plus ``rrf``."""
    metadata: dict[str, Any] = field(default_factory=dict)
    """Extra fields: ``session_id``, ``role``, ``seq`` for messages; ``label`` always."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class SearchPage:
    """One page of results."""

    results: list[SearchHit]
    page: int
    page_size: int
    recipe: str
    degraded: bool = False
    """True when Neo4j was unreachable and the results come from Redis keyword search."""
    has_more: bool = False
    """True when another page probably exists."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "results": [hit.to_dict() for hit in self.results],
            "page": self.page,
            "page_size": self.page_size,
            "recipe": self.recipe,
            "degraded": self.degraded,
            "has_more": self.has_more,
        }


@dataclass(frozen=True)
class Fused:
    """A document's fused score and the raw scores behind it."""

    id: str
    score: float
    scores: dict[str, float]
    best_rank: int


def rrf_fuse(
    ranked: Mapping[str, Sequence[tuple[str, float]]],
    weights: Mapping[str, float],
    *,
    k: int = RRF_K,
) -> list[Fused]:
    """Weighted Reciprocal Rank Fusion of ranked ``(id, raw_score)`` lists.

    ``score(d) = sum_r weights[r] / (k + rank_r(d))`` with ranks from 1; a list
    with weight 0 (or missing) is ignored. A duplicate id within a list keeps
    its first (best) rank. Ties break on best rank, then id, so order is stable.
    """
    totals: dict[str, float] = {}
    raw: dict[str, dict[str, float]] = {}
    best: dict[str, int] = {}
    for name, hits in ranked.items():
        weight = weights.get(name, 0.0)
        if weight <= 0:
            continue
        seen: set[str] = set()
        for rank, (doc_id, score) in enumerate(hits, start=1):
            if doc_id in seen:
                continue
            seen.add(doc_id)
            totals[doc_id] = totals.get(doc_id, 0.0) + weight / (k + rank)
            raw.setdefault(doc_id, {})[name] = float(score)
            best[doc_id] = min(best.get(doc_id, rank), rank)
    fused = [
        Fused(doc_id, total, {**raw[doc_id], "rrf": total}, best[doc_id]) for doc_id, total in totals.items()
    ]
    fused.sort(key=lambda f: (-f.score, f.best_rank, f.id))
    return fused


def demote(fused: Sequence[Fused], ids: Iterable[str], weight: float) -> list[Fused]:
    """``fused`` with the scores of ``ids`` divided by ``1 + weight``, re-sorted as ``rrf_fuse`` sorts.

    The recipe's ``disclosure_weight``: ``ids`` are turn contexts that are not first-person
    statements. Their ``scores`` keep ``rrf`` and gain the factor as ``disclosure``; a
    weight of 0 or no ids returns the list as it was.
    """
    chosen = set(ids)
    if weight <= 0 or not chosen:
        return list(fused)
    factor = 1.0 / (1.0 + weight)
    out = [
        replace(f, score=f.score * factor, scores={**f.scores, "disclosure": factor}) if f.id in chosen else f
        for f in fused
    ]
    out.sort(key=lambda f: (-f.score, f.best_rank, f.id))
    return out


def words(text: str) -> list[str]:
    """Lower-cased words (letters and digits) of ``text``."""
    return ["".join(run).lower() for alnum, run in groupby(text, str.isalnum) if alnum]


def keyword_rank(query: str, docs: Iterable[Mapping[str, Any]], *, text_key: str) -> list[Fused]:
    """Rank ``docs`` (newest first) by query-word overlap: the degraded-mode scorer.

    Score = distinct query words present + 0.1 * extra occurrences, so documents
    that cover more of the query win; ties keep the newest first. A query with
    no words ranks every document by recency.
    """
    wanted = set(words(query)[:64])
    ranked: list[tuple[float, int, str]] = []
    for order, doc in enumerate(docs):
        tokens = words(str(doc.get(text_key, "")))
        if wanted:
            hits = [t for t in tokens if t in wanted]
            distinct = len(set(hits))
            if not distinct:
                continue
            score = distinct + 0.1 * (len(hits) - distinct)
        else:
            score = 1.0 / (1 + order)
        ranked.append((score, order, str(doc["id"])))
    ranked.sort(key=lambda r: (-r[0], r[1]))
    return [Fused(doc_id, score, {"keyword": score}, i + 1) for i, (score, _, doc_id) in enumerate(ranked)]
