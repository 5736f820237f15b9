"""The design's metrics over hand-built runs, with every expected value worked out by hand."""

from __future__ import annotations

import json

import pytest

from bench import note_metrics
from bench.ablations.run_metrics import (
    METRICS,
    TARGET_RANGES,
    TARGETS,
    auto_archive_success,
    average_steps,
    context_utilisation,
    link_density,
    max_steps_rate,
    meets_target,
    note_atomicity,
    overflow_count,
    pressure_series,
    pressure_trigger_rate,
    recall_in_budget,
    recall_precision,
    recall_rate,
    recall_series,
    summarise,
    tool_chain_success,
)
from bench.ablations.run_record import RunRecord, ToolResult

OK = ToolResult("a", True)
FAIL = ToolResult("b", False)


def rec(turn: int, session: str, **kw) -> RunRecord:
    return RunRecord(variant="v", session=session, turn=turn, request=f"r{turn}", max_steps=5, **kw)


@pytest.fixture
def run() -> list[RunRecord]:
    return [
        # session s1: a quiet turn, then a probe that crosses 0.70 and archives once.
        rec(0, "s1", monitor_pressures=(0.5,), prompt_pressures=(0.5,), steps=1, response="hi"),
        rec(
            1,
            "s1",
            monitor_pressures=(0.8, 0.4),
            prompt_pressures=(0.4, 0.6),
            archive_events=(True,),
            steps=2,
            tool_results=(ToolResult("conversation_search", True),),
            retrieved=("Okafor here", "noise"),
            expected="okafor",
            fact_turn=0,
            response="You said Ana OKAFOR.",
        ),
        # session s2: an overflowing prompt, a failed eviction, a tool error and the whole step budget.
        rec(
            2,
            "s2",
            monitor_pressures=(0.3,),
            prompt_pressures=(0.3, 1.2),
            archive_events=(False, True),
            steps=5,
            tool_results=(OK, FAIL),
            response="x",
        ),
        rec(
            3,
            "s2",
            monitor_pressures=(0.2,),
            prompt_pressures=(0.2,),
            steps=2,
            tool_results=(OK, OK),
            retrieved=("cat", "Miso the cat", "miso"),
            expected="Miso",
            fact_turn=1,
            response="no idea",
        ),
        # session s3: a two-tool chain that ends without an answer.
        rec(4, "s3", monitor_pressures=(0.1,), prompt_pressures=(0.1,), steps=1, tool_results=(OK, OK)),
    ]


def test_pressure_trigger_rate_counts_sessions(run):
    # s1 (0.8) and s2 (prompt 1.2) pass 0.70; s3 does not.
    assert pressure_trigger_rate(run) == pytest.approx(2 / 3)


def test_auto_archive_success(run):
    assert auto_archive_success(run) == pytest.approx(2 / 3)  # True, False, True


def test_context_utilisation_is_the_mean_prompt_pressure(run):
    assert context_utilisation(run) == pytest.approx((0.5 + 0.4 + 0.6 + 0.3 + 1.2 + 0.2 + 0.1) / 7)


def test_overflow_counts_sessions_with_a_prompt_over_budget(run):
    assert overflow_count(run) == 1


def test_steps(run):
    assert average_steps(run) == pytest.approx(11 / 5)
    assert max_steps_rate(run) == pytest.approx(1 / 5)


def test_tool_chain_success_needs_two_calls_no_error_and_an_answer(run):
    # chains: turn 2 (tool error), turn 3 (ok), turn 4 (no answer); turn 1 has one call only.
    assert tool_chain_success(run) == pytest.approx(1 / 3)


def test_recall(run):
    # probe 1: 1 of 2 hits relevant; probe 3: 2 of 3 ("Miso the cat", "miso").
    assert recall_precision(run) == pytest.approx(3 / 5)
    assert recall_rate(run) == pytest.approx(1 / 2)
    assert recall_in_budget(run) == pytest.approx(1 / 2)
    assert recall_series(run) == [
        {"turn": 1, "distance": 1, "expected": "okafor", "recalled": True, "in_budget": True},
        {"turn": 3, "distance": 2, "expected": "Miso", "recalled": False, "in_budget": False},
    ]


def test_recall_in_budget_drops_answers_from_an_overflowing_prompt():
    fits = rec(1, "s", prompt_pressures=(0.6, 1.0), expected="miso", fact_turn=0, response="Miso")
    over = rec(2, "s", prompt_pressures=(0.9, 1.3), expected="miso", fact_turn=0, response="Miso")
    assert fits.recalled_in_budget and over.recalled and not over.recalled_in_budget
    assert recall_rate([fits, over]) == 1.0 and recall_in_budget([fits, over]) == pytest.approx(0.5)
    assert recall_in_budget([]) is None


def test_pressure_series_reads_arrival_peak_and_evictions(run):
    series = pressure_series(run)
    assert [p["turn"] for p in series] == [0, 1, 2, 3, 4]
    assert series[1] == {"turn": 1, "session": "s1", "first": 0.8, "peak": 0.8, "last": 0.6, "archived": 1}
    assert series[2]["peak"] == 1.2 and series[2]["archived"] == 1  # one of two evictions succeeded
    assert pressure_series([rec(0, "s")])[0] == {
        "turn": 0,
        "session": "s",
        "first": 0.0,
        "peak": 0.0,
        "last": 0.0,
        "archived": 0,
    }


@pytest.mark.parametrize(
    ("metric", "value", "expected"),
    [
        ("pressure_trigger_rate", 0.2, True),
        ("pressure_trigger_rate", 0.21, False),
        ("context_utilisation", 0.5, True),
        ("context_utilisation", 0.71, False),
        ("context_utilisation", 0.49, False),
        ("overflow_count", 0, True),
        ("overflow_count", 1, False),
        ("average_steps", 1.46, False),
        ("link_density", 2.0, True),
        ("recall_precision", 0.79, False),
        ("recall_rate", 0.5, None),  # no target
        ("average_steps", None, None),  # nothing measured
    ],
)
def test_meets_target(metric, value, expected):
    assert meets_target(metric, value) is expected


def test_every_target_has_bounds_except_recall():
    assert set(TARGET_RANGES) == set(TARGETS) - {"recall_rate", "recall_in_budget"}
    assert set(TARGETS) == set(METRICS)


def test_note_metrics_come_from_the_note_metrics_module():
    rows = [
        {"id": "n1", "audit_json": json.dumps({"concept_count": 1}), "degree": 2},
        {"id": "n2", "audit_json": json.dumps({"concept_count": 2}), "degree": 1},
        {"id": "n3", "audit_json": json.dumps({"concept_count": 3}), "degree": 3},
    ]
    notes = note_metrics.summarise(rows)
    assert note_atomicity(notes) == pytest.approx(2.0)
    assert link_density(notes) == pytest.approx(2.0)
    assert note_atomicity(note_metrics.summarise([])) is None
    assert link_density(None) is None


def test_summary_and_nothing_to_measure(run):
    summary = summarise(run)
    assert summary["turns"] == 5 and summary["sessions"] == 3
    assert summary["archive_attempts"] == 3 and summary["tool_calls"] == 7
    assert summary["note_atomicity"] is None
    empty = summarise([])
    assert empty["overflow_count"] == 0
    assert all(empty[k] is None for k in ("pressure_trigger_rate", "average_steps", "recall_rate"))


def test_sessions_of_different_variants_are_distinct():
    a = rec(0, "s1", monitor_pressures=(0.9,))
    b = RunRecord(variant="w", session="s1", turn=0, request="r", monitor_pressures=(0.1,))
    assert pressure_trigger_rate([a, b]) == pytest.approx(0.5)


def test_record_flags():
    r = rec(7, "s", steps=5, prompt_pressures=(1.0,), expected="x", fact_turn=2, response="")
    assert r.hit_max_steps and not r.overflowed and r.distance == 5 and not r.recalled
    assert not rec(0, "s").triggered and rec(0, "s").peak_pressure == 0.0
