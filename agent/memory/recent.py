"""Degraded-mode reads: keyword search over the recent items cached in Redis.

Used only while Neo4j is unreachable; the ranking is ``keyword_rank`` (query-word
coverage, newest first on ties), so results are rougher than hybrid retrieval.
"""

from __future__ import annotations

from collections.abc import Sequence

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
