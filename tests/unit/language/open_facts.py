"""Open (current) fact hits for the read-time net's tests (``fact_order.newest_first``)."""

from __future__ import annotations

from agent.search.results import SearchHit


def open_fact(i: str, text: str, valid_from: str) -> SearchHit:
    """A current fact hit with id ``i`` valid from ``valid_from`` (ISO-8601)."""
    meta = {"current": True, "valid_from": valid_from}
    return SearchHit(id=i, text=text, score=1.0, created_at=valid_from, kind="fact", metadata=meta)
