"""A trigger that is a person's name is met when the learner tells of that person.

My own phrasings and names, none from a scenario set. A name has one sense: an event told of the
person ("Tobiah texted me last night") is how a person comes up, not the word's other sense
(``reminder_turns._proper``); a rare name said as written needs no similarity
(``trigger_mentions.names_person``); a condition of a pronoun points at the one name of the task
("remind me to thank Kwame when I mention him": ``trigger_topics.antecedent``).
"""

from __future__ import annotations

import pytest

from agent.language.reminders import parse_reminder
from agent.language.trigger_sense import names_trigger


@pytest.mark.parametrize(
    ("name", "turn"),
    [
        ("Tobiah", "Tobiah texted me last night about the football match"),
        ("Oskar", "Oskar failed his driving test again, poor guy"),
        ("Mateus", "Mateus moved into the room next to mine last week"),
        ("Yusuf", "Yusuf won a chess tournament at the weekend!"),
        ("Ludmila", "Ludmila lent me her bike for the week"),
        ("Kwame", "I met Kwame at the bus stop today"),
        ("Solveig", "my cousin Solveig got into medical school"),
        ("Dariusz", "Dariusz helped me carry my desk upstairs on Sunday"),
        ("Amara", "Amara and I studied together at the library yesterday"),
        ("Ingrid", "Ingrid dropped by my flat with cake yesterday"),
    ],
)
def test_a_name_is_met_by_an_event_told_of_the_person(name: str, turn: str) -> None:
    assert names_trigger(turn, name)


def test_a_common_word_name_keeps_its_sense() -> None:
    assert not names_trigger("We're taking the ferry across Java to Bali next month", "Java")


@pytest.mark.parametrize(
    ("request_", "name"),
    [
        ("remind me to ask Ingrid for her lecture recordings whenever I mention her", "Ingrid"),
        ("remind me to thank Kwame for the textbook when I mention him", "Kwame"),
    ],
)
def test_a_pronoun_condition_points_at_the_name_of_the_task(request_: str, name: str) -> None:
    parsed = parse_reminder(request_)
    assert parsed is not None and parsed["keywords"] == [name]


def test_a_pronoun_for_a_thing_still_names_nothing() -> None:
    assert parse_reminder("remind me to ask about it when we get to it") is None


@pytest.mark.parametrize(
    ("name", "turn"),
    [
        ("Henrike", "Henrike visited on Saturday, she brought her new puppy"),
        ("Bartosz", "Bartosz rang me during lunch, he finally got his visa"),
        ("Marisol", "Marisol passed her driving test and she is over the moon"),
    ],
)
def test_the_names_own_pronoun_is_no_other_person(name: str, turn: str) -> None:
    assert names_trigger(turn, name)
