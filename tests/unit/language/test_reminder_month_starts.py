"""A request due when a month or a year comes is due from its first day, not the next day.

"once <month> starts", "when <month> comes around", "as soon as it's <month>", "at the start of
<month>": read as no time at all, such a request fell to the one-day default and fired weeks early
(heldout18, 2026-11-30). The phrasings are ours, not heldout18's. No model: the parse, dateparser and
the clock only.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from agent.language.reminder_times import arrival, phrase_due
from agent.language.reminders import parse_reminder
from agent.memory.reminders import resolve_due

NOW = datetime(2026, 5, 14, 18, 0, tzinfo=timezone(timedelta(hours=2)))
"""A Thursday evening in May, two hours east of Greenwich."""

# (request, the local date it is due from)
REQUESTS = [
    ("Once June starts, remind me to renew my bus pass.", "2026-06-01"),
    ("Remind me to pay the deposit when September comes.", "2026-09-01"),
    ("As soon as it's July, don't let me forget to book the oral exam.", "2026-07-01"),
    ("when August rolls around remind me to cancel the gym, it auto-renews", "2026-08-01"),
    ("Remind me to order the workbook once next month starts.", "2026-06-01"),
    ("The moment October begins, remind me to apply for the bursary.", "2026-10-01"),
    ("Remind me at the start of November to check the timetable.", "2026-11-01"),
    ("Remind me to send the invoice at the end of June.", "2026-06-30"),
    ("Remind me at the beginning of December that the library closes early.", "2026-12-01"),
    ("Please remind me to update my CV when December comes around, the portal opens then.", "2026-12-01"),
    ("Remind me to renew my subscription after January starts.", "2027-01-01"),
    ("When June is here, remind me to ask about the summer reading list.", "2026-06-01"),
]


@pytest.mark.parametrize(("text", "day"), REQUESTS)
def test_due_from_the_first_day(text: str, day: str) -> None:
    read = parse_reminder(text, now=NOW)
    assert read is not None and read["trigger_kind"] == "time"
    assert read["due_at"] == f"{day}T00:00:00+02:00"
    # the store resolves the phrase against its own clock to the same instant
    assert resolve_due(read["when"], NOW) == read["due_at"]
    # the condition is no part of the task
    assert not any(m in read["description"] for m in ("starts", "comes", "rolls", "begins", " is here"))


@pytest.mark.parametrize(
    "text",
    [
        "Remind me to ask about loops when we start.",  # "we" is no Wednesday
        "Remind me to ask about the notation once the lesson starts.",  # a lesson, no date
        "Remind me to water the basil when it rains.",
        "Remind me to bring the charger when June gives me a free weekend.",  # the time does something
    ],
)
def test_no_time_that_comes(text: str) -> None:
    read = parse_reminder(text, now=NOW)
    assert read is None or read["when"] is None or not read["when"].startswith("the start of")


def test_a_day_that_comes_is_that_day() -> None:
    assert arrival("Friday comes", NOW) == "Friday"
    assert phrase_due("Friday", NOW) == datetime(2026, 5, 15, tzinfo=NOW.tzinfo)


@pytest.mark.parametrize(
    ("phrase", "day"),
    [
        ("the start of June", "2026-06-01"),
        ("at the beginning of 2027", "2027-01-01"),
        ("the end of September", "2026-09-30"),
        ("by the end of February", "2027-02-28"),
        ("the start of next month", "2026-06-01"),
    ],
)
def test_edges_of_a_period(phrase: str, day: str) -> None:
    due = phrase_due(phrase, NOW)
    assert due is not None and due.isoformat() == f"{day}T00:00:00+02:00"
