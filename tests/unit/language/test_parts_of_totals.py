"""A count told as a part of a named total, and a year-like number that counts a noun (issue 39, L6)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.differences import resolve_change
from agent.language.numerals import numbers
from agent.language.portions import fraction_of, taken_back

OLD = datetime(2026, 4, 1, 9, 0, tzinfo=UTC)
NEW = OLD + timedelta(days=2)


@pytest.mark.parametrize(
    ("text", "part"),
    [
        ("I've finished 3/4 of the 48 quizzes.", 0.75),
        ("Done with two thirds of my 90 flashcards.", 2 / 3),
        ("I'm through half the 26 lessons.", 0.5),
        ("I've done 18 of the 48 quizzes.", None),
        ("Set 5/6 has 12 problems.", None),
    ],
)
def test_a_fraction_before_a_total_is_the_learners_part(text: str, part: float | None) -> None:
    total = numbers(text)[-1]
    found = fraction_of(text, total.start)
    assert found == pytest.approx(part) if part is not None else found is None


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("I've finished 3/4 of the 48 quizzes.", "Did 2 more quizzes today.", "38"),
        ("I'm through half the 26 lessons of the course.", "Another 3 lessons done.", "16"),
    ],
)
def test_an_increment_adds_to_the_part_not_the_total(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=OLD, new_at=NEW) == value


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("I've saved 2050 rupees for the exam fees.", [2050.0]),
        ("The archive has 1985 scans so far.", [1985.0]),
        ("In 2021 students got free licences.", []),
        ("My 2023 notes are a mess.", []),
        ("I moved here after 2019.", []),
    ],
)
def test_a_year_like_number_counts_the_noun_it_modifies(text: str, values: list[float]) -> None:
    assert [n.value for n in numbers(text)] == values


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        ("Trimmed roughly 300 words from the discussion.", "My report is at 4,100 words.", "3,800"),
        ("After the edit about 250 words were gone.", "My report is at 4,100 words.", "3,850"),
        ("Spent half of what was left on a slide kit.", "I've got 300 euros for lab supplies.", None),
        ("Spent half of what was left on a slide kit.", "I have 300 euros left for lab supplies.", "150"),
        ("Spent a quarter of what remained on paper.", "Ordered a set of pens for 20 euros.", None),
        # "the rest of" as a span of time is no part of what is left
        (
            "The faculty cut every club's grant by 10% for the rest of the year.",
            "Our club grant is $2,000.",
            "$1,800",
        ),
        (
            "our allowance drops by a quarter for the remaining months",
            "The team allowance is 400 euros.",
            "300",
        ),
    ],
)
def test_cuts_parts_of_what_is_left_and_prices(new: str, old: str, value: str | None) -> None:
    assert resolve_change(new, old, old_at=OLD, new_at=NEW) == value


def test_an_increment_adds_to_a_recount_the_learner_stated() -> None:
    recount = "Oh wait, the dashboard shows 412 reviewed, so I had it wrong."
    assert resolve_change("and 8 more reviewed tonight", recount, old_at=OLD, new_at=NEW) == "420"


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        ("Wrote 700 words on the train.", "My capstone report is at 5,300 words.", "6,000"),
        ("Reviewed 150 cards tonight.", "My vocab deck is at 1,200 cards.", None),
    ],
)
def test_writing_adds_to_a_texts_length_not_other_work(new: str, old: str, value: str | None) -> None:
    assert resolve_change(new, old, old_at=OLD, new_at=NEW) == value


@pytest.mark.parametrize(
    ("new", "old", "value"),
    [
        ("another 12 pages on the bus", "Began the novel in Japanese, read 20 pages today", "32"),
        ("another 4 km after lunch", "ran 10 km this morning", "14"),
        ("Gained another 30 points", "Gained 45 points over the weekend", None),
        ("2 more", "watched 3 lectures on Monday and 2 on Tuesday", None),
    ],
)
def test_one_amount_of_work_told_first_is_a_tally(new: str, old: str, value: str | None) -> None:
    assert resolve_change(new, old, old_at=OLD, new_at=NEW) == value


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("Rechecked them and 3 of Monday's turned out wrong.", -3.0),
        ("4 of those don't count, the grader rejected them", -4.0),
        ("5 of them were mine", None),
        ("Two of my answers are probably right.", None),
    ],
)
def test_work_taken_back_is_a_decrement(text: str, delta: float | None) -> None:
    back = taken_back(text)
    assert (back.delta if back is not None else None) == delta
