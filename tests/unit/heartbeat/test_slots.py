"""Working memory task slots: the reducer's cap and eviction order, rendering, parsing."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from langchain_core.messages import HumanMessage, SystemMessage, ToolMessage

from agent.heartbeat.slots import (
    HEADER,
    MAX_CONTENT_CHARS,
    MAX_SLOTS,
    SEARCH_TOOLS,
    SLOT_TYPES,
    TOOL_HITS,
    clear_slots,
    hit_slots,
    make_slot,
    merge_slots,
    reminder_slot,
    render_slots,
    tool_hits,
)
from agent.heartbeat.working_memory import compile_prompt
from agent.models.slot_block import read_slots
from agent.search.results import SearchHit


def _slot(i: int, relevance: float, type_: str = "retrieved_fact"):
    return make_slot(type_, f"fact number {i}", id=f"s{i}", relevance=relevance)


def test_the_six_slot_types_and_unknown_types_are_refused():
    assert set(SLOT_TYPES) == {
        "question",
        "retrieved_fact",
        "reasoning_step",
        "context",
        "plan",
        "evaluation",
    }
    with pytest.raises(ValueError, match="unknown slot type"):
        make_slot("memory", "x", id="x")


def test_make_slot_clamps_relevance_flattens_and_caps_content():
    slot = make_slot("context", "line one\nline   two " + "x" * 900, id="a b]c", relevance=7)
    assert slot["relevance"] == 1.0
    assert "\n" not in slot["content"] and slot["content"].startswith("line one line two")
    assert len(slot["content"]) == MAX_CONTENT_CHARS
    assert slot["id"] == "a_b_c"
    assert make_slot("plan", "p", id="p", relevance=-1)["relevance"] == 0.0


def test_at_most_twenty_and_the_lowest_relevance_is_evicted_first():
    slots = [_slot(i, 0.5) for i in range(MAX_SLOTS)]
    slots[7] = _slot(7, 0.1)  # the weakest
    slots[3] = _slot(3, 0.2)  # the second weakest
    merged = merge_slots([], slots)
    assert len(merged) == MAX_SLOTS
    merged = merge_slots(merged, [_slot(100, 0.9)])
    assert len(merged) == MAX_SLOTS
    ids = [s["id"] for s in merged]
    assert "s7" not in ids and "s3" in ids and "s100" in ids
    merged = merge_slots(merged, [_slot(101, 0.9)])
    assert "s3" not in [s["id"] for s in merged]
    # Order is kept for the survivors.
    assert [s["id"] for s in merged][-2:] == ["s100", "s101"]


def test_ties_evict_the_oldest_and_a_weak_newcomer_is_evicted_itself():
    merged = merge_slots([], [_slot(i, 0.5) for i in range(MAX_SLOTS)])
    merged = merge_slots(merged, [_slot(50, 0.5)])
    assert merged[0]["id"] == "s1" and merged[-1]["id"] == "s50"  # s0, the oldest of equals, went
    merged = merge_slots(merged, [_slot(51, 0.05)])
    assert "s51" not in [s["id"] for s in merged]
    assert len(merged) == MAX_SLOTS


def test_same_id_replaces_in_place():
    merged = merge_slots([_slot(1, 0.5), _slot(2, 0.5)], [make_slot("plan", "new", id="s1", relevance=0.9)])
    assert [s["id"] for s in merged] == ["s1", "s2"]
    assert merged[0]["content"] == "new" and merged[0]["type"] == "plan"


def test_the_clear_sentinel_empties_what_came_before_it():
    held = merge_slots([], [_slot(i, 0.5) for i in range(5)])
    assert merge_slots(held, [clear_slots()]) == []
    fresh = merge_slots(held, [clear_slots(), _slot(9, 1.0)])
    assert [s["id"] for s in fresh] == ["s9"]
    assert merge_slots(None, None) == []


def test_render_and_read_round_trip():
    slots = merge_slots(
        [],
        [
            make_slot("question", "Where do I live now?", id="question", relevance=1.0),
            make_slot("retrieved_fact", "fact: I moved to Hanoi [current]", id="r-fact-1", relevance=0.9),
            make_slot("plan", "REMINDER abc: review GROUP BY", id="reminder-abc", relevance=1.0),
        ],
    )
    block = render_slots(slots)
    lines = block.splitlines()
    assert lines[0] == HEADER
    assert lines[1] == "- [question id=question relevance=1.00] Where do I live now?"
    assert lines[2] == "- [retrieved_fact id=r-fact-1 relevance=0.90] fact: I moved to Hanoi [current]"
    prompt = compile_prompt({"user_profile": "Name: Ana"}, [HumanMessage("hi")], slots=slots)
    parsed = read_slots(prompt)
    assert [p["id"] for p in parsed] == ["question", "r-fact-1", "reminder-abc"]
    assert parsed[2] == {
        "type": "plan",
        "id": "reminder-abc",
        "relevance": 1.0,
        "content": "REMINDER abc: review GROUP BY",
    }
    assert read_slots([{"role": "system", "content": f"persona\n\n{block}"}])[1]["relevance"] == 0.9


def test_slots_render_after_core_memory_and_not_at_all_when_empty():
    slots = [make_slot("question", "q", id="question", relevance=1.0)]
    head = compile_prompt({"user_profile": "Name: Ana"}, [], slots=slots)[0].content
    assert head.index("CORE MEMORY") < head.index("</user_profile>") < head.index(HEADER)
    assert render_slots([]) == ""
    assert HEADER not in compile_prompt({"user_profile": "Name: Ana"}, [])[0].content
    assert read_slots([SystemMessage("no block here"), HumanMessage(HEADER)]) == []


def test_hits_become_retrieved_slots_with_relative_relevance():
    hits = [
        SearchHit(
            "a",
            "I moved to Hanoi",
            0.04,
            None,
            "fact",
            metadata={"valid_from": "2026-02-20T00:00", "current": True},
        ),
        SearchHit(
            "b", "I live in Paris", 0.02, "2026-01-01", "fact", metadata={"valid_to": "2026-02-20T00:00"}
        ),
        SearchHit("c", "we talked about joins", 0.0, "2026-01-03T10:00", "message"),
    ]
    slots = hit_slots(hits, "appraise")
    assert [s["id"] for s in slots] == ["r-fact-a", "r-fact-b", "r-message-c"]
    assert [s["relevance"] for s in slots] == [0.9, 0.6, 0.3]
    assert slots[0]["content"] == "fact: (2026-02-20) I moved to Hanoi [current]"
    assert slots[1]["content"] == "fact: (2026-01-01) I live in Paris [superseded 2026-02-20]"
    assert slots[2]["content"] == "message: (2026-01-03) we talked about joins"
    assert all(s["type"] == "retrieved_fact" and s["source"] == "appraise" for s in slots)
    assert [s["relevance"] for s in hit_slots(hits[2:], "x")] == [0.5]  # no scores at all


def test_search_tool_results_are_read_top_three():
    rows = [
        {"id": f"m{i}", "text": f"memory {i}", "score": 1.0 / (i + 1), "kind": "memory"} for i in range(5)
    ]
    message = ToolMessage(
        content=json.dumps({"results": rows}), tool_call_id="c1", name="archival_memory_search"
    )
    hits = tool_hits(message)
    assert [h.id for h in hits] == ["m0", "m1", "m2"] and TOOL_HITS == 3
    assert "archival_memory_search" in SEARCH_TOOLS and "recall_procedure" in SEARCH_TOOLS
    assert tool_hits(ToolMessage(content="not json", tool_call_id="c2", name="search_facts")) == []


def test_a_fired_reminder_is_a_plan_slot_the_policy_can_read():
    reminder = SimpleNamespace(
        id="rem-1",
        description="review GROUP BY",
        action="Remind the learner to review GROUP BY",
        priority=1,
        trigger_kind="keywords",
    )
    slot = reminder_slot(reminder)
    assert slot["id"] == "reminder-rem-1" and slot["type"] == "plan" and slot["relevance"] == 1.0
    assert slot["content"].startswith("REMINDER rem-1: review GROUP BY")
    assert "(action:" not in slot["content"], "the default action adds nothing"
    custom = reminder_slot(SimpleNamespace(**{**vars(reminder), "action": "quiz them on GROUP BY"}))
    assert "(action: quiz them on GROUP BY)" in custom["content"]
