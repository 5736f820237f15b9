"""A statement that ends in a short tag question is stated (``fact_parts.stated_part``).

Phrasings of our own: a new value told, then a tag ("…, right?", "…, yay?") that asks nothing
of it. Before the tag rule the whole sentence read as a question and nothing was stored.
"""

from __future__ import annotations

import pytest

from agent.language.fact_parts import stated_part

TAGGED = [
    ("the exam moved, it's April 28 now, more time for me, right?", "April 28"),
    ("Dutch is on Thursdays at 6 pm from now on, typical huh?", "Thursdays at 6 pm"),
    ("speaking came back 25 this time, not bad, eh?", "25"),
    ("submissions close on July 10 now, phew?", "July 10"),
    ("we get 200 GPU hours a month now, great, right?", "200"),
    ("the defence got pushed to June 16, lovely?", "June 16"),
    ("the room is 1650 reais a month now, seriously?", "1650"),
    ("our practical is in room C3 from next week, fancy, no?", "C3"),
    ("the course is down to 6 modules, less work for us, yay?", "6 modules"),
    ("we only get 12 minutes for the talk now, fun?", "12 minutes"),
]


@pytest.mark.parametrize(("said", "value"), TAGGED)
def test_the_statement_before_a_tag_is_stated(said: str, value: str) -> None:
    head = stated_part(said)
    assert head is not None and value in head and not head.rstrip().endswith("?"), said


@pytest.mark.parametrize(
    "asked",
    [
        "Is 7.5 good enough for the course, really?",  # the head asks by its inverted auxiliary
        "Do I need 26 in speaking, honestly?",
        "what about the June 3 exam, tips?",  # a question word first
        "If the exam moves to May 2, then what?",  # a supposition
    ],
)
def test_a_question_before_a_tag_states_nothing(asked: str) -> None:
    assert stated_part(asked) is None


def test_a_tag_of_two_words_asks_nothing_either() -> None:
    head = stated_part("so Dutch is on Thursdays at 6 pm from now on, typical huh?")
    assert head is not None and head.endswith("from now on")
