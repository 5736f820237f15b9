"""What a change leaves, told after it, is the statement's own total (``agent.language.told_totals``).

Sentences written for these tests, not from a scenario set: "cut $400 from it, leaving me $800" was
read as two changes (-400 and +800) and stored as "(now $1,600)".
"""

from __future__ import annotations

import pytest

from agent.language.numerals import numbers
from agent.language.quantities import amount_change
from agent.language.told_totals import left_by_change, total_told

RESULTS = [
    ("bad news, finance cut $400 from it, leaving me $800 for the trip", 800),
    ("the committee dropped 30 from our kit money, leaving us with 90", 90),
    ("spent 45 on the anatomy textbook, so I have 155 for the rest of term", 155),
    ("had to use 90 rand of it for the taxi home, leaving just 510", 510),
    ("the faculty clawed back €350, so we've got €1,650 to finish the survey", 1650),
    ("cleared 40 of them last night, leaving only 60", 60),
    ("my manager took 4 days back for the audit, leaving me 10", 10),
    ("we paid 120 pesos for the room booking, so we have 180", 180),
    ("typed 25 of them on the train, leaving 55", 55),
    ("saved another £40 this week, now at £640", 640),
]


@pytest.mark.parametrize(("text", "total"), RESULTS)
def test_what_a_change_leaves_is_the_total_told(text: str, total: int) -> None:
    told = total_told(text)
    assert told is not None and told[1] == total
    change = amount_change(text)
    # never a second change of the same sentence: no change read at all, or the change told before it
    assert change is None or change.delta is None or change.delta < total


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("Six members quit after the tournament, so we have 6 fewer", None),
        ("leaving 3 days early for the break, I did 10 more problems first", 10.0),
    ],
)
def test_a_comparative_or_a_departure_is_no_total_left(text: str, delta: float | None) -> None:
    assert not any(left_by_change(text, n) for n in numbers(text))
    if delta is not None:
        change = amount_change(text)
        assert change is not None and change.delta == delta
