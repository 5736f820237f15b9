"""Retrieval plans: one per intent, validated."""

from __future__ import annotations

from typing import get_args

import pytest

from agent.errors import InvalidInputError
from agent.language.intents import Intent
from agent.memory.blend import PLANS, RetrievalPlan, get_plan

INTENTS = get_args(Intent)  # the intents are named once, in agent.language.intents


def test_one_plan_per_intent() -> None:
    assert set(PLANS) == set(INTENTS)
    assert all(PLANS[name].name == name for name in INTENTS)


def test_plans_encode_their_intent() -> None:
    temporal = PLANS["temporal_comparison"]
    assert temporal.chronological and temporal.include_history
    synthesis = PLANS["multi_source_synthesis"]
    assert synthesis.expand_depth == 2 and synthesis.k > PLANS["simple_recall"].k
    assert set(synthesis.sources) == {"facts", "procedures", "archival", "recall"}
    contradiction = PLANS["contradiction_resolution"]
    assert contradiction.lead == "facts" and contradiction.current_first
    assert PLANS["procedural"].lead == "procedures"


def test_get_plan_by_name_or_value() -> None:
    assert get_plan("procedural") is PLANS["procedural"]
    custom = RetrievalPlan("mine", ("facts",), k=3)
    assert get_plan(custom) is custom
    with pytest.raises(InvalidInputError, match="valid plans"):
        get_plan("nope")


@pytest.mark.parametrize(
    "kwargs",
    [
        {"sources": ()},
        {"sources": ("facts", "web")},
        {"sources": ("facts",), "lead": "recall"},
        {"sources": ("facts",), "k": 0},
        {"sources": ("facts",), "expand_depth": 3},
    ],
)
def test_bad_plans_are_rejected(kwargs: dict) -> None:
    with pytest.raises(InvalidInputError):
        RetrievalPlan("bad", **kwargs)
