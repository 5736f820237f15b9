"""The kernel benches' own logic without a run: the planted set, the scoring rules, the report lines."""

from __future__ import annotations

import json
import re
from typing import Literal

import pytest
from langchain_core.messages import HumanMessage
from pydantic import BaseModel

from bench.heartbeat import BASELINE, GRAPH_LABELS, KERNEL, NO_TOOL, TOOL, ScriptedModel, Series, report
from bench.kernel.learning import load_set, small_set
from bench.kernel.learning_score import matches, score
from bench.kernel.learning_set import (
    DEV,
    HELDOUT,
    HELDOUT2,
    HELDOUT2_PATH,
    HELDOUT2_SEED,
    HELDOUT_PATH,
    HELDOUT_SEED,
    PATH,
    SEED,
    build,
)
from bench.kernel.rag import CONSULT, Output, ProbeRow
from bench.kernel.report import SNAPSHOT, load_results, rag_table
from bench.kernel.turn_report import BASELINE_REDIS, HEARTBEAT_INMEMORY, growth_lines


@pytest.mark.parametrize(
    ("path", "seed", "spec"),
    [(PATH, SEED, DEV), (HELDOUT_PATH, HELDOUT_SEED, HELDOUT), (HELDOUT2_PATH, HELDOUT2_SEED, HELDOUT2)],
    ids=["dev", "heldout", "heldout2"],
)
def test_the_committed_sets_are_what_the_generator_writes_and_their_truth_holds(path, seed, spec):
    data = load_set(path)
    assert data == json.loads(json.dumps(build(seed, spec)))
    said = {lr["id"]: [m for s in lr["sessions"] for m in s["messages"]] for lr in data["learners"]}
    sessions = {lr["id"]: [s["messages"] for s in lr["sessions"]] for lr in data["learners"]}
    truth = data["truth"]
    for planted in truth["bottlenecks"]:  # many learners struggle on each planted bottleneck
        assert len(planted["learners"]) >= 0.5 * len(data["learners"])
        for lid in planted["learners"]:
            assert any(planted["concept"].lower() in m.lower() for m in said[lid])
    assert all(len(c["learners"]) <= 2 for c in truth["non_bottlenecks"])
    for r in truth["recurring_errors"]:  # three statements, in three different sessions
        hits = [i for i, msgs in enumerate(sessions[r["learner"]]) if any(r["concept"] in m for m in msgs)]
        assert len(hits) == 3
    assert len(truth["common_errors"]) == 2 and all(len(c["learners"]) >= 3 for c in truth["common_errors"])
    assert len(truth["one_off_errors"]) == 8


def test_concepts_match_by_alias_and_words():
    assert matches("sql join", ["SQL joins", "join"])
    assert matches("join", ["SQL joins"])
    assert matches("closure", ["closures"])
    assert not matches("binary tree", ["binary search"])
    assert not matches("", ["recursion"])


def _perfect(data):
    patterns = {
        r["learner"]: [{"kind": "recurring_error", "concept": r["concept"], "error_kind": r["error_kind"]}]
        for r in data["truth"]["recurring_errors"]
    }
    agg = {
        "bottlenecks": {b["concept"]: len(b["learners"]) for b in data["truth"]["bottlenecks"]},
        "struggles": {},
        "recurring_errors": {c["error_kind"]: len(c["learners"]) for c in data["truth"]["common_errors"]},
    }
    return patterns, agg


def test_scores_are_precision_and_recall_against_the_planted_truth():
    data = load_set()
    ids = {lr["id"]: lr["id"] for lr in data["learners"]}
    patterns, agg = _perfect(data)
    scores = {s.name: s for s in score(data, ids, patterns, agg)}
    bottleneck = scores["bottleneck detection (aggregate bottlenecks)"]
    assert (bottleneck.recall, bottleneck.precision) == (1.0, 1.0)
    assert scores["pattern recognition (recurring error, concept)"].recall == 1.0
    assert scores["common errors aggregated (kind, learner count)"].recall == 1.0

    # a bottleneck below the share threshold is not detected; a one-off error pattern costs precision
    agg["bottlenecks"]["closures"] = 2
    agg["bottlenecks"]["binary tree"] = 9
    patterns["learner-01"] = []
    patterns["learner-11"] = [
        {"kind": "recurring_error", "concept": "averages", "error_kind": "ZeroDivisionError"}
    ]
    scores = {s.name: s for s in score(data, ids, patterns, agg)}
    bottleneck = scores["bottleneck detection (aggregate bottlenecks)"]
    assert bottleneck.recall == 2 / 3 and bottleneck.missed == ["closures"]
    assert bottleneck.precision == 2 / 3 and bottleneck.extra == ["binary tree"]
    pattern = scores["pattern recognition (recurring error, concept)"]
    assert pattern.recall == 9 / 10 and pattern.precision == 9 / 10
    assert "MISS" in bottleneck.line() and "PASS" in pattern.line()


def test_the_small_set_cuts_the_truth_to_its_learners():
    data = small_set(load_set(), 6)
    keep = {lr["id"] for lr in data["learners"]}
    assert len(keep) == 6
    assert all(set(b["learners"]) <= keep for b in data["truth"]["bottlenecks"])
    assert all(r["learner"] in keep for r in data["truth"]["recurring_errors"])


def test_a_contradiction_is_resolved_only_without_the_old_value_shown_as_current():
    row = ProbeRow("dev-L5-city", "L5", "Where does the learner live?", [["hanoi"]], "da nang")
    row.outputs[CONSULT] = Output(
        "Hanoi now", [("I moved to Hanoi", None), ("I live in Da Nang", False)], 0.01
    )
    assert row.found(CONSULT) and row.resolved(CONSULT)
    row.outputs[CONSULT] = Output(
        "Hanoi, Da Nang", [("I moved to Hanoi", True), ("I live in Da Nang", None)], 0.01
    )
    assert row.found(CONSULT) and not row.resolved(CONSULT)
    assert ProbeRow("x", "L1", "q", [["a"]], None).resolved(CONSULT) is None


def test_the_scripted_model_counts_calls_and_tokens_and_answers_structured_output():
    model = ScriptedModel(direct=True)
    reply = model.invoke([HumanMessage(content="Question 1")])
    assert reply.text.startswith("Answer") and not reply.tool_calls
    assert model.calls == 1 and model.input_tokens > 0 and model.output_tokens > 0
    tokens = model.input_tokens + model.output_tokens
    # Structured output like a provider's: a valid instance, and one more counted call.
    choice = model.with_structured_output(_Choice).invoke([HumanMessage(content="How do I join?")])
    assert choice == _Choice(kind="recall", text="How do I join?", tags=[], score=0.5)
    assert model.calls == 2 and model.input_tokens + model.output_tokens > tokens
    assert ScriptedModel().invoke([HumanMessage(content="Question 1")]).tool_calls


class _Choice(BaseModel):
    kind: Literal["recall", "compute"]
    text: str
    tags: list[str]
    score: float = 0.5


def test_the_report_prints_model_calls_and_tokens_per_turn_beside_the_baseline():
    series = [
        Series(NO_TOOL, BASELINE, [0.01] * 4, [False] * 4, calls=[1] * 4, tokens=[100] * 4),
        Series(
            NO_TOOL,
            GRAPH_LABELS[KERNEL],
            [0.02] * 4,
            [False, False, True, False],
            calls=[1, 1, 2, 1],
            tokens=[300] * 4,
        ),
        Series(TOOL, BASELINE, [0.01] * 4, [False] * 4, calls=[2] * 4, tokens=[200] * 4),
        Series(TOOL, GRAPH_LABELS[KERNEL], [0.03] * 4, [False] * 4, calls=[2] * 4, tokens=[600] * 4),
    ]
    lines = report(series, warmup=0)
    line = next(x for x in lines if "model calls per turn" in x)
    assert line == (
        "heartbeat, kernel logging: model calls per turn: no-tool 1.0, tool 2.0 "
        "(baseline ReAct: no-tool 1.0, tool 2.0); tokens per turn: no-tool 300, tool 600 (baseline: 100, 200)"
    )
    # The archive turn's summary call is counted apart, as the timing table counts its time.
    assert "  no-tool turn, archive turns: 2.0 model calls (1 turns; the summary is the design's +1)" in lines


def test_the_heartbeat_report_puts_the_p95_ratio_last_and_judges_the_targets():
    ms = [t / 1000 for t in range(1, 21)]
    series = [
        Series(NO_TOOL, BASELINE, ms, [False] * 20),
        Series(NO_TOOL, GRAPH_LABELS[KERNEL], [t * 3 for t in ms], [False] * 20, stored=40),
        Series(TOOL, BASELINE, ms, [False] * 20),
        Series(TOOL, GRAPH_LABELS[KERNEL], [0.015] * 20, [False] * 20, [0.001] * 20, stored=80),
    ]
    lines = report(series, warmup=0)
    rows = [ln for ln in lines if re.match(rf"({NO_TOOL}|{TOOL})\s\s", ln)]
    assert len(rows) == 4
    assert all(re.search(r"\d+\.\dx\s+\d+\.\dx$", ln) for ln in rows)  # p50 ratio, then p95 ratio last
    kernel_no_tool = next(ln for ln in rows if ln.startswith(NO_TOOL) and "kernel" in ln)
    assert kernel_no_tool.endswith("3.0x")
    assert any("no-tool turn" in ln and "3.0x (target <= 2x): MISS" in ln for ln in lines)
    overhead = next(ln for ln in lines if "overhead p50" in ln)
    assert "(target <= 20 ms p95: PASS)" in overhead  # 15 ms per turn beyond a 1 ms search
    # The baseline's own tool turn is printed beside the target (1..20 ms, nearest rank: p50 11, p95 20).
    [floor] = [ln for ln in lines if ln.startswith("for reference: ")]
    assert BASELINE in floor and floor.endswith("p50 11.0 / p95 20.0 ms per whole turn")
    assert any("40 of 40 recall messages" in ln for ln in lines)


def test_the_heartbeat_report_prints_decompose_rows_but_judges_only_the_product():
    ms = [t / 1000 for t in range(1, 21)]
    series = [
        Series(NO_TOOL, BASELINE, ms, [False] * 20),
        Series(NO_TOOL, GRAPH_LABELS[KERNEL], [t * 3 for t in ms], [False] * 20),
        Series(NO_TOOL, BASELINE_REDIS, [t * 2 for t in ms], [False] * 20, judged=False),
        Series(NO_TOOL, HEARTBEAT_INMEMORY, [t * 1.5 for t in ms], [False] * 20, judged=False),
        Series(TOOL, BASELINE, ms, [False] * 20),
        Series(TOOL, HEARTBEAT_INMEMORY, [0.05] * 20, [False] * 20, [0.001] * 20, judged=False),
    ]
    lines = report(series, warmup=0)
    rows = {ln[14:64].strip(): ln for ln in lines if ln.startswith(NO_TOOL + "  ")}
    assert rows[BASELINE_REDIS].endswith("2.0x") and rows[HEARTBEAT_INMEMORY].endswith("1.5x")
    targets = [ln for ln in lines if "(target <= 2x)" in ln]
    assert targets == [f"no-tool turn, {GRAPH_LABELS[KERNEL]}: p95 ratio 3.0x (target <= 2x): MISS"]
    [overhead] = [ln for ln in lines if "overhead p50" in ln]
    assert overhead.endswith("(not judged: a --decompose row)") and "PASS" not in overhead


def test_the_heartbeat_report_compares_the_first_and_last_turns_of_long_runs():
    # 100 turns: the first 50 take 1 ms, the last 50 take 3 ms; an archive turn is left out.
    times = [0.001] * 50 + [0.003] * 50
    archived = [False] * 100
    times[-1], archived[-1] = 1.0, True
    series = [
        Series(NO_TOOL, BASELINE, [0.001] * 100, [False] * 100),
        Series(NO_TOOL, GRAPH_LABELS[KERNEL], times, archived),
        Series(TOOL, BASELINE, [0.001] * 20, [False] * 20),  # too short to compare
    ]
    lines = report(series, warmup=0)
    start = lines.index(next(ln for ln in lines if ln.startswith("Thread growth")))
    growth = lines[start + 1 : lines.index("", start)]
    assert [ln.split()[-2:] for ln in growth] == [["1.0", "1.0"], ["1.0", "3.0"]]


def test_the_notebook_snapshot_loads_and_has_every_part():
    data = load_results(SNAPSHOT)
    assert set(data["parts"]) == {"ingestion", "consult", "learning", "rag"}
    assert "| kernel: consult_memory |" in rag_table(data)


def test_thread_growth_rows_need_two_windows_and_say_so_when_missing():
    short = [Series(NO_TOOL, BASELINE, [0.01] * 97, [False] * 97)]
    lines = growth_lines(short)
    assert lines[-1] == "not shown: it needs 100 measured turns per graph, this run measured 97"
    grows = [0.01] * 50 + [0.03] * 50
    archived = [False] * 99 + [True]  # an archive turn stays out of the last window's p50
    rows = growth_lines([Series(NO_TOOL, BASELINE, [*grows[:-1], 9.0], archived)])
    first, last = (float(x) for x in rows[-1].split()[-2:])
    assert (first, last) == (10.0, 30.0)
