"""Reminders asked for with the day inside the task, an adverb after the topic, or the field's name dropped.

Each case failed on the code before (issue 39, heldout9's classes; the sentences are our own):
a day that opens the task ("Don't let me forget, on Thursday I have to …") was read as the one-day
default and fired a session early; "if X comes up at some point" and "if we get to X this week"
kept the adverb in the topic (or read no topic at all); a topic named without the name of its
field ("decorators" for "Python decorators") never fired.
"""

from __future__ import annotations

from datetime import datetime

import pytest

from agent.language.reminder_times import opening_times, present_span, split_time
from agent.language.reminder_turns import turns_to
from agent.language.reminders import parse_reminder
from agent.language.trigger_sense import names_trigger
from agent.memory.reminder_rules import trigger_matches

WEDNESDAY = datetime.fromisoformat("2026-06-10T21:30:00-07:00")  # already Thursday in UTC


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Don't let me forget, on Friday I have to return the lab keys.", 12),
        ("Make sure I remember: tomorrow I need to call the exam office.", 11),
        ("Remind me that on Monday our tutor is away.", 15),
        ("Nudge me \u2014 on Saturday we are meeting to rehearse the talk.", 13),
        ("Jog my memory: on the 20th my visa appointment is at the consulate.", 20),
    ],
)
def test_a_day_that_opens_the_task_is_its_time(text: str, day: int) -> None:
    reminder = parse_reminder(text, now=WEDNESDAY)
    assert reminder is not None and reminder["trigger_kind"] == "time"
    due = datetime.fromisoformat(reminder["due_at"])
    assert (due.day, due.hour, due.utcoffset()) == (day, 0, WEDNESDAY.utcoffset())


def test_the_day_fires_on_the_learners_day_not_before() -> None:
    reminder = parse_reminder("Don't let me forget, on Thursday I must pay the fee.", now=WEDNESDAY)
    assert reminder is not None
    late_wednesday = WEDNESDAY.replace(hour=23, minute=50)  # Thursday in UTC, Wednesday for the learner
    assert not trigger_matches(reminder, "One more question before bed.", None, late_wednesday)
    assert trigger_matches(reminder, "Morning!", None, WEDNESDAY.replace(day=11, hour=7))


@pytest.mark.parametrize(
    ("text", "phrase"),
    [
        ("on Monday the group meets", "on Monday"),
        ("tomorrow I need to go", "tomorrow"),
        ("bring my calculator", None),
    ],
)
def test_the_opening_time_ends_on_a_content_word(text: str, phrase: str | None) -> None:
    assert (opening_times(text, WEDNESDAY) or [None])[-1] == phrase


def test_a_task_about_a_numbered_thing_is_no_date() -> None:
    reminder = parse_reminder("Remind me about the 5th chapter questions.", now=WEDNESDAY)
    assert reminder is not None and reminder["when"] == "in 1 day"


@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        ("If recursion comes up at some point, remind me to ask about stack depth.", ["recursion"]),
        ("If vectors come up again at some stage, remind me to ask about the cross product.", ["vectors"]),
        ("If we get to eigenvalues this week, remind me to ask about the determinant.", ["eigenvalues"]),
        ("When we do osmosis this term, remind me to bring the potato results.", ["osmosis"]),
        ("If we reach limits today, remind me that I struggle with infinity.", ["limits"]),
        ("Once hash maps come up eventually, remind me to ask about collisions.", ["hash maps"]),
    ],
)
def test_an_adverb_or_a_span_after_the_topic_is_not_the_topic(text: str, keywords: list[str]) -> None:
    reminder = parse_reminder(text, now=WEDNESDAY)
    assert reminder is not None and reminder["keywords"] == keywords
    assert reminder["due_at"] is None


def test_a_time_after_comes_up_is_not_before() -> None:
    reminder = parse_reminder(
        "If fractions come up next week, remind me to ask about mixed numbers.", now=WEDNESDAY
    )
    assert reminder is not None and reminder["keywords"] == ["fractions"]
    assert datetime.fromisoformat(reminder["due_at"]) > WEDNESDAY


def test_the_span_the_session_is_in() -> None:
    assert present_span("this week", WEDNESDAY) and present_span("today", WEDNESDAY)
    assert not present_span("next week", WEDNESDAY) and not present_span("at some point", WEDNESDAY)
    assert split_time("Fourier series this month", WEDNESDAY) == ("Fourier series", None)


@pytest.mark.parametrize(
    ("keyword", "fires", "silent"),
    [
        ("Python generators", "Can we do generators now?", "The generators at the fair ran out of fuel."),
        ("German cases", "Can you explain how the cases work?", "Let's revise the Latin cases from school."),
        (
            "SQL joins",
            "Okay, joins: what's the difference between inner and left?",
            "My cousin joins us on Sundays.",
        ),
        ("Bash pipes", "How do pipes work in the shell?", "The pipes under our sink burst yesterday."),
    ],
)
def test_a_field_name_may_be_left_out(keyword: str, fires: str, silent: str) -> None:
    assert names_trigger(fires, keyword)
    assert not names_trigger(silent, keyword)


def test_a_lower_case_modifier_must_be_named() -> None:
    assert not names_trigger("What are covalent bonds?", "ionic bonds")
    assert not names_trigger("Let's practise the major scales first.", "minor scales")


def test_the_doer_of_a_past_progressive_is_a_told_event() -> None:
    assert not turns_to("Sorry I'm late, the plumber was here fixing our sink.", ["plumber"])


@pytest.mark.parametrize(
    ("sentence", "topic", "turns"),
    [
        ("My uncle is a plumber and fixed our sink.", ["plumber"], False),
        ("I'm a translator, so grammar matters to me.", ["translator"], False),
        ("Today's topic is decorators.", ["decorators"], True),
    ],
)
def test_what_a_person_is_is_no_topic(sentence: str, topic: list[str], turns: bool) -> None:
    assert turns_to(sentence, topic) is turns


def test_a_name_in_the_topic_is_no_other_owner() -> None:
    assert turns_to("Okay, Bayes' theorem now please.", ["Bayes", "theorem"])
    assert not turns_to("My colleague's pronunciation is so good.", ["pronunciation"])
