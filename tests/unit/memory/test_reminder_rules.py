"""Offline reminder rules: requests become triggers; triggers fire on their turn and nowhere else."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.reminder_requests import is_reminder_request
from agent.language.reminders import parse_reminder
from agent.language.trigger_mentions import mentions
from agent.language.trigger_topics import is_trigger_word, split_keywords
from agent.memory.reminder_rules import trigger_matches

NOW = datetime(2026, 2, 3, 11, 0, tzinfo=UTC)  # a Tuesday
DAY = NOW.replace(hour=0)  # a phrase that names a day is due from its start


def test_keyword_request() -> None:
    got = parse_reminder("Please remind me to review GROUP BY when we get to HAVING.", now=NOW)
    assert got is not None
    assert got["description"] == "review GROUP BY"
    assert got["trigger_kind"] == "keywords"
    assert got["keywords"] == ["HAVING"]
    assert got["due_at"] is None
    assert got["action"] == "Remind the learner to review GROUP BY"


@pytest.mark.parametrize(
    ("text", "description", "keywords"),
    [
        (
            "remind me to ask about indexes whenever performance comes up",
            "ask about indexes",
            ["performance"],
        ),
        ("Remind me to revisit NULLs once we reach outer joins", "revisit NULLs", ["outer joins"]),
        (
            "remind me to compare them when we talk about HAVING or window functions",
            "compare them",
            ["HAVING", "window functions"],
        ),
        ("Don't let me forget to check types if I mention casting.", "check types", ["casting"]),
    ],
)
def test_keyword_phrasings(text: str, description: str, keywords: list[str]) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["description"], got["trigger_kind"], got["keywords"]) == (description, "keywords", keywords)


def test_concept_request() -> None:
    got = parse_reminder("Can you remind me to check NULL handling when we study outer joins?", now=NOW)
    assert got is not None
    assert (got["trigger_kind"], got["concept"], got["description"]) == (
        "concept",
        "outer joins",
        "check NULL handling",
    )


@pytest.mark.parametrize(
    ("text", "description", "due"),
    [
        ("remind me to practise joins tomorrow", "practise joins", DAY + timedelta(days=1)),
        ("Remind me to submit the homework at 18:00", "submit the homework", NOW.replace(hour=18)),
        ("remind me to call Ana at 9:30", "call Ana", (NOW + timedelta(days=1)).replace(hour=9, minute=30)),
        ("remind me to revise subqueries in 2 days", "revise subqueries", DAY + timedelta(days=2)),
        ("remind me to stretch in an hour", "stretch", NOW + timedelta(hours=1)),
        ("remind me to do the quiz on Friday", "do the quiz", DAY + timedelta(days=3)),
        ("remind me to plan next week", "plan", DAY + timedelta(days=7)),
        ("remind me to review window functions", "review window functions", DAY + timedelta(days=1)),
    ],
)
def test_time_requests(text: str, description: str, due: datetime) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["description"], got["trigger_kind"], got["due_at"]) == (description, "time", due.isoformat())


@pytest.mark.parametrize(
    "text",
    [
        "I moved to Hanoi.",
        "How do I write a LEFT JOIN again?",
        "remind me to",
        "remind me to x when we get to it",
    ],
)
def test_not_a_reminder(text: str) -> None:
    assert parse_reminder(text, now=NOW) is None


def test_request_detection() -> None:
    assert is_reminder_request("please remind me about the quiz")
    assert not is_reminder_request("remind yourself of the syntax")


GROUP_BY = {"trigger_kind": "keywords", "keywords": ["HAVING"]}


@pytest.mark.parametrize(
    "message",
    [
        "Now I'm ready for HAVING clauses.",
        "More HAVING practice please.",
        "what does `having` do?",
        "can we do having clauses now",
        "HAVING?",
    ],
)
def test_code_term_fires_as_a_term(message: str) -> None:
    assert trigger_matches(GROUP_BY, message, None, NOW)


# Unrelated turns, many with the common word "having": none may fire.
UNRELATED = [
    "Let's do ORDER BY today.",
    "Let's practise LIMIT and OFFSET.",
    "I'm having trouble with joins.",
    "Having said that, I prefer subqueries.",
    "We were having lunch when the query failed.",
    "I keep having the same error",
    "Is behaving the same as before?",
    "Let's move on to subqueries.",
    "What does GROUP BY do?",
    "Please remind me to review GROUP BY when we get to HAVING.",  # the request itself
    "having",
    "I moved to Hanoi.",
    "Explain WHERE versus ON.",
    "haVing fun",
]


@pytest.mark.parametrize("message", UNRELATED)
def test_code_term_ignores_the_common_word(message: str) -> None:
    assert not trigger_matches(GROUP_BY, message, None, NOW)


def test_whole_words_and_stems() -> None:
    assert mentions("I love window function examples", "window functions")
    assert mentions("Window functions next?", "window functions")
    assert not mentions("open the window and call a function", "window functions")
    assert not mentions("recursively", "recursion")
    assert mentions("Can we do recursion?", "recursion")
    assert not mentions("subqueries", "query")
    assert mentions("GROUP BY next", "GROUP BY")
    assert not mentions("group the rows by date", "GROUP BY")


def test_concept_trigger_matches_turn_concept_or_mention() -> None:
    reminder = {"trigger_kind": "concept", "concept": "outer joins", "keywords": ["outer joins"]}
    assert trigger_matches(reminder, "ok", "Outer Join", NOW)
    assert trigger_matches(reminder, "let's try outer joins", None, NOW)
    assert not trigger_matches(reminder, "inner joins now", "inner joins", NOW)


def test_time_trigger_uses_the_given_clock() -> None:
    reminder = {"trigger_kind": "time", "due_at": (NOW + timedelta(hours=1)).isoformat()}
    assert not trigger_matches(reminder, "anything", None, NOW)
    assert trigger_matches(reminder, None, None, NOW + timedelta(hours=1))
    assert not trigger_matches({"trigger_kind": "time", "due_at": None}, "x", None, NOW)


def test_stop_word_keywords_are_refused() -> None:
    assert not is_trigger_word("it")
    assert not is_trigger_word("the one")
    assert is_trigger_word("IN")  # a code term in capitals
    assert split_keywords("the HAVING clause, and it") == ["HAVING"]
    assert not trigger_matches({"trigger_kind": "keywords", "keywords": ["it"]}, "it is it", None, NOW)


def test_false_fire_rate_on_unrelated_turns_is_at_most_two_percent() -> None:
    reminders = [
        GROUP_BY,
        {"trigger_kind": "keywords", "keywords": ["window functions"]},
        {"trigger_kind": "keywords", "keywords": ["GROUP BY"]},
        {"trigger_kind": "concept", "concept": "recursion", "keywords": ["recursion"]},
        {"trigger_kind": "keywords", "keywords": ["IN"]},
    ]
    turns = [m for m in UNRELATED if "GROUP BY" not in m] + [
        "I went in the kitchen.",
        "The function broke my window layout.",
        "Recursive thinking is hard.",
        "We are grouping by colour in art class.",
    ]
    fires = sum(trigger_matches(r, m, None, NOW) for r in reminders for m in turns)
    assert fires / (len(reminders) * len(turns)) <= 0.02
