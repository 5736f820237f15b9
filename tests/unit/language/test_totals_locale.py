"""Running totals of session 42 (issue 39, L6), each failing on the code before it.

A decimal comma, number words, someone else acting on the learner's value, a percentage change
without "by", an amount with an adverb after it ("another 150 aside"), and a date in digits moved
by a duration and written back the learner's way.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from agent.language.change_owner import names_another_owner
from agent.language.differences import resolve_change
from agent.language.number_owners import change_is_anothers
from agent.language.numerals import number_text, numbers
from agent.language.shifts import shift
from agent.language.units import unit_after

NOW = datetime(2026, 3, 2, 16, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=20)


def _value(new: str, old: str) -> str | None:
    return resolve_change(new, old, old_at=EARLIER, new_at=NOW)


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("I cycled 12,5 km today", [12.5]),
        ("a lap of 1,45 minutes", [1.45]),
        ("3,75 litres", [3.75]),
        ("14,200 words", [14200.0]),  # three digits after the comma: thousands
        ("1,500.5 euros", [1500.5]),
    ],
)
def test_a_decimal_comma_is_a_decimal_where_no_thousands_group_can_be(text: str, values: list[float]) -> None:
    assert [n.value for n in numbers(text)] == values


def test_a_value_is_written_back_with_the_learners_decimal_comma() -> None:
    assert number_text(19.8, "12,5") == "19,8"
    assert number_text(16.75, "12,5") == "16,75"
    assert number_text(2250, "1,950") == "2,250"  # a thousands separator stays one


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        # a decimal comma
        (
            "I've cycled 12,5 km on the new bike so far this month.",
            "Rode another 7,3 km to the lake.",
            "19,8",
        ),
        ("I've run 8,4 km this week for the marathon plan.", "Ran 6,1 km more in the rain tonight.", "14,5"),
        ("My weight is 71,8 kilos at the moment.", "Lost 1,3 kilos since the start of the month!", "70,5"),
        # number words
        ("I know 95 irregular verbs by heart.", "Memorised another two dozen verbs with the cards.", "119"),
        ("I've solved 64 chess puzzles on the app.", "Solved half a dozen more puzzles on the bus.", "70"),
        # someone else acts on the learner's value, through a preposition or an object
        ("My monthly book budget is 60 euros.", "My mum added 20 euros to my book budget.", "80"),
        ("My weekly vocabulary target is 150 words.", "He cut my target by 30 because of exams.", "120"),
        (
            "The physio lets me run 20 km a week at most.",
            "She took 8 km off my weekly running allowance.",
            "12",
        ),
        # a percentage change without "by"
        (
            "I spend 120 euros a month on tutoring.",
            "I'm increasing my tutoring spend 50% for a second lesson.",
            "180",
        ),
        (
            "My study plan has 300 flashcards a week.",
            "I'm trimming my weekly flashcards 20% for the exams.",
            "240",
        ),
        (
            "My study plan has 300 flashcards a week.",
            "Bumped the weekly flashcards up 10% after a good month.",
            "330",
        ),
        # an adverb after the amount is no unit: it counts what the total counts
        (
            "I've put aside 800 dollars so far for the bootcamp.",
            "Set another 150 aside this week from tips.",
            "950",
        ),
        (
            "I have 500 euros saved up for the conference fee.",
            "Another 120 put away from freelance work.",
            "620",
        ),
        # a date in digits moved by a duration, written back the learner's way
        (
            "My dissertation submission is 2026-04-15.",
            "The department moved the submission by a week.",
            "2026-04-22",
        ),
        ("My oral exam is on 03.03.2026.", "The oral exam got pushed back by two weeks.", "17.03.2026"),
        (
            "My visa interview is on 3/20/2026.",
            "The consulate moved the interview two days earlier.",
            "3/18/2026",
        ),
        ("Piano recital: 2026-05-30.", "The recital slid by a fortnight for the renovation.", "2026-06-13"),
    ],
)
def test_a_change_resolves_to_the_new_value(old: str, new: str, value: str) -> None:
    assert _value(new, old) == value


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("My study plan has 300 flashcards a week.", "I'm 20% more confident with the flashcards now."),
        ("My study plan has 300 flashcards a week.", "I got 50% on the flashcard quiz."),
        ("My study plan has 300 flashcards a week.", "I might raise the flashcards 5% next month."),
        ("My dissertation submission is 2026-04-15.", "They might shift the submission by a month."),
    ],
)
def test_no_change_no_value(old: str, new: str) -> None:
    assert _value(new, old) is None


@pytest.mark.parametrize(
    "text",
    [
        "Therapist says she added 20 minutes to my daily limit!",
        "The coach raised my target by 10.",
        "My sister took 50 euros out of my savings.",
        "Another 1,25 litres of milk went into today's batch.",  # a day's batch is no one's
    ],
)
def test_the_owner_of_the_changed_thing_decides_not_who_acts(text: str) -> None:
    assert not change_is_anothers(text)


@pytest.mark.parametrize(
    "text",
    [
        "She cut 10 minutes off her limit.",
        "Her coach raised her target by 10.",
        "The tutor raised Ana's target by 5.",
    ],
)
def test_a_change_to_anothers_thing_is_theirs(text: str) -> None:
    assert change_is_anothers(text)


def test_a_person_of_the_learners_with_a_value_of_their_own_is_another_owner() -> None:
    old = "My wife is on page 210 of Anna Karenina, showing off."
    assert names_another_owner("Read twenty more today on the train.", old)


def test_a_group_thing_the_learner_acts_on_is_changed() -> None:
    old = "The choir's travel fund is at 5,000 pounds, and I'm the treasurer."
    assert not names_another_owner("We grew the travel fund 12% with the bake sale.", old)
    assert _value("We grew the travel fund 12% with the bake sale.", old) == "5,600"


@pytest.mark.parametrize(
    ("text", "unit"),
    [
        ("Another 4,25 km done before breakfast", "km"),
        ("Set another 150 aside", None),
        ("by 30 because", None),
    ],
)
def test_a_verb_or_an_adverb_after_an_amount_is_no_unit(text: str, unit: str | None) -> None:
    end = numbers(text)[0].end
    assert unit_after(text, end) == unit


def test_a_plural_noun_the_parser_tags_as_a_verb_still_names_the_unit() -> None:
    old = "For my certification I have 1,200 CPD points out of the 2,000 needed."
    assert unit_after(old, numbers(old)[0].end) == "CPD points"
    assert _value("The webinar gave me 350 more points!", old) == "1,550"


def test_a_percentage_change_without_by_is_a_factor() -> None:
    assert shift("They cut my budget 10 percent.").factor == pytest.approx(0.9)
    assert shift("The gym increased its fee 20% this year.").factor == pytest.approx(1.2)
