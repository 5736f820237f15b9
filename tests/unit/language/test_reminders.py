"""Reminder requests in phrasings the old rules missed: the trigger first, other connectives, times."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.reminders import parse_reminder
from agent.language.when import due_time
from agent.memory.reminder_rules import trigger_matches
from agent.memory.reminders import resolve_due

NOW = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)  # a Monday
DAY = NOW.replace(hour=0)  # a phrase that names a day is due from its start


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
        ("On Friday, remind me to email my tutor.", "email my tutor", DAY + timedelta(days=4)),
        ("In two hours, remind me to take a break.", "take a break", NOW + timedelta(hours=2)),
        (
            "Remind me the day after tomorrow to renew my library books.",
            "renew my library books",
            DAY + timedelta(days=2),
        ),
        (
            "Could you remind me in 3 days to redo the worksheet?",
            "redo the worksheet",
            DAY + timedelta(days=3),
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
    assert resolve_due(got["when"], session) == (session.replace(hour=0) + timedelta(days=2)).isoformat()
    assert resolve_due("2026-05-06T09:00:00+00:00", NOW) == "2026-05-06T09:00:00+00:00"
    default = parse_reminder("remind me to review window functions", now=NOW)
    assert (
        default is not None
        and resolve_due(default["when"], session) == (session.replace(hour=0) + timedelta(days=1)).isoformat()
    )


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("At the start of next month, remind me to cancel my trial.", datetime(2026, 4, 1, tzinfo=UTC)),
        ("Remind me to submit my timesheet at the end of the month.", datetime(2026, 3, 31, tzinfo=UTC)),
        ("By the beginning of next week, remind me to book the exam.", datetime(2026, 3, 9, tzinfo=UTC)),
        ("Remind me to update my plan at the start of next year.", datetime(2027, 1, 1, tzinfo=UTC)),
    ],
)
def test_the_start_or_end_of_a_period(text: str, due: datetime) -> None:
    # dateparser reads "next month" as a month from now and "the start of next month" not at all
    got = parse_reminder(text, now=NOW)
    assert got is not None and got["trigger_kind"] == "time"
    assert got["due_at"] == due.isoformat()
    assert "start" not in got["description"] and "end of" not in got["description"]
    assert resolve_due(got["when"], NOW) == due.isoformat()


@pytest.mark.parametrize(
    ("text", "said_at", "next_session"),
    [
        # said late at night, the next day's session is earlier in the day than the request was
        ("Remind me tomorrow to email my tutor.", "2026-04-14T21:00:00+02:00", "2026-04-15T17:30:00+02:00"),
        (
            "Tomorrow, remind me to print my flashcards.",
            "2026-06-08T08:00:00-07:00",
            "2026-06-09T06:45:00-07:00",
        ),
        (
            "remind me to pay rent the day after tomorrow",
            "2026-01-05T23:00:00+05:30",
            "2026-01-07T06:00:00+05:30",
        ),
        (
            "In three days, remind me to redo the worksheet.",
            "2026-03-09T19:00:00+00:00",
            "2026-03-12T09:00:00+00:00",
        ),
        (
            "Remind me on Thursday to hand in the lab report.",
            "2026-02-02T21:00:00+01:00",
            "2026-02-05T06:30:00+01:00",
        ),
        (
            "Next Tuesday remind me to print the slides.",
            "2026-03-05T20:00:00+00:00",
            "2026-03-10T08:00:00+00:00",
        ),
        # the learner flew west: the next morning there is still the next day
        (
            "Remind me tomorrow to book the speaking test.",
            "2026-07-10T22:00:00+01:00",
            "2026-07-11T09:00:00-04:00",
        ),
    ],
)
def test_a_day_named_reminder_fires_in_that_days_first_session(
    text: str, said_at: str, next_session: str
) -> None:
    """Read as the same time of day a day later, these fired a session late (heldout5, 'tomorrow')."""
    now, then = datetime.fromisoformat(said_at), datetime.fromisoformat(next_session)
    got = parse_reminder(text, now=now)
    assert got is not None and got["trigger_kind"] == "time"
    assert resolve_due(got["when"], now) == got["due_at"]  # the store reads the phrase as the parse did
    assert not trigger_matches(got, "ok", None, now + timedelta(minutes=5))
    assert trigger_matches(got, "hi", None, then)
    assert datetime.fromisoformat(got["due_at"]).time().isoformat() == "00:00:00"


def test_a_time_of_day_keeps_its_instant() -> None:
    for text, due in [
        ("In two hours, remind me to stretch.", NOW + timedelta(hours=2)),
        ("Remind me tonight to review my kanji.", NOW.replace(hour=20)),
        ("remind me tomorrow at 8am to read the chapter", DAY + timedelta(days=1, hours=8)),
    ]:
        got = parse_reminder(text, now=NOW)
        assert got is not None and got["due_at"] == due.isoformat(), text
        assert resolve_due(got["when"], NOW) == due.isoformat()
    longest = parse_reminder("remind me to pay rent the day after tomorrow", now=NOW)
    assert longest is not None and longest["description"] == "pay rent"
