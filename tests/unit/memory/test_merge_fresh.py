"""Read-your-writes merge: fresh (undrained) messages fused into page 0 of a stored search."""

from __future__ import annotations

from agent.memory.recent import merge_fresh
from agent.search.results import SearchHit, SearchPage


def _hit(i: str, text: str) -> SearchHit:
    return SearchHit(
        id=i, text=text, score=0.03, created_at=None, kind="message", tags=[], scores={}, metadata={}
    )


def _page(*hits: SearchHit, page: int = 0, size: int = 3) -> SearchPage:
    return SearchPage(list(hits), page, size, "hybrid_rrf", has_more=False)


FRESH = [
    {"id": "f1", "role": "user", "content": "my tortoise is called Quillibert", "session_id": "s"},
    {"id": "f2", "role": "assistant", "content": "nothing to do with it", "session_id": "s"},
]


def test_a_matching_fresh_message_competes_by_rank_with_stored_hits() -> None:
    stored = _page(_hit("a", "tortoise facts"), _hit("b", "joins"), _hit("c", "more joins"))
    merged = merge_fresh(stored, FRESH, "tortoise Quillibert")
    ids = [h.id for h in merged.results]
    assert ids[:2] in (["a", "f1"], ["f1", "a"])  # both rank first in their own list
    assert "f2" not in ids  # no query word: not a hit
    assert len(ids) == 3 and merged.has_more  # the page keeps its size; the rest is on later pages
    fresh = next(h for h in merged.results if h.id == "f1")
    assert fresh.metadata["source"] == "kernel-tail" and fresh.metadata["session_id"] == "s"


def test_stored_copies_win_and_later_pages_or_other_kinds_are_untouched() -> None:
    stored = _page(_hit("f1", "my tortoise is called Quillibert"))
    assert [h.id for h in merge_fresh(stored, FRESH, "tortoise").results] == ["f1"]
    assert "source" not in merge_fresh(stored, FRESH, "tortoise").results[0].metadata
    later = _page(_hit("x", "x"), page=1)
    assert merge_fresh(later, FRESH, "tortoise") is later
    assert merge_fresh(stored, FRESH, "tortoise", kinds=["note"]) is stored
    assert merge_fresh(stored, [], "tortoise") is stored
