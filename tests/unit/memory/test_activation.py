"""Activation maths with a ManualClock, the ranking formula and the cognitive recipe."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError
from agent.memory.activation import DECAY_PER_HOUR, READ_BOOST, blend_score, boosted, decayed
from agent.search.recipes import HYBRID_RRF, RECIPES, SearchRecipe, get_recipe

START = "2026-02-01T08:00:00+00:00"


def test_decay_is_exponential_in_hours_of_the_injected_clock() -> None:
    clock = ManualClock(START)
    assert decayed(2.0, START, clock()) == pytest.approx(2.0)
    clock.advance(hours=10)
    assert decayed(2.0, START, clock()) == pytest.approx(2.0 * math.exp(-0.5))
    clock.advance(hours=14)
    assert decayed(1.0, START, clock()) == pytest.approx(math.exp(-DECAY_PER_HOUR * 24))
    assert decayed(1.0, START, clock(), rate=0.0) == 1.0


def test_decay_handles_missing_future_and_bad_timestamps() -> None:
    now = ManualClock(START)()
    assert decayed(1.5, None, now) == 1.5
    assert decayed(1.5, "not a time", now) == 1.5
    assert decayed(1.5, "2026-02-02T08:00:00+00:00", now) == 1.5  # never grows
    assert decayed(-3.0, START, now) == 0.0
    assert decayed(1.0, "2026-02-01T09:00:00+01:00", now) == pytest.approx(1.0)  # same instant
    with pytest.raises(ValueError):
        decayed(1.0, START, now, rate=-0.1)


def test_reads_boost_the_decayed_value() -> None:
    clock = ManualClock(START)
    clock.advance(hours=5)
    assert boosted(1.0, START, clock()) == pytest.approx(math.exp(-0.25) + READ_BOOST)


def test_blend_is_relevance_for_plain_recipes() -> None:
    assert blend_score(0.03, 50.0, 100, HYBRID_RRF) == 0.03


def test_blend_lifts_by_activation_and_usage_within_bounds() -> None:
    cognitive = get_recipe("cognitive")
    base = blend_score(0.1, 0.0, 0, cognitive)
    assert base == pytest.approx(0.1)
    active = blend_score(0.1, 1.0, 0, cognitive)
    assert active == pytest.approx(0.1 * (1 + cognitive.activation_weight * 0.5))
    used = blend_score(0.1, 1.0, 10, cognitive)
    assert used > active > base
    ceiling = 0.1 * (1 + cognitive.activation_weight + cognitive.usage_weight)
    assert blend_score(0.1, 1e9, 10**9, cognitive) < ceiling
    assert blend_score(0.0, 100.0, 100, cognitive) == 0.0


def test_fresh_memory_cannot_overtake_the_next_rank_on_recency_alone() -> None:
    cognitive = get_recipe("cognitive")
    first = 1 / (cognitive.rrf_k + 1)
    second = 1 / (cognitive.rrf_k + 2)
    assert blend_score(second, READ_BOOST, 0, cognitive) < blend_score(first, 0.0, 0, cognitive)
    # ...but a heavily read and used one can.
    assert blend_score(second, 20.0, 20, cognitive) > blend_score(first, 0.0, 0, cognitive)


def test_cognitive_recipe_is_registered_and_others_unchanged() -> None:
    cognitive = RECIPES["cognitive"]
    assert cognitive.activation_weight > 0 and cognitive.usage_weight > 0
    procedures = RECIPES["cognitive_procedures"]
    assert procedures.usage_weight > cognitive.usage_weight  # practised procedures rank by use
    assert all(
        r.activation_weight == 0 and r.usage_weight == 0
        for n, r in RECIPES.items()
        if not n.startswith("cognitive")
    )
    assert "activation" not in cognitive.weights  # not a retriever


def test_negative_activation_weights_are_rejected() -> None:
    with pytest.raises(InvalidInputError, match="activation and usage"):
        SearchRecipe("bad", activation_weight=-1.0)
    with pytest.raises(InvalidInputError):
        replace(HYBRID_RRF, usage_weight=-0.1)
