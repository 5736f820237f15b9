"""Reminder requests whose parts sit in other places.

A condition with no comma before its task, an event dated in the sentence before, and an
event's clause ahead of the request.

Each firing case failed on the code before; the others guard the readings next to them.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminders import parse_reminder

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "task", "topic"),
    [
        ("remind me before we start graphs to ask about BFS", "ask about BFS", "graphs"),
        ("remind me when we get to recursion to review the call stack", "review the call stack", "recursion"),
        (
            "please remind me next time we do SQL to ask about window functions",
            "ask about window functions",
            "SQL",
        ),
        ("Remind me once we finish the essay chapter to email my tutor", "email my tutor", "essay"),
    ],
)
def test_a_condition_without_a_comma_comes_before_its_task(text: str, task: str, topic: str) -> None:
    reminder = parse_reminder(text, now=NOW)
    assert reminder is not None and reminder["description"] == task, reminder
    assert reminder["trigger_kind"] in {"keywords", "concept"}, reminder
    assert any(topic in k for k in reminder["keywords"]), reminder


@pytest.mark.parametrize(
    ("text", "task", "topic"),
    [
        (
            "when we get to tides remind me to show you my graph, the peaks look off",
            "show you my graph, the peaks look off",
            "tides",
        ),
        (
            "as soon as we get to enzymes please remind me to ask about pH, my notes disagree",
            "ask about pH, my notes disagree",
            "enzymes",
        ),
        (
            "before we go over the sonnet don't let me forget to read you my draft, it rhymes badly",
            "read you my draft, it rhymes badly",
            "sonnet",
        ),
        (
            "oh and once we reach tides please remind me to show you my graph, the peaks look off",
            "show you my graph, the peaks look off",
            "tides",
        ),
        ("so when we do enzymes could you remind me to ask about pH", "ask about pH", "enzymes"),
        ("before we read the sonnet I want you to remind me to read my draft", "read my draft", "sonnet"),
    ],
)
def test_a_condition_with_no_comma_keeps_the_comma_inside_its_task(text: str, task: str, topic: str) -> None:
    # the first comma sits inside the task: the condition ends at the request word, not there
    reminder = parse_reminder(text, now=NOW)
    assert reminder is not None and reminder["description"] == task, reminder
    assert reminder["trigger_kind"] in {"keywords", "concept"}, reminder
    assert reminder["keywords"] == [topic], reminder  # no courtesy word in the topic


def test_a_condition_with_its_comma_still_ends_at_the_comma() -> None:
    reminder = parse_reminder("once we reach tides, remind me to show you my graph, it looks off", now=NOW)
    assert reminder is not None and reminder["description"] == "show you my graph, it looks off", reminder
    assert any("tides" in k for k in reminder["keywords"]), reminder


def test_a_time_before_the_task_is_not_split_as_a_condition() -> None:
    # no subject after "before": a time, not a clause; it stays a time request
    reminder = parse_reminder("remind me before Friday to pay the fee", now=NOW)
    assert reminder is not None and reminder["trigger_kind"] == "time", reminder


@pytest.mark.parametrize(
    ("text", "task", "due"),
    [
        (
            "My exam is in three weeks, remind me a week before it to book the library room.",
            "book the library room",
            "2026-03-16",
        ),
        (
            "My driving test is on April 20, so please remind me the day before to sleep early.",
            "sleep early",
            "2026-04-19",
        ),
        ("Remind me the day before my interview on Friday to iron my shirt", "iron my shirt", "2026-03-05"),
    ],
)
def test_a_span_before_an_event_keeps_the_requests_own_task(text: str, task: str, due: str) -> None:
    reminder = parse_reminder(text, now=NOW)
    assert reminder is not None, text
    assert reminder["description"] == task and reminder["action"].endswith(task), reminder
    assert reminder["due_at"].startswith(due), reminder


def test_the_event_may_be_dated_in_the_sentence_before() -> None:
    alone = parse_reminder("Remind me the day before to bring my passport.", now=NOW)
    assert alone is not None and not alone["due_at"].startswith("2026-03-19"), alone  # no date: the default
    told = parse_reminder(
        "Remind me the day before to bring my passport.", now=NOW, context="My flight to Lima is on March 20."
    )
    assert told is not None and told["due_at"].startswith("2026-03-19"), told
    assert told["description"] == "bring my passport", told
    bare = parse_reminder("Remind me 2 days before.", now=NOW, context="My test is in 10 days.")
    assert bare is not None and bare["due_at"].startswith("2026-03-10"), bare
    assert "test" in bare["description"], bare  # no task of its own: the event is what to remind


def test_a_sentence_before_without_a_date_changes_nothing() -> None:
    plain = parse_reminder("Remind me to review loops before the quiz.", now=NOW)
    with_context = parse_reminder(
        "Remind me to review loops before the quiz.", now=NOW, context="I like pizza."
    )
    assert plain == with_context
