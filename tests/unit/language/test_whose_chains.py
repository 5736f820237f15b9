"""Another person's value told through a possessive chain or a named peer's own change; weekly slots.

A5's own phrasings (session 47), none taken from a scenario set.
"""

from __future__ import annotations

import pytest

from agent.language.answer_kinds import another_slot, weekly_slots
from agent.language.same_thing import values
from agent.language.whose_value import LEARNER, whose

ANOTHERS = [
    "my colleague Imke's manager is Herr Vogt, who micromanages everything",
    "my cousin Arjun's mentor is Dr Sato",
    "my gym buddy Zeynep's trainer is Carlos, he's intense",
    "my flatmate Odile just got hired as a cashier at my old supermarket",
    "my schoolfriend Mateus was promoted to shift lead at my former warehouse",
    "my neighbour Kirsi got taken on as an intern at my old studio, cute",
    "my brother practises on Wednesdays, he never misses one",
    "my sister revises on Sundays",
]
LEARNERS = [
    "my mentor is Dr Sato, she is very kind",
    "my manager is Herr Vogt",
    "My thesis advisor, Dr Brandt, was replaced by Prof. Nilsson",
    "My tutor Ines was replaced by Mr Kowalski last week",
    "my new trainer is Carlos, my old one moved away",
]


@pytest.mark.parametrize("text", ANOTHERS)
def test_a_person_the_learner_names_owns_the_value(text: str) -> None:
    assert whose(text) != LEARNER, text


@pytest.mark.parametrize("text", LEARNERS)
def test_the_learners_own_person_stays_the_learners(text: str) -> None:
    assert whose(text) == LEARNER, text


@pytest.mark.parametrize(
    ("text", "days"),
    [
        ("I normally do my lessons on Monday nights", {"monday"}),
        ("Fridays are the only day that works for me now", {"friday"}),
        ("we could meet every Thursday at six", {"thursday"}),
        ("Saturday mornings before 9 are free for me", {"saturday"}),
        ("my exam is on Friday", set()),
        ("see you on Tuesday", set()),
    ],
)
def test_a_weekly_slot_is_a_day_that_recurs(text: str, days: set[str]) -> None:
    assert weekly_slots(text) == days


def test_another_weekly_slot_restates_the_schedule() -> None:
    old = weekly_slots("I usually practise on Sunday evenings")
    assert another_slot("Wednesday afternoons are my only free slot from now on", old)
    assert not another_slot("Sunday evenings are still best", old)
    assert not another_slot("my exam is on Wednesday", old)


def test_a_function_word_in_capitals_is_no_value() -> None:
    assert values("I can study on monday BUT not friday now") == set()
    assert values("I work in IT at NASA") == {"it", "nasa"}


def test_asked_who_a_version_names_a_person() -> None:
    from agent.language.encoder import encode
    from agent.language.question_net import answer_groups

    texts = [
        "my mentor is Dr. Haddad, she is lovely",
        "Dr. Haddad moved to Oman, so Prof. Lindgren is mentoring me from May",
        "first call went fine! he wants me to rewrite my abstract",
    ]
    question = "Who is the learner's mentor?"
    rows, asked = encode(texts), encode([question])[0]
    groups = answer_groups(rows @ asked, texts, vectors=rows, question=asked, kind="person")
    assert all(2 not in group for group in groups), groups
