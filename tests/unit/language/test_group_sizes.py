"""The size of the learner's group is no count the learner's own step adds to (issue 39, L6, session 48, N9).

Own phrasing, not any set's: "we are 5 people in the chat" beside "I've memorised 90 verbs".
"""

from __future__ import annotations

import pytest

from agent.language.change_owner import crosses_a_group
from agent.language.number_owners import group_size, learners_step


@pytest.mark.parametrize(
    "old", ["we are 5 people in the verb challenge chat", "we're 8 in the coding club", "We are 10 people."]
)
def test_a_headcount_of_the_learners_group(old: str) -> None:
    assert group_size(old)
    assert crosses_a_group("learned 12 more myself over the weekend", old)
    assert crosses_a_group("I did another 6 tonight", old)


def test_others_joining_still_change_the_size() -> None:
    assert not learners_step("two more joined the study group today")
    assert not crosses_a_group("two more joined the study group today", "we are 6 people in the study group")


@pytest.mark.parametrize(
    "old", ["I've memorised 90 irregular verbs", "My sister is 12", "They are 4 in the band"]
)
def test_no_headcount(old: str) -> None:
    assert not group_size(old)
