"""A topic that is an activity ("hypothesis testing") is named by what it acts on, in any form.

My own phrasings, none from a scenario set. A turn that names only the activity's object fires
when it reads like the whole trigger (``trigger_sense.HEAD_THRESHOLD``); the object in another
sense, or a word with no verb under it ("string", "spring"), does not.
"""

from __future__ import annotations

import pytest

from agent.language.trigger_sense import names_trigger


@pytest.mark.parametrize(
    ("keyword", "turn"),
    [
        ("unit testing", "how do I write tests for each small function, one unit at a time?"),
        ("pattern matching", "can we do match statements with patterns in Python?"),
        ("problem solving", "let's practise word problems step by step"),
        ("error handling", "what happens when an exception is raised and not caught? errors confuse me"),
        ("sentence building", "can we practise making longer sentences in Spanish?"),
        ("hypothesis testing", "today: one-sided and two-sided hypotheses, and significance levels"),
    ],
)
def test_the_object_of_an_activity_names_it(keyword: str, turn: str) -> None:
    assert names_trigger(turn, keyword)


@pytest.mark.parametrize(
    ("keyword", "turn"),
    [
        ("unit testing", "what unit is torque measured in?"),
        ("hypothesis testing", "my hypothesis is that my cat hates Mondays"),
        ("pattern matching", "I bought a knitting pattern for a scarf"),
        ("problem solving", "my flatmate's problem is he never cleans"),
        ("error handling", "I made an error in my tax form"),
        ("sentence building", "the judge gave him a long sentence"),
        ("file handling", "I filed my nails while waiting"),
        ("spring cleaning", "can we do Spring Boot today?"),
    ],
)
def test_the_object_in_another_sense_does_not(keyword: str, turn: str) -> None:
    assert not names_trigger(turn, keyword)
