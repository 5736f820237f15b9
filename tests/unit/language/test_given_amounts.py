"""Money given to the learner for a thing adds to their fund; a fund named with its value is no gift."""

from __future__ import annotations

import re

import pytest

from agent.language.stocks import given_to_learner


def _first_number(text: str) -> int:
    found = re.search(r"\d", text)
    assert found is not None, text
    return found.start()


@pytest.mark.parametrize(
    "text",
    ["my godmother gave me 250 pesos for the course fund", "Grandpa sent me $40 towards the new laptop"],
)
def test_money_given_for_a_thing_is_a_gift(text: str) -> None:
    assert given_to_learner(text, _first_number(text))


@pytest.mark.parametrize(
    "text",
    [
        # failed before: the fund's value, told with the time it covers ("for this year")
        "My company gives me a learning budget of £600 for this year to spend on courses.",
        "my neighbour gave me €20 to water her plants",  # pay for a task
    ],
)
def test_a_funds_value_or_pay_for_a_task_is_no_gift(text: str) -> None:
    assert not given_to_learner(text, _first_number(text))
