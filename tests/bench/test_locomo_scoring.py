"""Evidence recall@k and the honest turn budget, on hand-computed examples."""

from __future__ import annotations

import math

import pytest

from bench.locomo.scoring import (
    KS,
    QuestionScore,
    budget_turns,
    evidence_recall,
    percentile,
    recall_at_ks,
    summarise_recall,
)


def test_question_without_evidence_counts_as_one() -> None:
    assert evidence_recall([], []) == 1.0
    assert evidence_recall([], ["D1:1"]) == 1.0
    assert recall_at_ks([], [], ks=(5, 10)) == {5: 1.0, 10: 1.0}


def test_recall_is_the_share_of_distinct_evidence_found() -> None:
    assert evidence_recall(["D1:1", "D2:4"], ["D2:4", "D9:9"]) == 0.5
    assert evidence_recall(["D1:1", "D2:4"], ["D3:3"]) == 0.0
    assert evidence_recall(["D1:1", "D2:4"], ["D2:4", "D1:1"]) == 1.0
    # Evidence is a set: a repeated id is one turn to find, not two.
    assert evidence_recall(["D1:1", "D1:1", "D2:4"], ["D1:1"]) == 0.5
    # An id that names no turn (bad annotation) can never be found.
    assert evidence_recall(["D8:6; D9:17"], ["D8:6", "D9:17"]) == 0.0


def test_single_turn_items_are_plain_recall_at_k() -> None:
    items = [(f"D1:{i}",) for i in range(1, 8)]
    assert budget_turns(items, 3) == ["D1:1", "D1:2", "D1:3"]
    assert recall_at_ks(["D1:3", "D1:6"], items, ks=(2, 3, 5, 10)) == {2: 0.0, 3: 0.5, 5: 0.5, 10: 1.0}


def test_multi_turn_item_spends_one_slot_per_turn_and_is_truncated() -> None:
    # A summary of four turns at rank 2: it cannot smuggle four turns into a budget of 3.
    items = [("D1:1",), ("D1:2", "D1:3", "D1:4", "D1:5"), ("D2:1",)]
    assert budget_turns(items, 1) == ["D1:1"]
    assert budget_turns(items, 3) == ["D1:1", "D1:2", "D1:3"]
    assert budget_turns(items, 6) == ["D1:1", "D1:2", "D1:3", "D1:4", "D1:5", "D2:1"]
    assert recall_at_ks(["D1:4", "D2:1"], items, ks=(3, 5, 6)) == {3: 0.0, 5: 0.5, 6: 1.0}


def test_duplicates_are_counted_once_but_still_cost_a_slot() -> None:
    # D1:1 comes back as a message, then inside a note; the note adds D1:2 only.
    items = [("D1:1",), ("D1:1", "D1:2"), ("D1:1",), ("D1:3",)]
    assert budget_turns(items, 2) == ["D1:1", "D1:2"]
    # The third item is a pure duplicate: it adds nothing but takes slot 3.
    assert budget_turns(items, 3) == ["D1:1", "D1:2"]
    assert budget_turns(items, 4) == ["D1:1", "D1:2", "D1:3"]


def test_unmappable_items_take_a_slot() -> None:
    items = [(), ("D1:1",)]
    assert budget_turns(items, 1) == []
    assert budget_turns(items, 2) == ["D1:1"]
    assert budget_turns([], 5) == []
    assert budget_turns(items, 0) == []
    with pytest.raises(ValueError):
        budget_turns(items, -1)


def test_summary_means_overall_and_per_category_include_no_evidence_questions() -> None:
    scores = [
        QuestionScore("q1", 1, {5: 0.0, 10: 0.5}),
        QuestionScore("q2", 1, {5: 1.0, 10: 1.0}),
        QuestionScore("q3", 5, {5: 1.0, 10: 1.0}),  # an adversarial question without evidence
        QuestionScore("q4", 4, {5: 0.0, 10: 0.0}),
    ]
    summary = summarise_recall(scores, ks=(5, 10))
    assert summary.n == 4
    assert summary.overall == {5: 0.5, 10: pytest.approx(0.625)}
    assert summary.by_category == {1: {5: 0.5, 10: 0.75}, 4: {5: 0.0, 10: 0.0}, 5: {5: 1.0, 10: 1.0}}
    assert summary.counts == {1: 2, 4: 1, 5: 1}
    as_json = summary.to_dict()
    assert as_json["overall"] == {"R@5": 0.5, "R@10": pytest.approx(0.625)}
    assert as_json["by_category"]["1"] == {"n": 2, "R@5": 0.5, "R@10": 0.75}


def test_summary_of_nothing_is_nan_not_zero() -> None:
    summary = summarise_recall([])
    assert summary.n == 0 and summary.by_category == {}
    assert all(math.isnan(summary.overall[k]) for k in KS)


def test_percentile_interpolates_like_numpy() -> None:
    assert percentile([4.0, 1.0, 3.0, 2.0], 50) == 2.5
    assert percentile([1.0, 2.0, 3.0, 4.0], 95) == pytest.approx(3.85)
    assert percentile([7.0], 95) == 7.0
    assert percentile([1.0, 2.0], 0) == 1.0 and percentile([1.0, 2.0], 100) == 2.0
    assert math.isnan(percentile([], 50))
    with pytest.raises(ValueError):
        percentile([1.0], 101)
