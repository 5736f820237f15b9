"""Offline procedure rules: statements become ordered steps, requests are recognised."""

from __future__ import annotations

import pytest

from agent.language.procedures import (
    is_procedure_request,
    parse_procedure,
    procedure_query,
    procedure_task,
    split_steps,
)

LEFT_JOIN = (
    "Here is how I write a LEFT JOIN now: first pick the table whose rows I must keep, then write "
    "LEFT JOIN with the other table, then put the key match in ON, and only then filter with WHERE."
)


def test_sequence_markers_keep_the_order_and_the_learners_words() -> None:
    assert parse_procedure(LEFT_JOIN) == (
        "write a LEFT JOIN",
        [
            "pick the table whose rows I must keep",
            "write LEFT JOIN with the other table",
            "put the key match in ON",
            "filter with WHERE",
        ],
    )


@pytest.mark.parametrize(
    ("text", "name", "steps"),
    [
        (
            "My steps for debugging a query: 1. read the error 2. run the inner query alone "
            "3. add clauses back one by one",
            "debugging a query",
            ["read the error", "run the inner query alone", "add clauses back one by one"],
        ),
        (
            "This is how I normalise a table: find repeating groups; split them into a new table; "
            "add a foreign key.",
            "normalise a table",
            ["find repeating groups", "split them into a new table", "add a foreign key"],
        ),
        (
            "To solve an equation, I first move the constants to one side, then divide by the "
            "coefficient, and finally check the answer.",
            "solve an equation",
            ["move the constants to one side", "divide by the coefficient", "check the answer"],
        ),
        (
            "When I review a pull request, I read the description, next I run the tests, "
            "after that I read the diff.",
            "review a pull request",
            ["read the description", "run the tests", "read the diff"],
        ),
        (
            "Here's how I choose an index:\n- look at the WHERE columns\n- check selectivity\n"
            "- create the index",
            "choose an index",
            ["look at the WHERE columns", "check selectivity", "create the index"],
        ),
        (
            "The way I read a query plan these days is: 1) find the scan 2) check the row "
            "estimates 3) look for sorts",
            "read a query plan",
            ["find the scan", "check the row estimates", "look for sorts"],
        ),
    ],
)
def test_other_phrasings(text: str, name: str, steps: list[str]) -> None:
    assert parse_procedure(text) == (name, steps)


def test_closing_markers_split_too() -> None:
    assert split_steps("first I sketch it, then I code it, and at the end I test it") == [
        "sketch it",
        "code it",
        "test it",
    ]


def test_a_pronoun_task_searches_the_whole_message() -> None:
    text = "I hit a merge conflict at work. How do I resolve it again, step by step?"
    assert is_procedure_request(text)
    assert procedure_task(text) is None
    assert {"merge", "conflict", "resolve"} <= set(procedure_query(text).split())


def test_a_marker_inside_a_clause_does_not_split() -> None:
    assert split_steps("first pick the first table, then join the next one") == [
        "pick the first table",
        "join the next one",
    ]


@pytest.mark.parametrize(
    "text",
    [
        "I like joins.",
        "First I went home, then I ate.",  # a story, not a procedure: no introduction
        "Here is how I feel: tired.",  # one step only
        "",
        "how do I write a LEFT JOIN again?",
    ],
)
def test_not_a_procedure(text: str) -> None:
    assert parse_procedure(text) is None


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("how do I write a LEFT JOIN again?", "write a LEFT JOIN"),
        ("I forgot how I write a LEFT JOIN. What were my steps again?", "write a LEFT JOIN"),
        ("What are my steps for normalising a table?", "normalising a table"),
        ("Can you remind me how to debug a query?", "debug a query"),
        ("How did I solve equations?", "solve equations"),
        ("I don't remember how I read a query plan", "read a query plan"),
    ],
)
def test_requests_for_the_learners_own_steps(text: str, task: str) -> None:
    assert is_procedure_request(text)
    assert procedure_task(text) == task
    assert procedure_query(text) == task


@pytest.mark.parametrize(
    "text",
    [
        "How do I write a LEFT JOIN?",  # a tutoring question: no recall marker
        "Please remind me to review GROUP BY when we get to HAVING.",
        "I moved to Hanoi.",
        LEFT_JOIN,  # a statement, not a request
        "What is a LEFT JOIN?",
    ],
)
def test_not_a_request(text: str) -> None:
    assert not is_procedure_request(text)


def test_query_without_a_named_task_keeps_content_words() -> None:
    assert is_procedure_request("walk me through my steps again")
    assert "subqueries" in procedure_query("what were my steps again for subqueries?")
