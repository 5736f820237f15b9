"""Degraded-mode fact search: the facts cached in Redis with the archival items.

When Neo4j is down, ``FactStore.search`` answers from the items the backlog keeps in Redis
(``agent.memory.backlog``): the newest fact per slot unless history is asked for, ranked by
keywords and by the slots the question asks about, fused with RRF as the Neo4j path fuses.
"""

from __future__ import annotations

from typing import Any

from agent.language.facts import query_slots
from agent.search.results import SearchHit, SearchPage, keyword_rank, rrf_fuse

__all__ = ["SLOT_WEIGHT", "cached_fact_page"]

SLOT_WEIGHT = 1.0
"""RRF weight of the ``slot`` list: facts in the slots the question asks about."""


def cached_fact_page(
    items: list[dict[str, Any]], query: str, k: int, *, history: bool, rrf_k: int, recipe: str
) -> SearchPage:
    """A degraded page of the cached ``items`` (newest first) for ``query``."""
    facts = [i for i in items if i.get("kind") == "fact"]
    if not history:
        newest: dict[tuple[str, str], dict[str, Any]] = {}
        for item in facts:  # newest first: the first of a slot is its current fact
            newest.setdefault((item.get("subject", ""), item.get("predicate", "")), item)
        facts = list(newest.values())
    by_id = {i["id"]: i for i in facts}
    predicates = {p for _, p in query_slots(query)}
    lists = {
        "keyword": [(f.id, f.score) for f in keyword_rank(query, facts, text_key="text")],
        "slot": [(i["id"], 1.0) for i in facts if i.get("predicate") in predicates],
    }
    fused = rrf_fuse(lists, {"keyword": 1.0, "slot": SLOT_WEIGHT}, k=rrf_k)
    hits = [
        SearchHit(
            id=f.id,
            text=str(by_id[f.id].get("text") or ""),
            score=f.score,
            created_at=by_id[f.id].get("valid_from"),
            kind="fact",
            scores=dict(f.scores),
            metadata={key: by_id[f.id].get(key) for key in ("subject", "predicate", "valid_from")}
            | {"source": "redis", "label": "Fact"},
        )
        for f in fused[:k]
    ]
    return SearchPage(hits, 0, k, recipe, degraded=True)
