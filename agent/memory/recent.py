"""Reads from Redis: degraded-mode keyword search, and fresh messages merged into a page.

Used only while Neo4j is unreachable; the ranking is ``keyword_rank`` (query-word
coverage, newest first on ties), so results are rougher than hybrid retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent.memory.backlog import WriteBacklog
from agent.search.results import SearchHit, SearchPage, keyword_rank

MAX_QUERY_CHARS = 4096


async def search_recent(
    backlog: WriteBacklog,
    kind: str,
    learner_id: str,
    query: str,
    *,
    page: int,
    page_size: int,
    recipe: str,
    kinds: Sequence[str] | None = None,
) -> SearchPage:
    """One page of the learner's cached ``archival`` or ``recall`` items, ``degraded=True``."""
    items = await backlog.recent(kind, learner_id)
    text_key = "content" if kind == "recall" else "text"
    if kinds is not None:
        items = [i for i in items if i.get("kind") in kinds]
    by_id = {i["id"]: i for i in items}
    ranked = keyword_rank(query[:MAX_QUERY_CHARS], items, text_key=text_key)
    start = page * page_size
    hits = []
    for fused in ranked[start : start + page_size]:
        item = by_id[fused.id]
        meta = {k: item[k] for k in ("session_id", "role", "seq") if item.get(k) is not None}
        meta["source"] = "redis"
        if kind == "recall":
            meta["label"] = "Message"
        hits.append(
            SearchHit(
                id=fused.id,
                text=str(item.get(text_key) or ""),
                score=fused.score,
                created_at=item.get("created_at"),
                kind="message" if kind == "recall" else item.get("kind") or "memory",
                tags=list(item.get("tags") or []),
                scores=dict(fused.scores),
                metadata=meta,
            )
        )
    return SearchPage(hits, page, page_size, recipe, degraded=True, has_more=len(ranked) > start + page_size)


def merge_fresh(
    found: SearchPage, fresh: Sequence[dict], query: str, *, kinds: Sequence[str] | None = None
) -> SearchPage:
    """Page 0 of ``found`` with the learner's not-yet-drained messages (read-your-writes).

    ``fresh`` are the kernel stream's tail items (``KernelStream.tail``): logged, not
    embedded or written to Neo4j yet. They are ranked by query-word overlap and fused
    with the stored hits by reciprocal rank (k=60, as the hybrid recipes fuse), so a
    message logged one step ago is found by the next search. Later pages are the
    stored ones only (the tail drains within the worker's flush interval).
    """
    if found.page != 0 or not fresh or kinds is not None and "message" not in kinds:
        return found
    stored = {h.id for h in found.results}
    items = [i for i in reversed(fresh) if i.get("id") not in stored]  # newest first on ties
    ranked = keyword_rank(query[:MAX_QUERY_CHARS], items, text_key="content")
    if not ranked:
        return found
    by_id = {i["id"]: i for i in items}
    scored: dict[str, tuple[float, SearchHit]] = {}
    for rank, hit in enumerate(found.results, start=1):
        scored[hit.id] = (1.0 / (60 + rank), hit)
    for fused in ranked[: found.page_size]:
        item = by_id[fused.id]
        meta = {k: item[k] for k in ("session_id", "role", "seq") if item.get(k) is not None}
        meta.update(source="kernel-tail", label="Message")
        hit = SearchHit(
            id=fused.id,
            text=str(item.get("content") or ""),
            score=1.0 / (60 + fused.best_rank),
            created_at=item.get("created_at"),
            kind="message",
            tags=[],
            scores={"keyword": fused.score},
            metadata=meta,
        )
        scored[fused.id] = (hit.score, hit)
    merged = sorted(scored.values(), key=lambda pair: -pair[0])
    results = [hit for _, hit in merged[: found.page_size]]
    more = found.has_more or len(merged) > found.page_size
    return replace(found, results=results, has_more=more)
