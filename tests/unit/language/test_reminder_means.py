"""A trigger of a means ("integration by parts") is named by its means, not by what it is a means of.

Read with "by" as a context ("borrowing in Rust"), the topic word of "integration by parts" was
"integration": its neighbour "integration by substitution" used the reminder up, and "can we
integrate by parts now?" never met it (heldout18, 2026-11-30: a turn naming "parts" alone). The
phrasings are ours. MiniLM still vetoes the means in another sense ("spare parts for my bike").
"""

from __future__ import annotations

import pytest

from agent.language.trigger_sense import head_words, names_trigger

FIRES = [
    ("Integration by parts, finally!", "integration by parts"),
    ("the book says to use parts for this integral?", "integration by parts"),
    ("can we integrate by parts now?", "integration by parts"),
    ("let's do induction proofs", "proof by induction"),
    ("how do I prove this by induction?", "proof by induction"),
    ("is Python pass by reference?", "pass by reference"),
    ("let's solve the system by substitution", "solving by substitution"),
]
SILENT = [
    ("can we do integration by substitution today?", "integration by parts"),  # a neighbour
    ("let's try proof by contradiction now", "proof by induction"),
    ("ok, proofs today", "proof by induction"),
    ("is Java pass by value?", "pass by reference"),
    ("how do I solve this by elimination?", "solving by substitution"),
    ("I need spare parts for my bike", "integration by parts"),  # the means in another sense
    ("which parts of the exam are hardest?", "integration by parts"),
    ("my reference letter is late", "pass by reference"),
    ("the coach made a substitution at half time", "solving by substitution"),
    ("the electromagnetic induction lab was fun", "proof by induction"),
]


def test_the_means_is_the_topic_word() -> None:
    assert head_words("integration by parts") == ["parts"]
    assert head_words("proof by induction in discrete maths") == ["induction"]
    assert head_words("borrowing in Rust") == ["borrowing"]


@pytest.mark.parametrize(("message", "keyword"), FIRES)
def test_the_means_names_it(message: str, keyword: str) -> None:
    assert names_trigger(message, keyword)


@pytest.mark.parametrize(("message", "keyword"), SILENT)
def test_a_neighbour_or_another_sense_does_not(message: str, keyword: str) -> None:
    assert not names_trigger(message, keyword)
