"""What a sentence does (``agent.language.acts``); the cases of the old fact rules' statement test."""

from __future__ import annotations

import pytest

from agent.language.acts import is_question, is_statement


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
        ("Before we start recursion, remind me to revisit the call stack.", False),
        ("Let's do ORDER BY today.", False),
        ("Here is how I write a LEFT JOIN: first pick the table.", False),
        ("The sky is blue.", False),
        ("", False),
    ],
)
def test_is_statement(text: str, expected: bool) -> None:
    assert is_statement(text) is expected


def test_questions_and_non_text() -> None:
    assert is_question("how do I pivot") and is_question("Is it done?")
    assert not is_question("I moved.")
    assert is_statement(None) is False  # type: ignore[arg-type]
