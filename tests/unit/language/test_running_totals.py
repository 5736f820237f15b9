"""Running totals beside a target, recurring amounts, dates named by their role, bounds (issue 39, L6).

Our own phrasing, not a scenario's.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.differences import resolve_change
from agent.language.encoder import encode
from agent.language.numerals import numbers
from agent.language.restated import restates
from agent.language.shifts import names_its_value, shift
from agent.language.units import period_of, same_period
from agent.memory.fact_changes import changed_fact

NOW = datetime(2026, 9, 14, 18, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=12)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # the count told with its word left out is the total; the requirement told first is the whole
        ("The licence asks for 50 hours in the air and I've flown 21.", "Flew another 4 hours.", "25"),
        ("I need 90 credits for the diploma and have 64.", "Got another 6 credits in summer.", "70"),
        # two amounts of one change in one sentence both count
        ("I've knitted 11 squares for the blanket.", "Knitted another two on Friday and three today.", "16"),
        ("My rowing log is at 300 km.", "Rowed another 12 km on Saturday plus 9 on Sunday.", "321"),
        ("I weigh 70 kilos and my target is 64.", "Lost 1 kilo in May and another 2 in June.", "67"),
        # a duration counted, not a date moved
        ("My meditation streak is at 40 days.", "Another 5 days done, then 2 more.", "47"),
    ],
)
def test_an_increment_applies_to_the_running_total(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


def test_a_continued_amount_of_another_counted_thing_is_no_part_of_the_change() -> None:
    change = shift("Added another 3 chapters yesterday and 40 pages of notes.")
    assert change is not None and change.amount == 3


@pytest.mark.parametrize(
    ("text", "period"),
    [
        ("My bursary is 700 pounds a month.", "month"),
        ("The new deal came with 8% more per week.", "week"),
        ("My daily budget is 30 euros.", "day"),
        ("I have saved 700 pounds.", None),
    ],
)
def test_the_period_a_number_is_counted_per(text: str, period: str | None) -> None:
    assert period_of(text, numbers(text)[0]) == period


def test_a_share_given_per_period_names_the_recurring_amount_of_that_period() -> None:
    old = "My grant pays 1,100 euros a month."
    assert same_period("The renewal came through with 6% more per month.", old)
    assert not same_period("The gym membership went up 5% a month.", old)  # the membership moved
    assert not same_period("The renewal came through with 6% more per year.", old)


def _rows(facts: list[str], new: str) -> list[dict]:
    vectors, query = encode(facts), encode([new])[0]
    rows = [
        {"id": i, "text": f, "score": float(s), "valid_from": (EARLIER + timedelta(days=i)).isoformat()}
        for i, (f, s) in enumerate(zip(facts, vectors @ query, strict=True))
    ]
    return sorted(rows, key=lambda r: -r["score"])


def _change(facts: list[str], new: str) -> tuple[int, str | None] | None:
    p = {"slotted": False, "predicate": "fact:x", "text": new, "valid_from": NOW.isoformat()}
    found = changed_fact(p, _rows(facts, new))
    return None if found is None else (int(found[0]["id"]), found[1])


def test_a_date_named_by_its_role_is_moved_whoever_moves_it() -> None:
    assert names_its_value("The examiner pushed the deadline back a week.")
    assert not names_its_value("My flatmate's deadline moved too.")
    facts = ["My seminar paper is due on October 2.", "I live near the harbour."]
    assert _change(facts, "My tutor pushed the deadline back by a week.") == (0, "October 9")


def test_a_recurring_amount_changed_by_an_event_of_its_period() -> None:
    facts = ["My bursary is 700 pounds a month.", "I study geology."]
    assert _change(facts, "The renewal letter came with 10% more per month.") == (0, "770")
    assert _change(facts, "The bus pass went up 10% a month.") is None


@pytest.mark.parametrize(
    "new",
    [
        "The word limit is 6,000, so there's room.",
        "The cap is 6,000 words.",
        "The module allows at most 6,000 words.",
        "The brief requires 6,000 words.",
    ],
)
def test_a_bound_told_after_the_count_is_another_quantity(new: str) -> None:
    assert not restates(new, "Wrote another 400 words. (now 4,300)")


def test_a_bound_changed_before_is_restated() -> None:
    assert restates("Actually the limit is 80 minutes now.", "Cut my daily limit by 20 minutes. (now 100)")


@pytest.mark.parametrize(
    ("text", "amount"),
    [
        ("Got a 10% raise this year.", 10.0),
        ("The semester brought a raise of 8% per hour.", 8.0),
        ("The school gave me a £40 discount on the fee.", -40.0),
        ("They announced a 5 percent cut to the budget.", -5.0),
    ],
)
def test_a_change_told_as_a_noun_is_signed(text: str, amount: float) -> None:
    change = shift(text)
    assert change is not None and change.amount == amount


def test_a_change_noun_only_hoped_for_is_none() -> None:
    assert shift("I want a 10% raise next year.") is None
