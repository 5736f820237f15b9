"""A reminder's topic met under another name (issue 39, D4): a kind by its compound, a role described.

"When I mention my landlord" is met by the person described ("the man who rents me my room");
"when we get to alkanes" by a kind of it written as one word ("cycloalkanes"); a topic word said as
someone's name ("my classmate Ruby") is another sense. Each firing case failed on the code before.
"""

from __future__ import annotations

import pytest

from agent.language.described_triggers import described_people, names_described, names_role, own_role
from agent.language.reminder_turns import turns_to
from agent.language.topic_words import is_kind_of
from agent.language.trigger_sense import head_words


@pytest.mark.parametrize(
    ("word", "topic", "expected"),
    [
        ("cycloalkanes", "alkanes", True),
        ("comonads", "monads", True),
        ("staircase", "case", False),  # an everyday head ends words of their own
        ("subgraphs", "graphs", False),  # "graphs" is no jargon (Zipf 3.5)
        ("Dockerfile", "Docker", False),  # the topic opens it: another thing
        ("alkanes", "alkanes", False),  # the word itself is the topic's own reading
    ],
)
def test_kind_of_by_compound(word: str, topic: str, expected: bool) -> None:
    assert is_kind_of(word, topic) is expected


@pytest.mark.parametrize(
    ("keyword", "expected"),
    [("my landlord", "landlord"), ("my dentist", "dentist"), ("my recital", None), ("landlord", None)],
)
def test_own_role(keyword: str, expected: str | None) -> None:
    assert own_role(keyword) == expected


@pytest.mark.parametrize(
    ("turn", "keyword", "expected"),
    [
        ("the man who rents me my room texted about the boiler", "my landlord", True),
        ("the lady who fixes my teeth was on holiday", "my dentist", True),
        ("the guy who owns the café downstairs is friendly", "my landlord", False),  # no one of mine
        ("my sister who lives in Oslo called", "my landlord", False),  # mine, but not the role
        ("my landlord never answers", "my landlord", False),  # the role's word: trigger_sense reads it
        ("the man who rents me my room texted", "my recital", False),  # no person in the trigger
    ],
)
def test_names_role(turn: str, keyword: str, expected: bool) -> None:
    assert names_role(turn, keyword) is expected


def test_described_people_needs_the_learner() -> None:
    assert described_people("the woman who runs my choir is ill") == ["the woman who runs my choir"]
    assert described_people("the woman who runs the choir is ill") == []


@pytest.mark.parametrize(
    ("sentence", "topic", "expected"),
    [
        ("my classmate Ruby lent me her notes", ["ruby"], False),  # a lower-case topic as a name
        ("my classmate Ruby lent me her notes", ["Ruby"], True),  # the language's own name
        ("can we do ruby today?", ["ruby"], True),
    ],
)
def test_topic_word_as_a_name(sentence: str, topic: list[str], expected: bool) -> None:
    assert turns_to(sentence, topic) is expected


@pytest.mark.parametrize(
    ("turn", "keyword", "expected"),
    [
        ("Can we write a recursive function today?", "recursion", True),  # a form word_lemmas keeps apart
        ("Let's do some implicit differentiation.", "differentiating implicitly", True),
        ("Spanish numbers today please", "verb tenses in Spanish", False),  # near by a word of the context
        ("My supervisor is away.", "my mother-in-law", False),  # the learner's own: names_role reads it
    ],
)
def test_names_described(turn: str, keyword: str, expected: bool) -> None:
    assert names_described(turn, keyword, head_words(keyword)) is expected
