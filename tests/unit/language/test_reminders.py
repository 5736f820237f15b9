"""Reminder requests in phrasings the old rules missed: the trigger first, other connectives, times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.reminders import parse_reminder
from agent.language.when import due_time
from agent.memory.reminder_rules import trigger_matches
from agent.memory.reminders import resolve_due

NOW = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)  # a Monday


@pytest.mark.parametrize(
    ("text", "description", "keywords"),
    [
        (
            "Before we get into pointers, remind me to ask about memory leaks.",
            "ask about memory leaks",
            ["pointers"],
        ),
        (
            "Once we get to logarithms, remind me that I always forget the change of base rule.",
            "I always forget the change of base rule",
            ["logarithms"],
        ),
        (
            "Next time we talk about the imperfect tense, remind me to compare it with the preterite.",
            "compare it with the preterite",
            ["imperfect tense"],
        ),
        (
            "Don't let me forget to ask about tail calls when we reach recursion.",
            "ask about tail calls",
            ["recursion"],
        ),
        (
            "If matrices come up again, please remind me to bring my notes on determinants.",
            "bring my notes on determinants",
            ["matrices"],
        ),
        (
            "The next time we discuss photosynthesis, nudge me about the light reactions.",
            "the light reactions",
            ["photosynthesis"],
        ),
        (
            "As soon as we start async code, I need a reminder to review callbacks.",
            "review callbacks",
            ["async code"],
        ),
        (
            "Whenever list slicing comes up, jog my memory about negative indexes.",
            "negative indexes",
            ["list slicing"],
        ),
    ],
)
def test_trigger_clause_anywhere_with_any_connective(
    text: str, description: str, keywords: list[str]
) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["description"], got["keywords"]) == (description, keywords)
    assert got["trigger_kind"] in ("keywords", "concept")


@pytest.mark.parametrize(
    ("text", "description", "due"),
    [
        ("On Friday, remind me to email my tutor.", "email my tutor", NOW + timedelta(days=4)),
        ("In two hours, remind me to take a break.", "take a break", NOW + timedelta(hours=2)),
        (
            "Remind me the day after tomorrow to renew my library books.",
            "renew my library books",
            NOW + timedelta(days=2),
        ),
        (
            "Could you remind me in 3 days to redo the worksheet?",
            "redo the worksheet",
            NOW + timedelta(days=3),
        ),
        ("remind me on Wednesday at 9 to call Ana.", "call Ana", datetime(2026, 3, 4, 9, 0, tzinfo=UTC)),
    ],
)
def test_time_before_the_task_or_first(text: str, description: str, due: datetime) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None
    assert (got["description"], got["trigger_kind"], got["due_at"]) == (description, "time", due.isoformat())


def test_due_time_reads_the_session_clock() -> None:
    assert due_time("the day after tomorrow", NOW) == NOW + timedelta(days=2)
    assert due_time("tonight", NOW) == NOW.replace(hour=20)
    assert due_time("recursion", NOW) is None
    assert due_time("yesterday", NOW) is None  # never a time already past


def test_a_trigger_first_reminder_fires_on_its_topic_once_named() -> None:
    reminder = parse_reminder(
        "Once we move on to while loops, remind me to ask about infinite loops.", now=NOW
    )
    assert reminder is not None
    turns = [
        "Let's practise if statements.",
        "More if statements, please.",
        "Okay, teach me while loops now.",
    ]
    assert [trigger_matches(reminder, turn, None, NOW) for turn in turns] == [False, False, True]


def test_a_time_trigger_carries_its_phrase_for_the_session_clock() -> None:
    got = parse_reminder("Remind me the day after tomorrow to book the speaking test.", now=NOW)
    assert got is not None and got["when"] == "the day after tomorrow"
    session = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)  # a session dated long before the machine's today
    assert resolve_due(got["when"], session) == (session + timedelta(days=2)).isoformat()
    assert resolve_due("2026-05-06T09:00:00+00:00", NOW) == "2026-05-06T09:00:00+00:00"
    default = parse_reminder("remind me to review window functions", now=NOW)
    assert (
        default is not None
        and resolve_due(default["when"], session) == (session + timedelta(days=1)).isoformat()
    )


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("At the start of next month, remind me to cancel my trial.", datetime(2026, 4, 1, 9, tzinfo=UTC)),
        ("Remind me to submit my timesheet at the end of the month.", datetime(2026, 3, 31, 9, tzinfo=UTC)),
        ("By the beginning of next week, remind me to book the exam.", datetime(2026, 3, 9, 9, tzinfo=UTC)),
        ("Remind me to update my plan at the start of next year.", datetime(2027, 1, 1, 9, tzinfo=UTC)),
    ],
)
def test_the_start_or_end_of_a_period(text: str, due: datetime) -> None:
    # dateparser reads "next month" as a month from now and "the start of next month" not at all
    got = parse_reminder(text, now=NOW)
    assert got is not None and got["trigger_kind"] == "time"
    assert got["due_at"] == due.isoformat()
    assert "start" not in got["description"] and "end of" not in got["description"]
    assert resolve_due(got["when"], NOW) == due.isoformat()
