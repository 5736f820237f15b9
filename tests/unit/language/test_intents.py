"""Intents: ordinary traffic stays simple recall; the classifier reads what the rules miss."""

from __future__ import annotations

import subprocess
import sys

import pytest

from agent.language.intents import (
    DEFAULT_INTENT,
    ONE_VALUE,
    OVERRIDE,
    decide,
    intent_of,
    reading,
    rule_intent,
)


@pytest.mark.parametrize(
    "text",
    [
        "What are inner joins?",
        "Can you explain recursion?",
        "Hello, I'm Ana.",
        "What is my goal?",
        "Thanks, that helps.",
        "Explain list comprehensions to me.",
        "Is a tuple mutable?",
        "When is my exam?",  # one value, not an order of events
    ],
)
def test_ordinary_turns_stay_simple_recall(text: str) -> None:
    assert intent_of(text) == DEFAULT_INTENT


@pytest.mark.parametrize(
    "text",
    ["What is the learner's job?", "Which laptop does the learner use?"],
)
def test_a_changing_value_of_the_learner_needs_the_current_version(text: str) -> None:
    assert intent_of(text) == "contradiction_resolution"


def test_the_catch_all_wins_when_the_classifier_is_unsure() -> None:
    unsure = {"procedural": OVERRIDE - 0.01, "simple_recall": 0.2}
    assert decide(None, True, unsure) == DEFAULT_INTENT
    assert decide(None, True, {"procedural": OVERRIDE, "simple_recall": 0.1}) == "procedural"
    assert decide(None, False, {"procedural": 0.99}) == DEFAULT_INTENT  # statements ask nothing
    assert decide("temporal_comparison", True, {"procedural": 0.99}) == "temporal_comparison"


@pytest.mark.parametrize(
    "text",
    [
        "How many hours a week does the learner have for chemistry?",
        "How many members does the learner's capstone team have?",
        "How much can the learner spend on learning apps per month?",
    ],
)
def test_how_many_asks_for_a_stored_quantity_not_a_computation(text: str) -> None:
    assert intent_of(text) != "computation"


@pytest.mark.parametrize(
    "text",
    [
        "What does the learner study?",
        "What computer does the learner code on?",
        "Where does the learner live?",  # sure words: memory still tells whether it changed
        "Which Go feature still confuses the learner?",
        "What are inner joins?",  # memory holding nothing about it leaves the words
        "When does the learner have piano practice?",  # "have" with "does" is no perfect
    ],
)
def test_a_question_asking_one_value_is_left_to_memory(text: str) -> None:
    assert reading(text)[1] is True
    assert reading(text)[0] in ONE_VALUE


@pytest.mark.parametrize(
    "text",
    [
        "I study law.",
        "Actually, I moved to Hanoi.",  # a statement asks nothing
        "How did the learner's quiz scores change?",
        "Can you remind me to review loops tomorrow?",
    ],
)
def test_memory_is_not_asked_when_the_words_decide(text: str) -> None:
    assert reading(text)[1] is False


def test_sklearn_is_imported_on_first_classification_only() -> None:
    code = (
        "import sys, agent.language.intents as i, agent.heartbeat.effort;"
        "assert 'sklearn' not in sys.modules, 'imported with the module'"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)


@pytest.mark.parametrize(
    "text",
    [
        "Where does the learner work and which certification do they need?",  # contradiction words
        "Why is the learner studying Spanish, and what event is coming up?",
        "Where and when is the learner's exam?",
        "Who is my tutor? And what does she want me to read?",
        "What does the learner study, and do they enjoy it?",
    ],
)
def test_a_question_asking_two_things_is_a_synthesis(text: str) -> None:
    assert reading(text) == ("multi_source_synthesis", False)


@pytest.mark.parametrize(
    "text",
    [
        "What does the learner understand about eigenvalues and eigenvectors?",
        "What has the learner worked out about when Spanish needs the subjunctive?",
    ],
)
def test_what_the_learner_holds_about_a_topic_is_a_synthesis(text: str) -> None:
    assert intent_of(text) == "multi_source_synthesis"


@pytest.mark.parametrize(
    "text",
    [
        "What is the difference between lists and tuples?",  # one ask: "and" joins two nouns
        "What is the learner's book about?",  # "about" with no topic after it
        "What did I learn when I was in Paris?",  # "when" opens a subordinate clause
    ],
)
def test_one_ask_is_not_a_synthesis(text: str) -> None:
    assert intent_of(text) != "multi_source_synthesis"


@pytest.mark.parametrize(
    "text",
    [
        "When did the learner start studying integrals?",
        "When did the learner finish the chapter on limits?",
        "How have the learner's JLPT mock results developed?",
        "How has my pronunciation come along since the spring?",
    ],
)
def test_when_a_past_event_happened_or_how_it_went_is_temporal(text: str) -> None:
    assert reading(text) == ("temporal_comparison", False)


@pytest.mark.parametrize(
    "text",
    [
        "When was the learner's maths entrance exam scheduled?",  # a date someone set: it may have moved
        "When was the learner's essay due?",
        "How many kanji has the learner learned?",  # a degree, not a course
    ],
)
def test_a_past_value_is_left_to_memory(text: str) -> None:
    assert reading(text) == ("simple_recall", True)


@pytest.mark.parametrize("text", ["JLPT mock test score", "typing speed wpm", "statistics quiz score"])
def test_a_bare_search_asks_memory(text: str) -> None:
    assert reading(text) == ("simple_recall", True)


@pytest.mark.parametrize("text", ["Thanks!", "Hi there", "I study law.", "Remind me tomorrow"])
def test_chat_is_no_bare_search(text: str) -> None:
    assert reading(text)[1] is False


@pytest.mark.parametrize(
    "text",
    [
        "Hello, I'm Yuki. My thesis draft deadline is 2026-06-30.",
        "The exam got moved to 3/18/2026, ugh.",
        "My visa runs out on 17-03-2027 so I need the certificate before that.",
        "Is my oral exam still on 2026-05-04?",
    ],
)
def test_a_date_in_digits_is_no_arithmetic(text: str) -> None:
    """A statement with an ISO or numeric date is not a computation (its small budget lost facts)."""
    assert rule_intent(text) != "computation"


@pytest.mark.parametrize("text", ["What is 12 - 5?", "What's 144/12?", "What is 3 x 7 again?"])
def test_arithmetic_on_numbers_is_still_computation(text: str) -> None:
    assert rule_intent(text) == "computation"


@pytest.mark.parametrize(
    "text",
    [
        "Which board games does the learner own?",
        "What kinds of puzzles does Ines like?",
        "Which electives have I signed up for?",
        "What newspapers is the learner reading in German?",
    ],
)
def test_which_things_on_a_plural_noun_the_learner_holds_is_a_synthesis(text: str) -> None:
    assert reading(text) == ("multi_source_synthesis", False)


@pytest.mark.parametrize(
    "text",
    [
        "Which board game does the learner own?",  # one thing
        "Which novels would you suggest for B1 readers?",  # advice asked of the tutor
        "Which animals live in the tundra?",  # the things themselves, nobody's
        "How many board games does the learner own?",  # a count
    ],
)
def test_a_plural_noun_asked_of_the_tutor_or_one_thing_is_no_synthesis(text: str) -> None:
    assert intent_of(text) != "multi_source_synthesis"


@pytest.mark.parametrize(
    "text",
    [
        "What is the learner's stretching routine after cycling?",
        "What's my process for proofreading an essay?",
        "What workflow does the learner follow to back up photos?",
    ],
)
def test_the_learners_way_of_doing_something_is_procedural(text: str) -> None:
    assert intent_of(text) == "procedural"


@pytest.mark.parametrize(
    "text",
    ["When is the learner's history presentation?", "Who grades my art history coursework?"],
)
def test_history_naming_a_subject_asks_one_value(text: str) -> None:
    assert reading(text) == ("simple_recall", True)


def test_the_history_of_something_is_its_course() -> None:
    assert intent_of("What is the history of my mock scores?") == "temporal_comparison"
