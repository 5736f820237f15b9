"""Running totals told as draws on a stock, two amounts at once, a part of what is left (issue 39, L6).

Phrasings written by N5 (session 47) in own words; none is taken from a scenario set.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.change_owner import names_another_owner
from agent.language.differences import resolve_change
from agent.language.quantities import amount_change
from agent.language.shifts import names_its_value, shift
from agent.language.told_totals import total_told

OLD_AT = datetime(2026, 3, 2, tzinfo=UTC)
NEW_AT = datetime(2026, 3, 9, tzinfo=UTC)


def _resolve(new: str, old: str) -> str | None:
    return resolve_change(new, old, old_at=OLD_AT, new_at=NEW_AT)


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        ("hiked 6 on Friday and 11 yesterday", "I've hiked 90 km so far this spring.", "107"),
        ("Last week I swam 2 km in the lake and 1 km back.", "I've swum 40 km so far this year.", "43"),
        ("finished 4 in March and 2 in April", "I've finished 31 crosswords so far.", "37"),
        ("spent 70 on paint and 25 on brushes", "We have 400 euros left for the art club.", "305"),
        (
            "Paid ₹900 for the mock test and ₹350 for the book.",
            "I've got ₹5,000 left for exam prep.",
            "₹3,750",
        ),
    ],
)
def test_two_amounts_of_one_kind_both_apply(new: str, old: str, value: str) -> None:
    assert _resolve(new, old) == value


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        ("used 5 of them before the break", "I prepaid 24 yoga classes at the studio.", "19"),
        ("used 1.5 of those hours on essays", "I have 12 hours of writing-centre credit.", "10.5"),
        (
            "The school gave me 3 bonus sessions for the survey.",
            "I bought a block of 15 tutoring sessions.",
            "18",
        ),
        ("used 4 of them on the flight", "My aunt gave me 12 crossword books as a leaving present.", "8"),
    ],
)
def test_a_stock_held_is_used_or_given_to(new: str, old: str, value: str) -> None:
    assert _resolve(new, old) == value


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("used 3 of them in my essay", "I've learned 60 idioms so far."),  # a tally of work is no stock
        ("spent $40 on a concert ticket", "I have $700 in my travel fund."),  # no purse paid from
        ("solved another 4 today", "solved 5 on Monday and 6 on Wednesday"),  # two parts, no total told
    ],
)
def test_no_value_without_a_stock_or_a_total(new: str, old: str) -> None:
    assert _resolve(new, old) is None


def test_units_a_plan_gives_are_a_state_not_a_gift() -> None:
    """Told in the present ("my plan gives me 500 texts a month"), units given are what is held, no change."""
    assert amount_change("The starter plan gives me 500 text messages a month.") is None


def test_a_gift_beside_a_part_left_unread_changes_nothing() -> None:
    """Part of the statement unread ("and one more question"): no total is sure, so none is computed."""
    assert (
        amount_change("My tutor gave me 2 free sessions for the review, and I have one more question") is None
    )


def test_units_given_then_used_in_one_statement_net_out() -> None:
    change = amount_change("The gym gave me 4 free classes for the survey, and I took 3 more this week")
    assert change is not None and change.delta == 1 and change.stock == "given"
    old = "I prepaid 10 spin classes at the gym."
    assert _resolve("The gym gave me 4 free classes for the survey, and I took 3 more this week", old) == "11"


def test_a_part_of_what_was_left_names_the_value() -> None:
    assert names_its_value("the new tyres swallowed a quarter of what was left")
    assert shift("the new tyres swallowed a quarter of what was left").factor == 0.75


@pytest.mark.parametrize(
    ("new", "owner"),
    [
        ("The debate society across the corridor got a £900 grant.", True),
        ("the office upstairs just received a 3,500 euro bonus", True),
        ("The chess budget got another £50 from the school.", False),
    ],
)
def test_a_party_that_receives_money_owns_it(new: str, owner: bool) -> None:
    old = "We have £600 left in the chess budget for the term."
    assert names_another_owner(new, old) is owner


def test_a_total_told_after_the_change_is_cut_off() -> None:
    assert total_told("read another 12 today (now 30 this week)") == ("read another 12 today", 30.0)
    assert total_told("read another 12 today") is None


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        (
            "Burned through another 2 tanks of gas on the commute.",
            "I have 9 tanks of gas left on the card.",
            "7 left",
        ),
        ("4 more tokens spent on the arcade", "There are 30 tokens left on my arcade card.", "26 left"),
        ("Ate another 3 of them at lunch", "I have 10 protein bars left in the drawer.", "7 left"),
        ("two more sessions used this week", "I prepaid 12 sauna sessions.", "10"),
    ],
)
def test_a_draw_told_with_more_draws(new: str, old: str, value: str) -> None:
    """'more' says another draw, not which way: the drawing verb (before the amount or after it) does."""
    assert _resolve(new, old) == value


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        ("used 2 passes", "My school paid for 8 passes for me.", "6"),
        ("we used 3 hours of it", "We rented 10 hours of court time.", "7"),
        ("used 5 credits on the first assignment", "I ordered 25 print credits.", "20"),
    ],
)
def test_a_stock_bought_is_held(new: str, old: str, value: str) -> None:
    assert _resolve(new, old) == value


def test_digits_joined_to_a_word_name_a_thing() -> None:
    from agent.language.numerals import numbers

    assert [n.value for n in numbers("my SR-71 model cost 45")] == [45.0]
    assert [n.value for n in numbers("pages 10-20 and 3 more")] == [10.0, 20.0, 3.0]


@pytest.mark.parametrize(
    "new",
    ["finished 3 more, level 8 took me all evening", "wrote another 2 tonight, though #14 took ages"],
)
def test_a_label_before_a_drawing_verb_draws_nothing(new: str) -> None:
    change = shift(new)
    assert change is not None and (change.amount or 0) > 0
