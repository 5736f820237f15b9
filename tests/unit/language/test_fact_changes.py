"""New values of facts the learner told before: differences, the same-thing reader, the read-time net."""

from __future__ import annotations

import random
import string
from datetime import UTC, datetime, timedelta

import pytest

from agent.language.differences import resolve_change
from agent.language.encoder import encode
from agent.language.facts import is_fact_statement
from agent.language.question_net import answer_groups
from agent.language.same_thing import (
    gives_a_new_value,
    merged,
    other_instance,
    retire_choice,
    same_pairs,
)
from agent.language.shifts import shift
from agent.language.versions import as_learner
from agent.memory.fact_changes import changed_fact
from agent.memory.fact_order import newest_first
from tests.unit.language.open_facts import open_fact

NOW = datetime(2026, 5, 20, 18, 0, tzinfo=UTC)
EARLIER = NOW - timedelta(days=16)


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("My statistics final is on June 12.", "The professor postponed the final by a week.", "June 19"),
        ("My lab report is due on March 27.", "They brought the report forward by three days.", "March 24"),
        ("My oral exam is on May 8.", "The school moved my oral exam two days earlier.", "May 6"),
        ("My budget for courses is 600 euros.", "My employer cut the course budget by 200 euros.", "400"),
        ("My puzzle rating is 1450.", "Puzzle rating went up by 120 after the course.", "1570"),
        ("Our capstone team has 5 members.", "Two teammates dropped out, the team shrank by 2.", "3"),
        # a date moved by a span with no direction word is put off (an earlier one is told so)
        ("My exam is on April 30.", "The exam moved by a week.", "May 7"),
    ],
)
def test_a_change_by_a_difference_resolves_to_the_new_value(old: str, new: str, value: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) == value


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The exam is now on May 15.", "My exam is on April 30."),  # the new date is stated
        ("I studied for two weeks.", "My exam is on April 30."),  # a duration, no difference
        ("The exam might move by a week.", "My exam is on April 30."),  # only maybe
        ("The exam lasts a week.", "My exam is on April 30."),  # no move, no direction: never a guess
        ("They cut it by 2.", "My exams are on May 3 and May 9."),  # two dates: which one?
    ],
)
def test_no_sure_difference_no_value(new: str, old: str) -> None:
    assert resolve_change(new, old, old_at=EARLIER, new_at=NOW) is None


def test_the_direction_of_a_change_comes_from_its_words() -> None:
    assert shift("The university delayed the exam by two weeks.").time == timedelta(days=14)
    assert shift("They pushed the exam back by a week.").time == timedelta(days=7)
    assert shift("The exam was brought forward by three days.").time == timedelta(days=-3)
    assert shift("I studied for a week.") is None


def test_a_second_quiz_or_a_repeated_value_is_no_new_value() -> None:
    first = "I scored 54 out of 100 on the first statistics quiz."
    assert not gives_a_new_value("I scored 71 out of 100 on the second statistics quiz.", first)
    assert not gives_a_new_value("I live in Da Nang with my two cats.", "I live in Da Nang.")
    assert gives_a_new_value("The Anki streak just reached 60 days!", "My Anki streak is 45 days.")


def test_retirement_needs_the_threshold_the_margin_and_a_new_value() -> None:
    facts = ["My Anki streak is 45 days.", "I live in Cebu."]
    assert retire_choice("The Anki streak just reached 60 days!", facts, [0.89, 0.22]) == 0
    assert retire_choice("The Anki streak just reached 60 days!", facts, [0.60, 0.22]) is None  # unsure
    assert retire_choice("The Anki streak just reached 60 days!", facts, [0.89, 0.85]) is None  # no margin
    quiz = ["I scored 54 out of 100 on the first statistics quiz."]
    assert retire_choice("I scored 71 out of 100 on the second statistics quiz.", quiz, [0.92]) is None


def _payload(text: str) -> dict:
    return {"text": text, "slotted": False, "predicate": "fact:abc", "valid_from": NOW.isoformat()}


def _row(text: str, score: float) -> dict:
    return {"id": "f1", "subject": "learner", "predicate": "fact:old", "text": text, "score": score,
            "valid_from": EARLIER.isoformat()}  # fmt: skip


def test_changed_fact_takes_a_difference_or_a_near_certain_new_value_only() -> None:
    final = _row("My statistics final is on June 12.", 0.78)
    got = changed_fact(_payload("The professor postponed the statistics final by a week."), [final])
    assert got is not None and got[0]["id"] == "f1" and got[1] == "June 19"
    far = _row("My statistics final is on June 12.", 0.30)  # far, and naming another thing's final
    assert changed_fact(_payload("The league postponed the football final by a week."), [far]) is None
    quiz = _row("I scored 54 out of 100 on the first statistics quiz.", 0.92)
    assert changed_fact(_payload("I scored 71 out of 100 on the second statistics quiz."), [quiz]) is None
    slotted = {**_payload("The professor postponed the statistics final by a week."), "slotted": True}
    assert changed_fact(slotted, [final]) is None


def test_read_time_net_ranks_the_newer_of_two_open_facts_first() -> None:
    old = open_fact("a", "I got 5.5 on the IELTS writing test.", "2026-02-01T00:00:00+00:00")
    new = open_fact("b", "Retook IELTS writing and it came back 7.0!", "2026-03-15T00:00:00+00:00")
    other = open_fact("c", "I keep my scripts in a GitHub repository.", "2026-03-20T00:00:00+00:00")
    hits = [old, other, new]
    ranked = newest_first(hits, encode([h.text for h in hits]))
    assert [h.id for h in ranked] == ["b", "c", "a"]
    assert ranked[2].metadata["was_until"] == new.metadata["valid_from"]
    assert "was_until" not in ranked[0].metadata and "was_until" not in ranked[1].metadata


def test_read_time_net_leaves_unrelated_facts_alone() -> None:
    hits = [
        open_fact("a", "I keep my scripts in a GitHub repository.", "2026-02-01T00:00:00+00:00"),
        open_fact("b", "My statistics final is on June 12.", "2026-03-15T00:00:00+00:00"),
    ]
    assert newest_first(hits, encode([h.text for h in hits])) == hits


@pytest.mark.parametrize(
    "text",
    [
        "Retook IELTS writing and it came back 7.0!",
        "The professor postponed the statistics final by a week.",
        "Three more people joined the French conversation group, so we're 11 now.",
    ],
)
def test_updates_told_by_an_event_are_fact_statements(text: str) -> None:
    assert is_fact_statement(text)


@pytest.mark.parametrize("seed", range(12))
def test_items_of_a_numbered_series_never_retire_or_group_each_other(seed: int) -> None:
    rng = random.Random(seed)
    w1, w2 = ("".join(rng.choices(string.ascii_lowercase + string.digits, k=10)) for _ in range(2))
    old, new = f"Note one: {w1}.", f"Note three: {w1} with {w2}."
    assert retire_choice(new, [old], [0.95]) is None  # near-certain by cosine, yet another item
    assert not same_pairs([old, new], encode([old, new]))[0, 1]


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Step 2: install the compiler.", "Step 4: install the compiler and the debugger."),
        ("Week 1 - arrays and loops.", "Week 3 - arrays and recursion."),
        (
            "Chapter 3 summary: limits and continuity.",
            "Chapter 5 summary: limits at infinity and continuity.",
        ),
        ("Item #2: buy a USB stick.", "Item #5: buy a USB stick and a mouse."),
    ],
)
def test_another_label_of_a_series_is_another_item(old: str, new: str) -> None:
    assert other_instance(new, old) and other_instance(new, old, both=True)
    assert retire_choice(new, [old], [0.95]) is None
    assert not other_instance("I'm on chapter 5 of the book now.", "I'm on chapter 3 of the book.")


def test_read_time_net_groups_what_answers_the_question_with_another_value() -> None:
    # The two statements alone share no part the about-reader is sure of; the question names it.
    old = open_fact(
        "a",
        "My PhD supervisor is Prof. Okafor, she's brilliant with Bayesian models.",
        "2026-02-09T00:00:00+00:00",
    )
    new = open_fact(
        "b",
        "Since Prof. Okafor left for Edinburgh, Dr. Lindqvist has been supervising me.",
        "2026-05-18T00:00:00+00:00",
    )
    hits = [old, new]
    vectors = encode([h.text for h in hits])
    assert newest_first(hits, vectors) == hits  # the question-free net leaves them as they were
    [asked] = encode([as_learner("Who is the learner's supervisor?")])
    ranked = newest_first(hits, vectors, asked)
    assert [h.id for h in ranked] == ["b", "a"]
    assert ranked[1].metadata["was_until"] == new.metadata["valid_from"]


def test_the_question_net_leaves_far_answers_and_same_values_alone() -> None:
    near = open_fact("a", "I write my essays in Google Docs.", "2026-01-01T00:00:00+00:00")
    same = open_fact("b", "Google Docs keeps my essays safe.", "2026-02-01T00:00:00+00:00")
    far = open_fact("c", "My sister's wedding is on May 27.", "2026-03-01T00:00:00+00:00")
    hits = [near, same, far]
    vectors = encode([h.text for h in hits])
    [asked] = encode([as_learner("Which app does the learner write essays in?")])
    assert answer_groups(vectors @ asked, [h.text for h in hits]) == []
    assert newest_first(hits, vectors, asked)[2] == far  # a newer, unrelated mention does not jump ahead


def test_groups_sharing_a_member_merge() -> None:
    assert merged([[0, 2], [2, 3], [1, 4]]) == [[0, 2, 3], [1, 4]]
