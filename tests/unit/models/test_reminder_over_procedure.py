"""A reminder request wins over a procedure reading in the offline policy.

"Don't let me forget to ask how negative steps work" shares its words ("steps", "how") with a
request for the learner's stored steps; the old policy recalled a procedure and set no reminder.
"""

from __future__ import annotations

import pytest

from agent.models.offline_policy import plan_actions

TOOLS = {"set_reminder", "recall_procedure", "save_procedure", "search_facts", "remember_fact", "note_search"}


@pytest.mark.parametrize(
    ("text", "description", "keywords"),
    [
        (
            "When we get to slicing, don't let me forget to ask how negative steps work.",
            "ask how negative steps work",
            ["slicing"],
        ),
        (
            "Don't let me forget the steps of long division when we get to fractions.",
            "the steps of long division",
            ["fractions"],
        ),
    ],
)
def test_a_reminder_request_about_steps_sets_a_reminder(
    text: str, description: str, keywords: list[str]
) -> None:
    plan = plan_actions(text, TOOLS)
    assert [name for name, _ in plan] == ["set_reminder"]
    assert (plan[0][1]["description"], plan[0][1]["keywords"]) == (description, keywords)


def test_a_procedure_question_still_recalls_the_steps() -> None:
    plan = plan_actions("What are the steps to deploy my app?", TOOLS)
    assert plan == [("recall_procedure", {"query": "deploy my app"})]
