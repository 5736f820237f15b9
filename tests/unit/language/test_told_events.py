"""A past event told diary style, without "I", with when it happened (issue 39, L3).

The phrasings are this test's own. Such a sentence is the learner's and a fact; a plan, someone
else's event, an event without a time and a general truth are not read so.
"""

from __future__ import annotations

import pytest

from agent.language.facts import is_fact_statement
from agent.language.when import tells_own_event

EVENTS = [
    "got back to Lagos on Wednesday, the heat is intense.",
    "sat the chemistry mock this afternoon",
    "Flew in two days ago",
    "handed over the keys last night, sad to leave",
    "started the Arabic course in 2024",
    "finished the first draft yesterday evening, 40 pages",
]
NOT_EVENTS = [
    "She landed on Monday",
    "The lecture was moved to Thursday",
    "fixed the flaky test in the parser",
    "book the ferry for Friday",
    "Rust 1.80 was released in July",
    "I'll land on Sunday",
]


@pytest.mark.parametrize("text", EVENTS)
def test_a_diary_event_with_its_time_is_the_learners_fact(text: str) -> None:
    assert tells_own_event(text)
    assert is_fact_statement(text)


@pytest.mark.parametrize("text", NOT_EVENTS)
def test_no_diary_event(text: str) -> None:
    assert not tells_own_event(text)
