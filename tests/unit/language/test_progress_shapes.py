"""Running totals told in shapes the layer missed (issue 39, L6, session 48): own phrasing, not any set's."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.differences import resolve_change
from agent.language.number_owners import groups_count
from agent.language.numerals import numbers
from agent.language.shifts import shift

OLD_AT = datetime(2026, 1, 5, 10, tzinfo=UTC)
NEW_AT = datetime(2026, 1, 19, 10, tzinfo=UTC)


def _resolve(new: str, old: str, *, close: bool = False) -> str | None:
    return resolve_change(new, old, old_at=OLD_AT, new_at=NEW_AT, close=close)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("I'm on page 61 of the Dutch grammar book.", "Read another 14 pages on the train.", "75"),
        ("Currently I'm up to lesson 14 in the Korean course.", "did another 2 lessons today", "16"),
        ("I've solved 64 of the exercises in the workbook.", "Did another batch of 8 last night.", "72"),
        ("I have 180 overdue reviews in my Japanese deck.", "Cleared 60 of them this morning.", "120 left"),
        ("I have 180 overdue reviews in my deck.", "did 50 more but 30 new ones became due", "160 left"),
        (
            "I've put aside 9000 rupees for the trip so far.",
            "Had to take 2000 out of it for my visa.",
            "7000",
        ),
        (
            "My history essay is due on 3 February.",
            "The lecturer gave the seminar a week extra on the essay.",
            "10 February",
        ),
    ],
)
def test_a_change_resolves_against_its_total(old: str, new: str, value: str) -> None:
    assert _resolve(new, old) == value


def test_money_spent_draws_from_a_budget_only_on_its_purpose_and_when_close() -> None:
    budget = "My conference travel budget from the lab is 900 lari."
    assert _resolve("spent 240 lari on the conference flights", budget, close=True) == "660"
    assert _resolve("spent 240 lari on the conference flights", budget) is None  # not close by meaning
    saved = "I've saved 2,000 dirhams for my driving lessons."
    assert _resolve("Spent 90 dirhams on a pizza with friends.", saved, close=True) is None
    price = "A full course of lessons costs 6,500 rand."
    assert _resolve("Paid 650 rand for the first block of lessons.", price, close=True) is None


def test_time_spent_is_no_money() -> None:
    change = shift("Spent 3 hours on the fieldwork report today.")
    assert change is None or change.stock != "spent"


def test_a_pile_of_things_held_is_not_worked_through_by_them() -> None:
    assert _resolve("Listened to 5 of them while cooking.", "I have 60 podcast episodes in my queue.") is None


def test_the_learners_own_group_counts_as_a_group() -> None:
    assert groups_count("our whole study group solved 300 problems this month")
    assert groups_count("Our entire team finished 410 interviews by Friday.")
    assert not groups_count("I transcribed 9 more tonight")


def test_a_year_stays_a_date() -> None:
    assert numbers("I bought my first laptop in 2019.") == []
    assert [n.value for n in numbers("Put 2000 into it from my birthday money.")] == [2000.0]


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("Correction: I'm really on page 70, I skipped a bookmark.", "read another 10 pages", "80"),
        ("Recounted my deck: I'm actually at 152 kanji.", "Learned 6 more kanji today.", "158"),
    ],
)
def test_a_recount_is_the_total_an_increment_adds_to(old: str, new: str, value: str) -> None:
    assert _resolve(new, old) == value
