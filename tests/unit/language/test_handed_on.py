"""Which value is current when the change is told around the question's words (A9, session 49).

An older statement whose closest clause is not the one holding the kind asked; an old thing told as
another person's now, the new one given to the learner; a date moved by an outside body after a
lead-in heading; an amount changed by a difference with the new amount told after it. Our own
phrasings, none taken from a scenario set.
"""

from __future__ import annotations

import numpy as np
import pytest

from agent.language.answer_kinds import PLACE, calls_old
from agent.language.encoder import encode
from agent.language.question_net import another_in_unit, answering_clause, unit_values
from agent.language.whose_value import LEARNER, clause_owners, others, whose
from agent.memory.fact_order import newest_first
from tests.unit.language.open_facts import open_fact


def _unit(text: str) -> np.ndarray:
    row = encode([text])[0]
    return row / np.linalg.norm(row)


def _first(question: str, texts: list[str], when: list[str]) -> str:
    hits = [open_fact(f"f{i}", t, w) for i, (t, w) in enumerate(zip(texts, when, strict=True))]
    return newest_first(hits, encode(texts), _unit(question), question)[0].text


@pytest.mark.parametrize(
    "text",
    [
        "I live in Tartu with my cousin and I'm learning Japanese for my job",
        "I'm learning Greek at night school and I rent a room in Cork",
    ],
)
def test_asked_a_place_the_clause_holding_one_answers(text: str) -> None:
    clause, _ = answering_clause(_unit("Where does the learner live?"), text, kind=PLACE)
    assert "learning" not in clause


def test_a_new_home_told_alone_passes_an_older_introduction() -> None:
    texts = [
        "I live in Tartu with my cousin and I'm learning Japanese for my job",
        "Our flat in Pärnu has a garden, and it's quiet at night.",
    ]
    when = ["2026-01-05T10:00:00+00:00", "2026-02-20T10:00:00+00:00"]
    assert "Pärnu" in _first("Where does the learner live?", texts, when)


@pytest.mark.parametrize(
    ("text", "held"),
    [
        ("they took €90 off it, so I've €210 for the trip", True),
        ("the allowance went up by $60 to $460", True),
        ("the board cut £50 from it", False),
        ("they took €90 off it", False),
    ],
)
def test_a_value_told_beside_a_difference_is_another_value(text: str, held: bool) -> None:
    units = unit_values("My budget is €300, $400 or £200 depending on the trip")
    assert another_in_unit(text, units) is held


HEADINGS = [
    "Letter from the exam office: my oral is on 19 June now, the examiner is ill.",
    "News from the choir this week: the concert is on 3 May now because of a flood.",
    "Email from the language school this morning: the oral exam is on 9 June now, the examiner caught covid.",
    "Message from the embassy yesterday: the visa interview is on 4 June now, some system outage.",
    "Letter from the council this week: my hearing is on 17 March now, something about a holiday.",
    "Call from the clinic this afternoon: the check-up is on 2 July now, the doctor is away.",
    "Notice from the university this morning: the ceremony is on 30 June now, an election clash.",
    "Text from my driving school today: the exam is on 8 May now, the car broke down.",
    "Post from the club admin last night: the final is on 21 April now, rain forecast.",
    "Email from the registrar this morning: the resit is on 12 August now, something about room bookings.",
    "Update from the conservatory this morning: the audition is on 5 February now, a jury member is sick.",
    "Mail from the exam centre this week: the TOEFL test is on 19 October now, a power cut at the site.",
    "News from the department this morning: my viva is on 3 December now, one examiner is travelling.",
    "Email from Cambridge Assessment this morning: the C1 speaking test is on 14 November now, venue issues.",
]
"""A date moved by an outside body, told after a heading and a colon (the parser may take the
heading's noun for the subject of the verb after the colon)."""


@pytest.mark.parametrize("text", HEADINGS)
def test_a_heading_before_a_colon_is_no_subject(text: str) -> None:
    assert whose(text) == LEARNER
    assert all(owner == LEARNER for _, owner in clause_owners(text))


@pytest.mark.parametrize(
    ("text", "mine"),
    [
        ("My aunt flew in from Cairo and brought me a Surface Pro 9", True),
        ("my neighbour came by and handed me a Kindle Paperwhite", True),
        ("My uncle came back from Cairo and sent me a photo of the river", False),
        ("my friend went to Oslo and bought a Pixel 8", False),
    ],
)
def test_a_named_thing_given_to_the_learner_is_theirs(text: str, mine: bool) -> None:
    assert others(text) is not mine


@pytest.mark.parametrize(
    ("text", "value", "old"),
    [
        ("The Lenovo belongs to my cousin now", "lenovo", True),
        ("the Asus is my nephew's now", "asus", True),
        ("I gave the Dell to my sister for school", "dell", True),
        ("My Dell goes to class with me every day", "dell", False),
        ("I sent the Dell photo to my sister", "dell", False),
        ("The Lenovo is mine", "lenovo", False),
    ],
)
def test_a_thing_told_as_another_persons_now_is_called_old(text: str, value: str, old: bool) -> None:
    assert calls_old(text, value) is old


def test_a_new_device_given_in_the_message_that_hands_the_old_one_on_goes_first() -> None:
    texts = [
        "The Lenovo belongs to my cousin now, for uni",
        "I program on a Lenovo IdeaPad with 4GB of RAM and it's slow",
        "My godfather came over and brought me a Framework 13",
    ]
    when = ["2026-04-10T10:00:00+00:00", "2026-03-01T10:00:00+00:00", "2026-04-10T10:00:00+00:00"]
    assert "Framework" in _first("What laptop does the learner program on?", texts, when)


def test_the_new_device_may_come_a_minute_before_the_old_one_is_handed_on() -> None:
    texts = [
        "The Acer is my niece's now, she does her homework on it",
        "my godmother sent me a ThinkPad X13",
        "I practise Go on an Acer Swift with a broken hinge",
    ]
    when = ["2026-05-02T10:01:00+00:00", "2026-05-02T10:00:00+00:00", "2026-04-01T10:00:00+00:00"]
    assert "ThinkPad" in _first("What computer does the learner practise on?", texts, when)
