"""Leave-one-conversation-out preset selection (pure, no services)."""

from __future__ import annotations

import math

from bench.locomo.loo import PresetRun, fold_of, leave_one_out
from bench.locomo.scoring import QuestionScore


def run(name: str, r10: dict[str, list[float]], ms: float, category: int = 4) -> PresetRun:
    scores = [
        QuestionScore(f"{fold}#{i}", category, {5: v, 10: v, 25: v, 50: v})
        for fold, values in r10.items()
        for i, v in enumerate(values)
    ]
    return PresetRun(name, scores, [ms / 1000] * len(scores))


def test_each_fold_is_chosen_on_the_others_and_scored_on_itself() -> None:
    # "b" is best on c1 and c2 but bad on c3; "a" is steady.
    a = run("a", {"c1": [0.6, 0.6], "c2": [0.6], "c3": [0.6]}, ms=50)
    b = run("b", {"c1": [1.0, 1.0], "c2": [1.0], "c3": [0.0]}, ms=60)
    loo = leave_one_out([a, b])
    assert [(f.held_out, f.chosen) for f in loo.folds] == [("c1", "a"), ("c2", "a"), ("c3", "b")]
    # Held out c1: a scores 0.6 on c2+c3 (mean 0.6), b 0.5; c3: b scores 1.0 on c1/c2.
    assert [f.held_out_r10 for f in loo.folds] == [0.6, 0.6, 0.0]
    assert loo.worst.held_out == "c3" and math.isclose(loo.mean, 0.4)
    assert math.isclose(loo.pooled, (0.6 * 2 + 0.6 + 0.0) / 4)
    assert loo.most_chosen == "a" and [f.questions for f in loo.folds] == [2, 1, 1]


def test_presets_over_the_latency_budget_are_not_candidates() -> None:
    fast = run("fast", {"c1": [0.5], "c2": [0.5]}, ms=100)
    slow = run("slow", {"c1": [0.9], "c2": [0.9]}, ms=200)
    assert {f.chosen for f in leave_one_out([fast, slow]).folds} == {"fast"}
    assert {f.chosen for f in leave_one_out([fast, slow], budget_ms=math.inf).folds} == {"slow"}
    only_slow = leave_one_out([slow], budget_ms=150)
    assert {f.chosen for f in only_slow.folds} == {"slow"}
    assert not any(f.within_budget for f in only_slow.folds)


def test_ties_go_to_the_faster_preset_and_multi_hop_is_reported() -> None:
    a = run("a", {"c1": [0.5], "c2": [0.5]}, ms=90, category=1)
    b = run("b", {"c1": [0.5], "c2": [0.5]}, ms=80, category=1)
    loo = leave_one_out([a, b])
    assert {f.chosen for f in loo.folds} == {"b"}
    assert [f.held_out_multi_hop_r10 for f in loo.folds] == [0.5, 0.5]
    assert fold_of("conv-26#12") == "conv-26" and fold_of("a#b#3") == "a#b"
