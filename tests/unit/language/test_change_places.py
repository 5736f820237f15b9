"""Whose work a change is and where it was done (issue 39, L6; change_owner, number_roles.work_done)."""

from __future__ import annotations

import pytest

from agent.language.change_owner import names_another_thing
from agent.language.encoder import encode
from agent.language.quantities import amount_change
from agent.memory.fact_changes import changed_fact


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("Closed out the grammar module, +55 words.", "My German vocabulary is about 900 words."),
        ("Finished the second act: another 1,800 words.", "The screenplay draft is at 21,000 words."),
        ("On the night bus, +700 words.", "My essay stands at 3,100 words."),
        ("At my cousin's flat on Sunday I did 3 more katas.", "I've done 40 katas so far."),
    ],
)
def test_a_part_or_a_place_beside_the_counted_unit_is_no_other_thing(new: str, old: str) -> None:
    assert not names_another_thing(new, old, counted=True)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("The pool raised its entry fee by 4 dollars.", "My bus pass costs 60 dollars a month."),
        ("The Czech deck got 30 new words.", "My Polish deck has 400 words."),
        ("My brother's deck got 40 new words.", "My Polish deck has 400 words."),
    ],
)
def test_the_thing_that_holds_or_changes_the_amount_is_still_named(new: str, old: str) -> None:
    assert names_another_thing(new, old, counted=True)


@pytest.mark.parametrize(
    ("text", "delta"),
    [("Act two done, 2,400 words added.", 2400.0), ("Grandpa paid $120 into my camera fund.", 120.0)],
)
def test_an_amount_added_after_it_is_named_or_put_into_a_fund(text: str, delta: float) -> None:
    change = amount_change(text)
    assert change is not None and change.delta == delta


@pytest.mark.parametrize(
    ("text", "delta"),
    [
        ("My flatmate swam 40 lengths, I only managed 12.", 12.0),
        ("Priya wrote 900 words; I barely did 250.", 250.0),
        ("Dan fixed 6 bugs while I fixed 2.", 2.0),
    ],
)
def test_the_learners_count_beside_anothers_is_the_learners_work(text: str, delta: float) -> None:
    change = amount_change(text)
    assert change is not None and change.delta == delta and change.done


@pytest.mark.parametrize(
    "text",
    # "I did 12." is a pro-verb's work done now: it adds to a total of work only (test_group_counts)
    ["Dan fixed 6 bugs while I reviewed them.", "My flatmate swam 40 lengths."],
)
def test_no_count_of_the_learners_beside_anothers_is_no_work_done(text: str) -> None:
    assert amount_change(text) is None


def _row(text: str, new: str) -> dict:
    score = float(encode([text])[0] @ encode([new])[0])
    return {"id": "f1", "text": text, "score": score, "valid_from": "2026-05-01T10:00:00+00:00"}


def _payload(text: str) -> dict:
    return {"text": text, "slotted": False, "predicate": "fact:x", "valid_from": "2026-05-20T10:00:00+00:00"}


@pytest.mark.parametrize(
    ("old", "new", "value"),
    [
        ("I've swum 300 lengths so far this term.", "My flatmate swam 40 lengths, I only managed 12.", "312"),
        ("I've fixed 25 bugs so far this sprint.", "Dan fixed 6 while I fixed 2.", "27"),
        ("My German vocabulary is about 900 words.", "Closed out the grammar module, +55 words.", "955"),
    ],
)
def test_the_learners_total_takes_the_learners_work(old: str, new: str, value: str) -> None:
    got = changed_fact(_payload(new), [_row(old, new)])
    assert got is not None and got[1] == value


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("I've swum 300 lengths so far this term.", "Our squad swam 2,000 lengths together this term."),
        ("I've fixed 25 bugs so far this sprint.", "Dan fixed another 6 bugs on Friday."),
        ("My German vocabulary is about 900 words.", "My brother's vocabulary grew by 300 words."),
    ],
)
def test_a_group_or_anothers_count_leaves_the_learners_total(old: str, new: str) -> None:
    got = changed_fact(_payload(new), [_row(old, new)])
    assert got is None or got[1] is None
