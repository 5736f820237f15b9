"""Offline fact rules: narrow slots, replaced values, what counts as a fact statement."""

from __future__ import annotations

import pytest

from agent.language.facts import fact_slot, is_fact_statement, replaced_values


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("I live in Da Nang and study online in the evenings.", ("learner", "residence")),
        ("Actually, I moved to Hanoi last week for my internship.", ("learner", "residence")),
        ("I relocated to Berlin in May.", ("learner", "residence")),
        ("My goal is to master SQL joins by Friday.", ("learner", "goal")),
        ("I reached my joins goal! My new goal is to learn window functions.", ("learner", "goal")),
        ("I write all my Python in Jupyter notebooks.", ("python", "tool")),
        ("I switched from Jupyter to VS Code this week because of the debugger.", ("learner", "tool")),
        ("I changed from PyCharm to VS Code for Python.", ("python", "tool")),
        ("I use RStudio for R.", ("r", "tool")),
        ("I use DBeaver for SQL queries.", ("sql", "tool")),
        ("I work as a nurse at the city hospital.", ("learner", "job")),
        ("I work part-time at a bookshop on weekends, so I study in the evenings.", ("learner", "job")),
        ("Actually, I quit the bookshop and now I work at a coffee shop near campus.", ("learner", "job")),
        ("I currently work full-time as a data analyst.", ("learner", "job")),
        ("I'm a second-year nursing student.", ("learner", "study")),
        ("I'm a complete beginner.", ("learner", "level")),
        ("My name is Linh.", ("learner", "name")),
        ("Hi, I'm Linh.", ("learner", "name")),
    ],
)
def test_known_slots(text: str, slot: tuple[str, str]) -> None:
    assert fact_slot(text) == slot


@pytest.mark.parametrize(
    "text",
    [
        "I scored 54 out of 100 on the first statistics quiz.",
        "For my thesis I analyse survey data with R and the tidyverse.",
        "I keep my scripts in a GitHub repository called survey-thesis.",
        "I got stuck on the names_to argument.",
        "I work hard at SQL every evening.",  # working at something is no job
        "",
        "   ",
    ],
)
def test_statements_outside_the_known_slots_get_none(text: str) -> None:
    assert fact_slot(text) is None


def test_unrelated_statements_never_share_a_slot() -> None:
    assert fact_slot("I live in Hue") != fact_slot("My goal is to pass the exam")
    assert fact_slot("I write my Python in Vim") != fact_slot("I write my SQL in DBeaver")


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("I switched from Jupyter to VS Code this week because of the debugger.", ["Jupyter"]),
        ("I've changed from the old laptop to a desktop.", ["old laptop"]),
        ("I reached my joins goal! My new goal is window functions.", ["joins"]),
        ("I live in Hanoi.", []),
        ("", []),
    ],
)
def test_replaced_values(text: str, values: list[str]) -> None:
    assert replaced_values(text) == values


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Actually, I moved to Hanoi last week for my internship.", True),
        ("I write all my Python in Jupyter notebooks.", True),
        ("Second statistics quiz: 71 out of 100.", True),
        ("Third quiz done, I got 86 out of 100!", True),
        ("Where do I live now? I want to find a study group near me.", False),
        ("What am I working towards right now?", False),
        ("Can we start with SELECT statements?", False),
        ("Please remind me to review GROUP BY when we get to HAVING.", False),
        ("Let's do ORDER BY today.", False),
        ("Here is how I write a LEFT JOIN: first pick the table.", False),
        ("The sky is blue.", False),
        ("", False),
    ],
)
def test_is_fact_statement(text: str, expected: bool) -> None:
    assert is_fact_statement(text) is expected


def test_non_text_is_rejected_quietly() -> None:
    assert fact_slot(None) is None  # type: ignore[arg-type]
    assert replaced_values(42) == []  # type: ignore[arg-type]
    assert is_fact_statement(None) is False  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "text",
    [
        "Home is a village outside Kraków.",
        "Vienna is home now, a small place in the second district.",
        "Work is a bakery in the old town, early shifts.",
    ],
)
def test_a_part_of_the_learners_life_told_without_the_first_person_is_a_fact(text: str) -> None:
    assert is_fact_statement(text)


@pytest.mark.parametrize(
    "text",
    [
        "A prime number has exactly two divisors, 1 and itself.",
        "An hour has 60 minutes.",
        "Every even number greater than 2 is the sum of two primes.",
        "Any triangle has angles that add up to 180 degrees.",
    ],
)
def test_a_general_truth_with_numbers_is_no_fact_about_the_learner(text: str) -> None:
    assert not is_fact_statement(text)


@pytest.mark.parametrize(
    "text",
    [
        "A local sponsor added 150 euros to the robotics parts budget!",  # an event, not a definition
        "A friend of mine has 3 cats and I feed them on Sundays.",
    ],
)
def test_an_indefinite_subject_alone_makes_no_definition(text: str) -> None:
    assert is_fact_statement(text)
