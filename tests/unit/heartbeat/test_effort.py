"""Adaptive effort: the local classification rules, budgets, sufficiency and used slots."""

from __future__ import annotations

import pytest

from agent.heartbeat.effort import (
    COMPLEX_INTENTS,
    EFFORT,
    INTENTS,
    MAX_ROUNDS,
    SUFFICIENCY_THRESHOLD,
    USED_OVERLAP,
    appraisal_rounds,
    classify_offline,
    content_stems,
    evaluate,
    new_effort,
    step_budget,
    think_limit,
    used_slots,
    widen,
)
from agent.heartbeat.slots import make_slot
from agent.memory.blend import PLANS
from agent.search.results import SearchHit

RULES_TABLE = [
    # simple recall (the catch-all)
    ("What is my name?", "simple_recall"),
    ("What does the learner study?", "simple_recall"),
    ("hello", "simple_recall"),
    ("Please write my notes now.", "simple_recall"),
    ("Remind me to review GROUP BY when we reach HAVING", "simple_recall"),
    # procedural
    ("How do I write a LEFT JOIN again?", "procedural"),
    ("What were my steps for normalising a table?", "procedural"),
    ("Walk me through the procedure", "procedural"),
    ("how to pivot in pandas", "procedural"),
    ("How does the learner differentiate a product?", "procedural"),
    # contradiction
    ("Actually, I moved to Hanoi", "contradiction_resolution"),
    ("Where do I live now?", "contradiction_resolution"),
    ("Do I still use Jupyter?", "contradiction_resolution"),
    ("What is my current goal?", "contradiction_resolution"),
    ("I no longer work at the hospital", "contradiction_resolution"),
    ("Which editor do I use for Python?", "contradiction_resolution"),
    ("Where does the learner live?", "contradiction_resolution"),
    # temporal
    ("When did I start learning SQL?", "temporal_comparison"),
    ("Where did I live before Hanoi?", "temporal_comparison"),
    ("How has my goal changed over time?", "temporal_comparison"),
    ("Which editor did I use previously?", "temporal_comparison"),
    ("How did the learner's quiz scores change?", "temporal_comparison"),
    ("What typing speeds did I reach, in order?", "temporal_comparison"),
    ("What went wrong when I rebased?", "simple_recall"),  # "when" that asks nothing
    # synthesis
    ("Give me a summary of everything I learned about joins", "multi_source_synthesis"),
    ("Compare inner and outer joins from my notes", "multi_source_synthesis"),
    ("What are all my goals?", "multi_source_synthesis"),
    ("What do I know about SQL joins?", "multi_source_synthesis"),
    ("Which shell commands have I learned?", "multi_source_synthesis"),
    # computation
    ("Calculate my average quiz score", "computation"),
    ("How many sessions did we have?", "computation"),
    ("what is 12 * 7", "computation"),
    ("what is 40% of my time", "computation"),
]


@pytest.mark.parametrize(("text", "intent"), RULES_TABLE)
def test_offline_rules(text, intent):
    assert classify_offline(text) == intent


def test_every_intent_has_a_budget_and_its_blend_plan():
    assert set(EFFORT) == set(INTENTS) == set(PLANS)
    for intent, effort in EFFORT.items():
        assert effort.intent == intent and effort.max_steps >= 1
        assert effort.plan is PLANS[intent]
    assert EFFORT["multi_source_synthesis"].max_steps > EFFORT["computation"].max_steps
    assert EFFORT["temporal_comparison"].max_steps > EFFORT["procedural"].max_steps


def test_step_budget_is_capped_by_context_max_steps():
    assert step_budget("multi_source_synthesis", 5) == 5
    assert step_budget("multi_source_synthesis", 20) == EFFORT["multi_source_synthesis"].max_steps
    assert step_budget("computation", 5) == EFFORT["computation"].max_steps
    assert step_budget("computation", 1) == 1


def test_appraisal_rounds_leave_one_think_step():
    for intent in INTENTS:
        rounds = appraisal_rounds(intent, 5)
        assert rounds == (min(MAX_ROUNDS, 4) if intent in COMPLEX_INTENTS else 0)
    assert appraisal_rounds("temporal_comparison", 1) == 0
    assert appraisal_rounds("temporal_comparison", 2) == 1


def test_think_limit_subtracts_rounds():
    assert think_limit(None, 5) == 5
    assert think_limit({"budget": 4, "rounds": 2}, 5) == 2
    assert think_limit({"budget": 8, "rounds": 2}, 5) == 3
    assert think_limit({"budget": 1, "rounds": 3}, 5) == 1


def test_widen_searches_more():
    plan = PLANS["contradiction_resolution"]
    wide = widen(plan)
    assert wide.k > plan.k and wide.include_history and wide.expand_depth > plan.expand_depth
    assert set(wide.sources) == {"facts", "procedures", "archival", "recall"}
    assert wide.name != plan.name


def _hit(i: int, text: str, score: float = 0.5, **meta):
    return SearchHit(id=f"h{i}", text=text, score=score, created_at=None, kind="fact", metadata=meta)


def test_sufficiency_is_the_share_of_content_words_covered():
    request = "Where do I live now, Hanoi or Paris?"  # content words: live, hanoi, paris
    assert content_stems(request) == {"live", "hanoi", "pari"}  # light stems
    full = evaluate(request, [_hit(1, "I live in Hanoi"), _hit(2, "I lived in Paris")])
    assert full.coverage == 1.0 and full.sufficient and full.missing == ()
    part = evaluate(request, [_hit(1, "I moved to Hanoi")])
    assert part.coverage == 0.333 and not part.sufficient
    assert part.missing == ("live", "pari")
    assert "insufficient" in part.describe(1) and "missing: live, pari" in part.describe(1)
    assert SUFFICIENCY_THRESHOLD == 0.6
    assert not evaluate(request, []).sufficient, "nothing found is never sufficient"
    assert evaluate("Is it so?", [_hit(1, "anything")]).sufficient  # no content words: a hit suffices


def test_used_slots_need_half_of_a_slots_content_words_in_the_answer():
    slots = [
        make_slot("retrieved_fact", "fact: (2026-02-20) I moved to Hanoi [current]", id="r-fact-1"),
        make_slot("retrieved_fact", "fact: (2026-01-05) I lived in Paris near the river", id="r-fact-2"),
        make_slot("question", "Where do I live now?", id="question"),
    ]
    ids = ["r-fact-1", "r-fact-2"]
    assert used_slots("You live in Hanoi.", slots, ids) == ["r-fact-1"]
    assert used_slots("Nothing relevant.", slots, ids) == []
    assert used_slots("Hanoi now; before that Paris, near the river.", slots, ids) == ids
    assert USED_OVERLAP == 0.5


def test_a_fresh_effort_record_has_every_counter():
    record = new_effort("procedural", "rules", 4, "procedural")
    assert record["intent"] == "procedural" and record["budget"] == 4
    for key in ("rounds", "think_steps", "steps_used", "evaluations", "self_corrections"):
        assert record[key] == 0
    assert record["retrieved"] == record["used"] == record["reminders"] == []
    assert record["sufficient"] is None and record["coverage"] is None


def test_statements_take_no_appraisal_rounds():
    assert appraisal_rounds("contradiction_resolution", 5, "Actually, I moved to Hanoi last week.") == 0
    assert appraisal_rounds("contradiction_resolution", 5, "Where do I live now?") >= 1
    assert appraisal_rounds("temporal_comparison", 5, "Hi. When did I start SQL?") >= 1
