"""Contradictions resolved before the brief: superseded facts, their sources, the learner's questions."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from agent.clock import ManualClock
from agent.kernel.consult.brief import template_brief
from agent.kernel.consult.models import parse_request
from agent.kernel.consult.resolve import is_question, resolve
from agent.kernel.consult.service import enrich
from agent.search.results import SearchHit

OLD, NEW = "I live in Da Nang and study online.", "Actually, I moved to Hanoi last week."


def hit(i: str, text: str, kind: str, **meta: Any) -> SearchHit:
    return SearchHit(id=i, text=text, score=0.5, created_at=None, kind=kind, metadata=meta)


PROVENANCE = {
    "stale": [
        {
            "id": "f-old",
            "text": OLD,
            "valid_to": "2026-02-13T09:00:00+00:00",
            "by_id": "f-new",
            "by_text": NEW,
            "episodes": [{"id": "m-old", "content": OLD}],
        }
    ],
    "sources": [
        {"id": "m-old-ctx", "message_id": "m-old", "role": "user", "content": OLD},
        {"id": "m-q-ctx", "message_id": "m-q", "role": "user", "content": "Where do I live now?"},
        {"id": "m-a-ctx", "message_id": "m-a", "role": "assistant", "content": "Nice city?"},
    ],
}
HITS = [
    hit("m-q", "Where do I live now?", "message", role="user", store="recall"),
    hit("m-old", OLD, "message", role="user", store="recall"),
    hit("m-q-ctx", "1:00 am on 20 February, 2026. Where do I live now? (replying to Hi)", "turn_context"),
    hit("m-old-ctx", f"1:00 am on 10 January, 2026. {OLD}", "turn_context"),
    hit("m-r-ctx", f"1:00 am on 10 January, 2026. Good luck! (replying to {OLD.upper()})", "turn_context"),
    hit("m-a-ctx", "9:01 am on 13 February, 2026. Nice city?", "turn_context"),
    hit("f-old", OLD, "fact", current=False, valid_to="2026-02-13T09:00:00+00:00", store="facts"),
    hit("m-new", NEW, "message", role="user", store="expand"),
    hit("f-new", NEW, "fact", current=True, store="facts"),
]


def test_the_question_rule_is_the_blends() -> None:
    assert is_question("Where do I live now?  ") and not is_question("I live in Hanoi.")


def test_superseded_sources_and_questions_are_dropped_and_current_facts_lead() -> None:
    resolved = resolve(HITS, PROVENANCE)
    assert [h.id for h in resolved.hits] == ["f-new", "m-a-ctx", "f-old"]
    assert [h.id for h in resolved.current()] == ["f-new", "m-a-ctx"]  # an assistant's question stays
    assert resolved.superseded["f-old"] == {
        "current": False,
        "valid_to": "2026-02-13T09:00:00+00:00",
        "superseded_by": NEW,
        "superseded_by_id": "f-new",
    }
    assert resolved.dropped == {"superseded_source": 3, "question": 2, "duplicate": 1}
    [covered] = [h for h in resolved.for_coverage() if h.id == "f-new"]
    assert covered.text == f"{NEW} {OLD}"  # what the fact replaced says what it is about


def test_without_provenance_only_the_hits_own_marks_count() -> None:
    resolved = resolve(HITS)
    # no episodes or sources known: the superseded fact's own text still finds its statements
    assert [h.id for h in resolved.hits] == ["f-new", "m-q-ctx", "m-a-ctx", "f-old"]
    assert resolved.dropped == {"superseded_source": 3, "question": 1, "duplicate": 1}
    assert resolved.superseded["f-old"]["current"] is False
    assert resolved.superseded["f-old"]["superseded_by"] is None


def test_the_brief_presents_current_facts_only() -> None:
    clock = ManualClock(datetime(2026, 3, 1, tzinfo=UTC))
    found = {"hits": [h.to_dict() for h in HITS], "provenance": PROVENANCE}
    evidence = enrich(parse_request({"query": "Where do I live?"}), found, clock)["evidence"]
    rows = evidence["facts"]
    assert [r["id"] for r in rows] == ["f-new", "m-a-ctx", "f-old"]
    assert rows[-1]["current"] is False and rows[-1]["superseded_by"] == NEW
    assert evidence["basis"]["dropped"]["question"] == 2 and evidence["confidence"] > 0.3
    brief = template_brief("Where do I live?", evidence, evidence["confidence"])
    assert "Hanoi" in brief and "Da Nang" not in brief and "Where do I live now" not in brief
