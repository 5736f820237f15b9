"""A condition that names a topic is a topic trigger; one that names only a meeting is the next session.

Also when an utterance of its own (a greeting, an earlier sentence) comes before the condition.
My own phrasings, none from a scenario set.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.reminders import parse_reminder

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "task", "topic"),
    [
        (
            "yo! next time we talk about heaps, remind me to ask about sift-down",
            "ask about sift-down",
            "heaps",
        ),
        (
            "Good morning! before we do any more optics, remind me that lenses confuse me",
            "lenses confuse me",
            "optics",
        ),
        (
            "hi, I'm back. once we get to closures, remind me to ask about scope",
            "ask about scope",
            "closures",
        ),
        (
            "thanks so much!! before we start on the passive voice don't let me forget to ask about 'by'",
            "ask about 'by'",
            "passive voice",
        ),
        ("cheers! when we get to limits, make me explain epsilon-delta", "explain epsilon-delta", "limits"),
    ],
)
def test_an_utterance_before_the_condition_is_no_part_of_it(text: str, task: str, topic: str) -> None:
    reminder = parse_reminder(text, now=NOW)
    assert reminder is not None and reminder["description"] == task, reminder
    assert reminder["trigger_kind"] in {"keywords", "concept"}, reminder
    assert any(topic in k for k in reminder["keywords"]), reminder


@pytest.mark.parametrize(
    "text",
    [
        "before we start next time, remind me to ask about my grades",
        "hey! once we meet again, remind me to bring my notebook",
        "remind me to show you my poem when we talk next time",
        "Before we begin the next session, remind me to ask about the test",
    ],
)
def test_a_condition_naming_only_a_meeting_is_the_next_session(text: str) -> None:
    reminder = parse_reminder(text, now=NOW)
    assert reminder is not None and reminder["trigger_kind"] == "time", reminder
    assert datetime.fromisoformat(reminder["due_at"]) <= NOW + timedelta(days=1), reminder
    assert "next" not in reminder["description"] and "again" not in reminder["description"], reminder


@pytest.mark.parametrize(
    ("text", "topic"),
    [
        ("next time we talk about classes, remind me to ask about self", "classes"),
        ("if we get to matrices this week, remind me to ask about rank", "matrices"),
    ],
)
def test_a_topic_that_is_a_meeting_word_or_has_a_span_stays_a_topic(text: str, topic: str) -> None:
    reminder = parse_reminder(text, now=NOW)
    assert reminder is not None and reminder["trigger_kind"] in {"keywords", "concept"}, reminder
    assert reminder["keywords"] == [topic], reminder


def test_a_meeting_at_a_named_time_is_due_then() -> None:
    reminder = parse_reminder("before we start next week, remind me to ask about the quiz", now=NOW)
    assert reminder is not None and reminder["trigger_kind"] == "time", reminder
    assert datetime.fromisoformat(reminder["due_at"]) > NOW + timedelta(days=3), reminder
