"""Running totals of session 43 (issue 39, L6, heldout8's classes), each failing on the code before it.

A relative change of a stored number (a percentage of a count or an amount of money, a fraction with
no "by"), an increment beside a target told in one sentence ("I need 120 … and I've completed 85") or
beside the whole it is part of ("3,200 words of a 10,000-word dissertation"), a change reported by
someone who does not own it ("My mentor says …"), and a date moved again whose change is a pronoun
after a clause of cause. Negated, planned and graded ("20% more confident") changes stay no change.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from agent.language.change_owner import names_another_owner, names_another_thing
from agent.language.differences import resolve_change
from agent.memory.fact_changes import changed_fact

NOW = datetime(2026, 3, 2, 16, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=20)


def _value(new: str, old: str) -> str | None:
    return resolve_change(new, old, old_at=EARLIER, new_at=NOW)


def _row(text: str, score: float) -> dict[str, Any]:
    return {"id": "f1", "text": text, "score": score, "valid_from": EARLIER.isoformat()}


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("My monthly food budget is £400.", "Bumped the food budget up 10 percent.", "£440"),
        ("I'm running 30 km a week.", "My weekly distance went up 20% after the physio cleared me.", "36"),
        ("The seminar list has 40 articles.", "Prof trimmed the list by 25 percent.", "30"),
        ("My piano practice target is 90 minutes a day.", "The practice target is now a third less.", "60"),
        ("I save 600 dollars a month.", "I'm putting away a third more each month now.", "800"),
        ("I read 200 pages a week.", "My tutor says 10% more per week is enough, so I'm doing that.", "220"),
    ],
)
def test_a_percentage_or_a_fraction_changes_the_value_relatively(old: str, new: str, value: str) -> None:
    assert _value(new, old) == value


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My study plan has 300 flashcards a week.", "I'm 20% more confident with the flashcards now."),
        ("My budget is 300 dollars.", "Did another 10% of the course."),
        ("My food budget is £400.", "I might cut the food budget by 10% next month."),
        ("I have 7 papers accepted so far.", "Another two are still under review."),
    ],
)
def test_a_graded_planned_or_pending_change_changes_nothing(old: str, new: str) -> None:
    assert _value(new, old) is None


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("I need 120 clinical hours and I've completed 85.", "Did another 12 on the night shift.", "97"),
        ("I'm at 3,200 words of a 10,000 limit.", "Wrote 800 more today.", "4,000"),
        ("I need 40 hours and I've got 26 done.", "Another 9 this week.", "35"),
    ],
)
def test_an_increment_adds_to_the_total_not_the_target_or_the_whole(old: str, new: str, value: str) -> None:
    assert _value(new, old) == value


def test_the_thing_named_anywhere_in_the_change_is_its_thing() -> None:
    new = "Controlling came back: training budgets across the company were cut by a quarter."
    old = "The team training budget for 2026 is €12,000."
    assert not names_another_thing(new, old)
    assert changed_fact(
        {"slotted": False, "predicate": "fact:x", "text": new, "valid_from": NOW.isoformat()},
        [_row(old, 0.3)],
    ) == (_row(old, 0.3), "€9,000")


def test_a_speaker_owns_no_value_they_report() -> None:
    assert not names_another_owner(
        "My coach says 20% more per week is fine, so I'm adding it.", "I'm running 30 km a week."
    )


@pytest.mark.parametrize(
    ("new", "value"),
    [
        ("And now their CFO can't make it, so it slides again by one more day.", "March 6"),
        ("Venue issue, it slides another week.", "March 12"),
        ("Their lead is ill, so they pushed it out another two days.", "March 7"),
    ],
)
def test_a_date_moved_again_changes_the_moved_date(new: str, value: str) -> None:
    old = "The client asked to do it two days later. (now March 5)"
    changed = changed_fact(
        {"slotted": False, "predicate": "fact:x", "text": new, "valid_from": NOW.isoformat()},
        [_row(old, 0.15)],
    )
    assert changed is not None and changed[1] == value


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("The reading list has 40 articles.", "Upping the list by a third, sadly.", "53"),
        ("I do 45 squats a day.", "Bumped the squats up 10%.", "49.5"),
        ("My grocery budget is $300.", "Trimmed the grocery budget by a fifth.", "$240"),
    ],
)
def test_a_relative_change_is_as_precise_as_the_learners_number(old: str, new: str, value: str) -> None:
    assert _value(new, old) == value
