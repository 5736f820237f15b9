"""A reminder for a day fires in the learner's first session on that local day, never before.

Each case failed on the code before (heldout7, 2026-11-29: "on the 14th, that's when my salary
comes in" and "Oh and on Thursday remind me …" were read as the one-day default and fired a
session early; an ISO date without an offset was read as UTC midnight, the evening before west of
Greenwich). The sentences are not heldout7's. No model: the parse, the clock and the rule only.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from agent.language.reminder_times import local_instant, phrase_due, time_before_aside
from agent.language.reminders import parse_reminder
from agent.memory.reminder_rules import trigger_matches
from agent.memory.reminders import resolve_due

# west and east, whole, half and quarter hours, and the date line's edges
OFFSETS = [-720, -570, -240, -210, 0, 60, 330, 345, 765, 840]
"""Minutes: -12:00, -09:30, -04:00, -03:30, UTC, +01:00, +05:30, +05:45, +12:45, +14:00."""
MONDAY = (2026, 6, 8)  # 2026-06-08 is a Monday
# (request, the local day it names, counted from MONDAY's month)
REQUESTS = [
    ("Remind me to renew my railcard on Thursday.", 11),
    ("Oh and on Thursday remind me to bring the lab coat.", 11),
    ("Remind me to pay the course fee on the 14th, that's payday.", 14),
    ("Also on the 20th remind me to book the speaking test.", 20),
    ("Remind me to send the draft on 2026-06-19 because my tutor is away until then.", 19),
    ("Remind me next week to check the results.", 15),
    ("By the way, on Friday remind me to print the handout.", 12),
    ("Remind me to email Dr. Okafor on Wednesday - she asked for the slides.", 10),
    ("Please remind me tomorrow to water the lab plants.", 9),
    ("Remind me to return the library books on the 3rd, the fine starts after that.", 33),
]


def _zone(minutes: int) -> timezone:
    return timezone(timedelta(minutes=minutes))


def _local(day: int, hour: int, minute: int, tz: timezone) -> datetime:
    """``day`` of MONDAY's month (33 is the 3rd of the next month) at a local time."""
    start = datetime(*MONDAY, tzinfo=tz)
    return start + timedelta(days=day - MONDAY[2], hours=hour, minutes=minute)


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize(("text", "day"), REQUESTS)
@pytest.mark.parametrize("said_at", [(0, 5), (7, 30), (23, 50)])
def test_a_day_reminder_fires_on_that_local_day_and_not_the_evening_before(
    text: str, day: int, offset: int, said_at: tuple[int, int]
) -> None:
    tz = _zone(offset)
    now = _local(MONDAY[2], *said_at, tz)
    reminder = parse_reminder(text, now=now)
    assert reminder is not None and reminder["trigger_kind"] == "time", text
    late_eve = _local(day - 1, 23, 59, tz)
    first_session = _local(day, 0, 1, tz)
    assert not trigger_matches(reminder, "Evening, shall we do some reading?", None, late_eve)
    assert trigger_matches(reminder, "Morning! Vocabulary today?", None, first_session)


@pytest.mark.parametrize("offset", OFFSETS)
@pytest.mark.parametrize("phrase", ["2026-06-19", "on 2026-06-19", "by 2026-06-19"])
def test_an_iso_date_without_an_offset_is_the_learners_day(phrase: str, offset: int) -> None:
    tz = _zone(offset)
    now = _local(MONDAY[2], 21, 0, tz)
    due = phrase_due(phrase, now)
    assert due is not None and due == _local(19, 0, 0, tz)


@pytest.mark.parametrize("offset", OFFSETS)
def test_the_store_reads_a_naive_due_at_in_the_sessions_zone(offset: int) -> None:
    tz = _zone(offset)
    now = _local(MONDAY[2], 22, 0, tz)
    assert datetime.fromisoformat(resolve_due("2026-06-19", now) or "") == _local(19, 0, 0, tz)
    assert datetime.fromisoformat(resolve_due("2026-06-19T09:30", now) or "") == _local(19, 9, 30, tz)
    # an offset of its own is kept
    assert resolve_due("2026-06-19T09:30:00+02:00", now) == "2026-06-19T09:30:00+02:00"


def test_local_instant_keeps_an_offset_and_refuses_non_iso_text() -> None:
    tz = _zone(-150)
    now = datetime(2026, 6, 8, 12, tzinfo=tz)
    assert local_instant("2026-06-19T10:00:00+00:00", now) == datetime(2026, 6, 19, 10, tzinfo=UTC)
    assert local_instant("next Friday", now) is None


@pytest.mark.parametrize(
    ("rest", "task", "phrase"),
    [
        ("pay the fee on the 14th, that's payday", "pay the fee, that's payday", "on the 14th"),
        ("call the bank on Friday because they shut", "call the bank because they shut", "on Friday"),
        ("book the room tomorrow; the slots go fast", "book the room; the slots go fast", "tomorrow"),
        ("print the notes at 8pm - it's free then", "print the notes - it's free then", "at 8pm"),
    ],
)
def test_a_remark_after_the_time_phrase_stays_in_the_task(rest: str, task: str, phrase: str) -> None:
    now = datetime(2026, 6, 8, 9, tzinfo=_zone(330))
    found = time_before_aside(rest, now)
    assert found is not None
    assert (found[0], found[2]) == (task, phrase)


def test_no_time_before_a_remark_is_still_the_one_day_default() -> None:
    now = datetime(2026, 6, 8, 9, tzinfo=_zone(-240))
    reminder = parse_reminder("Remind me to stretch, my back hurts.", now=now)
    assert reminder is not None and reminder["when"] == "in 1 day"
    assert time_before_aside("stretch, my back hurts", now) is None
