"""Reminder readings of session 49 (D10), in phrasings of our own.

An adverb before the condition's verb, "that day" for a date the message tells, a task asked of
the tutor with a trigger, a topic said without its head.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminders import parse_reminder
from agent.language.trigger_sense import names_trigger

NOW = datetime(2026, 4, 6, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        ("remind me to ask about the bibliography when I next mention my dissertation", "my dissertation"),
        ("if we ever get to pointers, remind me to ask about malloc", "pointers"),
        ("remind me about the worksheet once we finally reach probability", "probability"),
        ("when we next talk about cadences, remind me to play you my piece", "cadences"),
    ],
)
def test_adverb_before_the_verb_is_no_part_of_the_topic(text: str, keyword: str) -> None:
    assert parse_reminder(text, now=NOW)["keywords"] == [keyword]


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the art fair opens on 20 April, remind me that day to buy a ticket", "2026-04-20"),
        ("remind me on that day to pay, the fee is due on 14 May", "2026-05-14"),
        (
            "course selection opens on 2 May; don't let me forget that same day to pick my modules",
            "2026-05-02",
        ),
    ],
)
def test_that_day_is_the_day_the_message_tells(text: str, day: str) -> None:
    read = parse_reminder(text, now=NOW)
    assert read["trigger_kind"] == "time" and read["due_at"].startswith(day)


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("quiz me on the dative endings when we do the genitive", "genitive"),
        ("once we reach the French revolution, ask me about the estates", "French revolution"),
        ("test me on the formulas as soon as we start trigonometry", "trigonometry"),
    ],
)
def test_a_task_asked_of_the_tutor_with_a_trigger_is_a_reminder(text: str, topic: str) -> None:
    read = parse_reminder(text, now=NOW)
    assert read is not None and topic in read["keywords"]


@pytest.mark.parametrize(
    "text",
    [
        "quiz me on the dative endings now",
        "when we do the cases can you go slower?",
        "test me on the formulas when you have a minute",
        "ask me about my weekend",
    ],
)
def test_a_plain_ask_is_no_reminder(text: str) -> None:
    assert parse_reminder(text, now=NOW) is None


def test_a_topic_said_without_its_head_after_an_adjective() -> None:
    assert names_trigger("ok, time for the final written", "final written exam")
    assert names_trigger("let's do the advanced conversational today", "advanced conversational class")
    assert not names_trigger("my final grades are in", "final written exam")
