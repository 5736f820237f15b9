"""What a learner's message stores as a fact (issue 39, write side).

Statements inside questions, compound statements, and statements without the first person
(``agent.language.facts``).
"""

from __future__ import annotations

import pytest

from agent.language.fact_parts import fact_parts, stated_part
from agent.language.facts import fact_slot, is_fact_statement
from agent.language.own_values import owns_a_value
from agent.models.offline_policy import plan_actions

AVAILABLE = {"remember_fact", "search_facts", "set_reminder", "core_memory_append", "core_memory_replace"}


def stored(text: str) -> list[str]:
    return [args["content"] for name, args in plan_actions(text, AVAILABLE, {}) if name == "remember_fact"]


@pytest.mark.parametrize(
    ("text", "head"),
    [
        (
            "Just got my IELTS results back, 7.0 in speaking, how do I push writing up too?",
            "Just got my IELTS results back, 7.0 in speaking",
        ),
        (
            "Moved to Rotterdam last week so which Dutch course would you recommend?",
            "Moved to Rotterdam last week",
        ),
        ("My new team at Klarna uses Airflow, can you explain DAGs?", "My new team at Klarna uses Airflow"),
        ("Scored 0.82 AUC on Kaggle :( what should I try next?", "Scored 0.82 AUC on Kaggle"),
    ],
)
def test_the_statement_a_question_carries_is_its_fact(text: str, head: str) -> None:
    assert stated_part(text) == head


@pytest.mark.parametrize(
    "text",
    [
        "If I move to Vienna next year, should I learn Austrian German?",
        "I'm a bit lost, what does a decorator return?",
        "Quick question: does pandas copy on slicing?",
        "Assuming the deadline is in June, how should I plan the chapters?",
        "Can we talk about dbt models?",
    ],
)
def test_a_supposition_or_a_clause_without_a_value_is_no_fact(text: str) -> None:
    assert stated_part(text) is None


def test_a_message_stores_the_statement_before_its_question() -> None:
    # one sentence, no full stop between the news and the question (was: nothing stored)
    facts = stored(
        "Results of the retake came this morning: 6.5 in writing, so close :( what should I focus on?"
    )
    assert facts == ["Results of the retake came this morning: 6.5 in writing, so close"]


def test_a_name_and_a_home_in_one_sentence_are_not_the_names_fact() -> None:
    # was one fact in the name slot: a later name would retire the home, a later home never would
    text = "I'm Aino, and I rent a room in Tartu, ten minutes from the library."
    assert fact_parts(text) == [text]  # one fact: "Which city does Aino live in?" finds both
    assert fact_slot(text) != ("learner", "name")
    assert fact_slot("I'm Aino, nice to meet you.") == ("learner", "name")
    facts = stored("I live in Quito and I work as a tour guide.")
    assert [fact_slot(f) for f in facts] == [("learner", "residence"), ("learner", "job")]


@pytest.mark.parametrize(
    "text",
    ["I'm a student at UiO and I love it.", "I live in Oslo and I like it here.", "I'm Noor, I'm new here."],
)
def test_a_clause_without_a_value_stays_in_its_sentence(text: str) -> None:
    assert fact_parts(text) == [text]


@pytest.mark.parametrize(
    "text",
    [
        "Passed the JLPT N2 in December!",
        "First month at Zalando done, still learning the stack.",
        "Only three evenings a week for German now.",
        "They pushed the thesis defence back to 18 September.",
        "Did another 20% of the course over the holidays.",
        "Knocked out nine more katas last night.",
    ],
)
def test_a_value_of_the_learners_without_the_first_person_is_a_fact(text: str) -> None:
    assert is_fact_statement(text)


@pytest.mark.parametrize(
    "text",
    [
        "The second loop runs n times.",
        "Paris is the capital of France.",
        "Great explanation, thanks!",
        "Let's do chapter 4 next time.",
        "More HAVING practice please.",
    ],
)
def test_no_value_of_the_learners_is_no_fact(text: str) -> None:
    assert not is_fact_statement(text)


@pytest.mark.parametrize(
    "text",
    ["Rust 1.75 stabilised async fn in traits.", "Marie Curie won two Nobel prizes.", "Haha, Monday again."],
)
def test_news_and_small_talk_with_a_value_are_not_the_learners(text: str) -> None:
    assert not owns_a_value(text)


def test_a_value_beside_a_clause_in_a_slot_stays_one_fact() -> None:
    # split, the target ("past 1500") became a fact of its own that a later increment was applied to
    text = "My blitz rating on chess.com is 1210, and I'm studying openings to get past 1300."
    assert fact_parts(text) == [text]


def test_the_reason_a_question_gives_is_its_fact_but_a_time_is_not() -> None:
    assert stated_part("Can we do coroutines today, since my team moved everything to Kotlin?") == (
        "my team moved everything to Kotlin"
    )
    assert stated_part("How have my quiz scores developed since January?") is None


def test_a_greeting_and_a_clause_without_a_value_stay_with_their_neighbours() -> None:
    assert fact_parts("Hi, I live in Valencia and I work as a nurse in a clinic.") == [
        "Hi, I live in Valencia",
        "I work as a nurse in a clinic.",
    ]
    text = "I work as a pharmacist and I'm teaching myself music theory."
    assert fact_parts(text) == [text]
    assert stated_part("Hmm, I'm not sure, is it the second option?") is None  # "I" is no name
