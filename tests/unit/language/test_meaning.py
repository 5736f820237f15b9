"""The language layer's meaning by similarity: aspects, changes by a difference, reminders, intents."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.intents import intent_of
from agent.language.reminders import parse_reminder
from agent.language.statements import aspect, disagreeing, resolve_change
from agent.memory.fact_records import newest_first
from agent.search.results import SearchHit

NOW = datetime(2026, 5, 20, 18, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=16)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        (
            "My statistics final is on June 12.",
            "The professor postponed the statistics final by a week.",
            "June 19",
        ),
        ("My budget for courses is 600 euros.", "My employer cut the course budget by 200 euros.", "400"),
        ("My puzzle rating is 1450.", "Puzzle rating went up by 120 after the course.", "1570"),
    ],
)
def test_a_change_by_a_difference_resolves_to_the_new_value(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


def test_no_difference_no_value() -> None:
    assert (
        resolve_change("The exam is now on May 15.", "My exam is on April 30.", old_at=EARLIER, new_at=NOW)
        is None
    )
    assert (
        resolve_change("I studied for two weeks.", "My exam is on April 30.", old_at=EARLIER, new_at=NOW)
        is None
    )


def test_aspect_without_the_trigger_words() -> None:
    assert aspect("My flat is in Marseille, close to the old port.") == "residence"
    assert aspect("I scored 54 out of 100 on the first statistics quiz.") is None
    assert aspect("I got stuck on the names_to argument.") is None


@pytest.mark.parametrize(
    ("text", "description", "keywords"),
    [
        (
            "Before we start recursion, remind me to revisit the call stack.",
            "revisit the call stack",
            ["recursion"],
        ),
        (
            "Once we get to integrals, remind me that I mix up the chain rule.",
            "I mix up the chain rule",
            ["integrals"],
        ),
        (
            "Next time we talk about the subjunctive, remind me to ask about it.",
            "ask about it",
            ["subjunctive"],
        ),
        ("When eigenvalues come up, please remind me to bring my notes.", "bring my notes", ["eigenvalues"]),
        ("Ping me about rebasing whenever we get into git branches.", "rebasing", ["git branches"]),
    ],
)
def test_trigger_clause_anywhere_any_connective(text: str, description: str, keywords: list[str]) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["description"], got["keywords"]) == (description, keywords)


def test_leading_time_phrase() -> None:
    got = parse_reminder("Tomorrow, remind me to submit the worksheet.", now=NOW)
    assert got is not None and got["due_at"] == (NOW + timedelta(days=1)).isoformat()


def _fact(i: str, text: str, valid_from: str) -> SearchHit:
    meta = {"current": True, "valid_from": valid_from}
    return SearchHit(id=i, text=text, score=1.0, created_at=valid_from, kind="fact", metadata=meta)


async def test_read_time_net_ranks_the_newer_of_two_open_facts_first() -> None:
    old = _fact("a", "I got 5.5 on the IELTS writing test.", "2026-02-01T00:00:00+00:00")
    new = _fact("b", "Retook IELTS writing and it came back 7.0!", "2026-03-15T00:00:00+00:00")
    other = _fact("c", "I keep my scripts in a GitHub repository.", "2026-03-20T00:00:00+00:00")
    assert disagreeing([old.text, new.text, other.text]) == [[0, 1]]
    ranked = await newest_first([old, other, new])
    assert [h.id for h in ranked] == ["b", "c", "a"]
    assert ranked[2].metadata["was_until"] == new.metadata["valid_from"]


def test_intents_by_exemplars() -> None:
    assert (
        intent_of("Which phone does the learner review flashcards on these days?")
        == "contradiction_resolution"
    )
    assert intent_of("How did the learner's typing speed change over the term?") == "temporal_comparison"
    assert intent_of("") == "simple_recall"
