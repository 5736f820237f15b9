"""Reminders set and met in forms the rules did not read (issue 39, D2).

Initials spelled out in the turn, the topic with another head word ("hash maps"), the learner's
own event told with its date, requests to be made to do something ("make me tell you …"), and
"get onto" as a connective's verb. Each firing case failed on the code before; each silent case
guards the reading that makes it fire.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminder_requests import is_reminder_request
from agent.language.reminder_times import phrase_due
from agent.language.reminder_turns import said_for_later, turns_to
from agent.language.reminders import parse_reminder
from agent.language.topic_words import is_cognate, spells_initials
from agent.language.trigger_sense import names_trigger

NOW = datetime(2026, 7, 6, 18, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("words", "keyword", "expected"),
    [
        (["linear", "discriminant", "analysis"], "LDA", True),
        (["recurrent", "neural", "networks"], "RNNs", True),  # a plural "s" is no initial
        (["Did", "Tom", "eat"], "DTE", False),  # a function word
        (["linear", "discriminant"], "LDA", False),  # one word short
        (["linear", "discriminant", "analysis"], "lda", False),  # not written in capitals
    ],
)
def test_spells_initials(words: list[str], keyword: str, expected: bool) -> None:
    assert spells_initials(words, keyword) is expected


@pytest.mark.parametrize(
    ("word", "topic", "expected"),
    [
        ("comps", "comprehensions", True),  # a plural short form, rare
        ("envs", "environments", True),
        ("cons", "constructors", False),  # common: a word of its own
        ("comps", "comprehension", False),  # a plural does not shorten a singular
    ],
)
def test_plural_short_forms(word: str, topic: str, expected: bool) -> None:
    assert is_cognate(word, topic) is expected


@pytest.mark.parametrize(
    ("turn", "keyword", "expected"),
    [
        ("Shall we start on recurrent neural networks?", "RNNs", True),
        ("Can you walk me through the user datagram protocol?", "UDP", True),
        ("Object-relational mappers confuse me, let's do object-relational mapping.", "ORM", True),
        ("Help, Tom ate everything.", "HTE", False),  # the letters, but no noun ends the run
    ],
)
def test_initials_spelled_out_name_the_topic(turn: str, keyword: str, expected: bool) -> None:
    assert names_trigger(turn, keyword) is expected


@pytest.mark.parametrize(
    ("turn", "keyword", "expected"),
    [
        ("Could we cover binary heaps today?", "binary trees", False),  # a neighbour, 0.6x
        ("I'm feeling very passive in class lately.", "passive voice", False),  # the word alone
        ("We had hash browns at the diner.", "hash tables", False),
    ],
)
def test_a_shared_modifier_alone_does_not_name_the_topic(turn: str, keyword: str, expected: bool) -> None:
    assert names_trigger(turn, keyword) is expected


def test_the_learners_own_event_told_with_its_date_brings_it_up() -> None:
    request = parse_reminder("Whenever I bring up my thesis defence, remind me to book the room.", now=NOW)
    assert request is not None and request["keywords"] == ["my thesis defence"]
    keyword = request["keywords"][0]
    assert names_trigger("My thesis defence is in five weeks and I'm scared.", keyword)
    assert not names_trigger("My cousin's thesis defence is in five weeks.", keyword)
    # a lesson placed in a plan is still a passing mention
    assert said_for_later("Fractions are next week.", "Fractions are next week.")
    assert not turns_to("Fractions are in chapter nine.", ["Fractions"])
    assert turns_to("My recital is in two weeks.", ["recital"], own=True)


@pytest.mark.parametrize(
    ("text", "keywords", "description"),
    [
        ("When we reach fractions, make me show you my worksheet.", ["fractions"], "show you my worksheet"),
        ("Once verbs of motion come up, get me to ask about the bus example.", ["verbs of motion"], None),
        ("If loops come up, make sure I mention my while-loop bug.", ["loops"], "mention my while-loop bug"),
        ("Have me read you my poem when we do the past tense.", ["past tense"], "read you my poem"),
        ("If we ever get onto enzymes, remind me to print the diagram.", ["enzymes"], "print the diagram"),
        ("Next time we do essays, bug me about the word limit.", ["essays"], None),
    ],
)
def test_requests_to_be_made_to_do_something(text: str, keywords: list[str], description: str | None) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None and got["keywords"] == keywords
    assert description is None or got["description"] == description
    assert is_reminder_request(text)


@pytest.mark.parametrize(
    "text",
    [
        "Can you make me a summary of this chapter?",
        "Could you get me started on arrays?",
        "Make sure it compiles.",
    ],
)
def test_an_ordinary_ask_is_no_request(text: str) -> None:
    assert parse_reminder(text, now=NOW) is None
    assert not is_reminder_request(text)


@pytest.mark.parametrize(
    ("text", "due"),
    [
        ("My oral exam is in two weeks, remind me a week before it to book a tutor.", "2026-07-13"),
        ("Remind me the day before my dentist appointment on Wednesday to skip coffee.", "2026-07-07"),
        ("Remind me to charge the camera three days before my hike on July 25.", "2026-07-22"),
        ("The lab report is due on the 17th; remind me two days before.", "2026-07-15"),
        ("My gig is in a month - so remind me the week before to restring the bass.", "2026-07-30"),
    ],
)
def test_a_span_before_an_event_the_sentence_dates(text: str, due: str) -> None:
    got = parse_reminder(text, now=NOW)
    assert got is not None and got["trigger_kind"] == "time"
    assert got["due_at"].startswith(due)
    # the store reads the phrase against its own clock and lands on the same day
    assert phrase_due(got["when"], NOW).isoformat().startswith(due)


def test_a_span_before_an_undated_event_is_read_as_any_request() -> None:
    got = parse_reminder("Remind me the day before to water the plants.", now=NOW)
    assert got is not None and got["when"] == "in 1 day"


@pytest.mark.parametrize(
    ("phrase", "day"),
    [
        ("on Wednesday next week", "2026-07-15"),
        ("Friday of next week", "2026-07-17"),
        ("next week on Monday", "2026-07-13"),
    ],
)
def test_a_weekday_of_next_week(phrase: str, day: str) -> None:
    due = phrase_due(phrase, NOW)
    assert due is not None and due.isoformat().startswith(day)
