"""A reminder's topic named in other words: a synonym, the term in the language learnt, a short form.

Each firing case failed on the code before (the turn holds none of the topic's words); each
silent case guards the readings that make it fire (another sense, a neighbour, a compound, a
plan told for later).
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminder_turns import said_for_later
from agent.language.reminders import parse_reminder
from agent.language.topic_words import is_cognate, is_initialism, trigram_dice, word_lemmas
from agent.language.trigger_sense import names_trigger

NOW = datetime(2026, 7, 6, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("word", "topic", "expected"),
    [
        ("Genitiv", "genitive", True),  # German
        ("subjuntivo", "subjunctive", True),  # Spanish
        ("imperfecto", "imperfect", True),
        ("mol", "molarity", True),  # a unit that opens the topic word
        ("tension", "tense", False),  # an English word of its own
        ("integrals", "integration", False),
        ("Dockerfile", "Docker", False),  # a compound names another thing
        ("art", "articles", False),  # too common to be a short form
        ("genitive", "genitive", False),  # the word itself is the lemma reading's
    ],
)
def test_cognates(word: str, topic: str, expected: bool) -> None:
    assert is_cognate(word, topic) is expected


def test_trigram_dice_is_symmetric_and_bounded() -> None:
    assert trigram_dice("futuro", "future") == trigram_dice("future", "futuro")
    assert trigram_dice("abc", "abc") == 1.0
    assert trigram_dice("abc", "xyz") == 0.0


@pytest.mark.parametrize(
    ("word", "topic", "expected"),
    [
        ("OOP", "object-oriented programming", True),
        ("ML", "machine learning", True),
        ("NLP", "natural language processing", True),
        ("ml", "machine learning", False),  # millilitres, in lower case
        ("ML", "learning", False),  # one word has no initials to stand for
    ],
)
def test_initialisms(word: str, topic: str, expected: bool) -> None:
    assert is_initialism(word, topic) is expected


@pytest.mark.parametrize(
    ("message", "keyword"),
    [
        ("Right, let's work on my thesis now, the methods chapter.", "dissertation"),
        ("Können wir heute den Genitiv machen?", "genitive case"),
        ("vale, I think I'm ready for the subjuntivo now", "subjunctive"),
        ("can we do regex today? I want to pull dates out of text", "regular expressions"),
        ("I think I'm ready for ML now. Where do we begin?", "machine learning"),
        ("can we start OOP in Java now?", "object-oriented programming"),
        ("What's the mol/L of 2 g NaOH in 500 mL?", "molarity"),
    ],
)
def test_other_words_fire(message: str, keyword: str) -> None:
    assert names_trigger(message, keyword)


@pytest.mark.parametrize(
    ("message", "keyword"),
    [
        ("I'm so tense about my chemistry exam this week.", "imperfect tense"),
        ("The resistance from my parents about the gap year is tiring.", "electrical resistance"),
        ("I bought new storage containers for my kitchen.", "containers"),
        ("Today I want to write my first Dockerfile.", "Docker volumes"),
        ("Can we practise the hiragana for ka ki ku ke ko?", "katakana"),
        ("My uncle lost money trading derivatives.", "antiderivatives"),
        ("My friend's thesis defence was brilliant.", "dissertation"),  # another's thing
        ("I edit everything in VS Code.", "vector spaces"),  # initials that modify a name
        ("Is my SQL query right? SELECT id FROM orders;", "joins in SQL"),  # near by the context word
    ],
)
def test_other_words_stay_silent(message: str, keyword: str) -> None:
    assert not names_trigger(message, keyword)


def test_a_plan_told_for_later_does_not_fire() -> None:
    message = "fyi, my pottery classes at the community centre start next week, so I'll be late"
    assert said_for_later(message, "my pottery classes at the community centre start next week")
    assert not names_trigger(message, "classes")
    assert not said_for_later("Can we do classes tomorrow?", "Can we do classes tomorrow")
    assert names_trigger("Let's get to classes: how do I define one with a constructor?", "classes")


@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        # "my" stays: the learner's own thing, brought up also by telling its date (trigger_sense)
        ("when I bring up my portfolio again, remind me to ask about the layout", ["my portfolio"]),
        ("once we get back to vectors, remind me to ask about the cross product", ["vectors"]),
        ("when we get to the perfect tense, don't let me skip the irregular verbs", ["perfect tense"]),
        ("Before we start ratios, don't let me miss the homework check", ["ratios"]),
    ],
)
def test_requests_keep_their_topic(text: str, keywords: list[str]) -> None:
    found = parse_reminder(text, now=NOW)
    assert found is not None
    assert found["keywords"] == keywords


def test_an_ing_word_meets_every_verb_it_may_come_from() -> None:
    # "writing" lists "writ" and "write"; read as "writ" alone, "How do I write …" never named it
    assert "write" in word_lemmas("writing")
    assert word_lemmas("coding") & word_lemmas("code")


def test_a_term_differing_by_its_accents_is_the_topic_word() -> None:
    # the learnt language's spelling: an accented letter is the plain one
    assert is_cognate("théorème", "theorem")
    assert is_cognate("función", "function")
    assert not is_cognate("fonction", "fiction")  # letters shared by chance are still no cognate
