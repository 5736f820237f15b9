"""Work done told with words dropped (issue 39, L6, session 48, N9): own phrasing, not any set's.

A diary line names a day and an amount with no verb ("last night 4 km on the treadmill"), or a past verb
takes a bare number with no subject and no counted word ("polished off five yesterday evening").
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.differences import resolve_change
from agent.language.number_roles import done_verb
from agent.language.numerals import numbers
from agent.language.shifts import shift

OLD_AT = datetime(2026, 1, 5, 10, tzinfo=UTC)
NEW_AT = datetime(2026, 1, 19, 10, tzinfo=UTC)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("I've cycled 120 km this month so far", "yesterday 35 km out to the lake and back", "155"),
        ("I've swum 6 km this month", "Monday morning swim, 1.5 km, shoulders sore", "7.5"),
        ("I've done 12 hours of guitar practice this month", "Rainy sunday, 2 hours of chords", "14"),
        ("I've completed 40 katas on Codewars so far", "knocked out 7 before lunch, all string ones", "47"),
        ("I've graded 110 essays so far", "got through eighteen today, my eyes hurt", "128"),
        ("I've memorised 150 flashcards in the deck", "Reviewed two dozen on the bus this morning", "174"),
        ("I've translated 52 short poems", "Finished 6 today, the sonnets.", "58"),
    ],
)
def test_work_done_with_words_dropped_adds(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=OLD_AT, new_at=NEW_AT, close=True) == value


@pytest.mark.parametrize(
    "new",
    [
        "tomorrow 50 km if the weather holds",
        "this month 420 pages in total, new record",
        "cracked 3 of the 10 hardest ones on the list",
        "My flatmate finished 30 yesterday.",
    ],
)
def test_a_plan_a_period_a_part_or_anothers_work_adds_nothing(new: str) -> None:
    change = shift(new)
    assert change is None or change.done is None


def test_a_weekday_is_no_verb_in_the_past() -> None:
    text = "wednesday 5 miles easy pace"
    assert done_verb(text, numbers(text)[0]) is None


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("My book budget for the semester is 250 euros", "35 went on a secondhand calculus textbook", "215"),
        ("I've saved 600 dollars for the deposit", "another 80 gone on a used laptop charger", "520"),
        ("I have 30 words on my review list", "another 5 went on the list today", "35"),
    ],
)
def test_a_bare_amount_gone_on_a_thing_is_spent(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=OLD_AT, new_at=NEW_AT, close=True) == value
