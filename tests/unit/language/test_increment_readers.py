"""Increments of new shapes: a rate over a span, "as many again", measured work, a purchase (issue 39, L6).

Also work got done and a short unit of time (session 49). Phrasings of our own, not of any bench set.
"""

from __future__ import annotations

import pytest

from agent.language.shifts import shift
from agent.language.units import days_told, same_head


@pytest.mark.parametrize(
    ("text", "period", "days"),
    [
        ("swam 2 km a day Tuesday to Thursday", "day", 3),
        ("read 30 pages a day from fri-mon", "day", 4),
        ("an hour a day, six days in a row", "day", 6),
        ("did 10 katas a day for three weeks", "day", 21),
        ("practised 5 hours a week for 2 weeks", "week", 2),
        ("20 minutes a day on Saturday and Sunday", "day", 2),
        ("I do 3 hours a day", "day", None),
        ("practised 5 hours a week for 10 days", "week", None),
    ],
)
def test_days_a_rate_was_kept_up(text: str, period: str, days: int | None) -> None:
    assert days_told(text, period) == days


@pytest.mark.parametrize(
    ("one", "other"), [("hrs", "hours total"), ("h", "hours"), ("mins", "minutes of tai chi")]
)
def test_a_short_unit_of_time_is_the_same_unit(one: str, other: str) -> None:
    assert same_head(one, other)


def test_other_units_of_time_are_not_the_same() -> None:
    assert not same_head("min", "hours")
    assert not same_head("hotels", "hours")


@pytest.mark.parametrize(
    ("text", "amount", "unit"),
    [
        ("swam 2 km a day Tuesday to Thursday", 6.0, "km"),
        ("Did 10 katas a day for three weeks.", 210.0, "katas"),
        ("45 minutes a day for four days", 180.0, "minutes"),
        ("I did a 3-hour session on the weekend", 3.0, "hour"),
        ("went for a 12 km ride yesterday", 12.0, "km"),
        ("I only got 7 done today", 7.0, None),
        ("got 40 cards reviewed before work", 40.0, "cards"),
        ("another 5 hrs on the weekend", 5.0, "hrs"),
    ],
)
def test_work_done_is_read_as_an_increment(text: str, amount: float, unit: str | None) -> None:
    change = shift(text)
    assert change is not None
    assert (change.amount, change.unit) == (amount, unit)


@pytest.mark.parametrize(
    ("text", "factor"),
    [
        ("read half as many again over the break", 1.5),
        ("this term I solved as many problems again", 2.0),
        ("saved twice as much again since May", 3.0),
        ("over the holidays I watched half as many again as I had before", 1.5),
    ],
)
def test_as_many_again_scales_the_count(text: str, factor: float) -> None:
    change = shift(text)
    assert change is not None and change.factor == factor


@pytest.mark.parametrize(
    ("text", "amount", "stock"),
    [
        ("bought a tripod with it for 60 euros", -60.0, "of_it"),
        ("paid for the printing out of it, 25 dollars", -25.0, "of_it"),
        ("booked the bus, 30 euros for two tickets", -30.0, "spent"),
        ("the conference dinner cost me 55 dollars", -55.0, "spent"),
    ],
)
def test_a_purchase_draws_money(text: str, amount: float, stock: str) -> None:
    change = shift(text)
    assert change is not None and (change.amount, change.stock) == (amount, stock)


@pytest.mark.parametrize(
    "text",
    [
        "I want to swim 2 km a day Tuesday to Thursday next week",
        "my brother read half as many again as me",
        "my sister watched half as many again as I did",
        "my coworker did a 3-hour workshop",
        "I'll go for a 12 km ride tomorrow",
        "my friend bought a tripod for 60 euros",
        "the course costs 300 euros",
        "I'll buy a tripod for 60 euros",
    ],
)
def test_plans_and_others_are_no_increment(text: str) -> None:
    assert shift(text) is None
