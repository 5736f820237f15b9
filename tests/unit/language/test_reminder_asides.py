"""A remark of the learner's after the trigger's comma is no keyword of the trigger.

"remind me to ask about X when we set up the Y project, my mate said I'll regret it otherwise": the
words after the comma are a clause of their own (a subject and a verb). Read as a second keyword,
the remark fired the reminder on any turn that said it (heldout18, 2026-11-30). A list of topics
("HAVING, CTEs or window functions") has no clause and keeps every keyword. The phrasings are
ours. No model: the parse only.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminders import parse_reminder

NOW = datetime(2026, 3, 2, 18, 0, tzinfo=UTC)

# (request, the keywords it sets)
REQUESTS = [
    ("remind me to ask about bias when we get to sampling, my supervisor said I'll need it", ["sampling"]),
    ("remind me to review the stack when we start recursion, it always confuses me", ["recursion"]),
    (
        "when we do the accusative, remind me to ask about stress marks, I keep getting them wrong",
        ["accusative"],
    ),
    ("don't let me forget to ask about indexes once we reach joins, which I hate", ["joins"]),
    ("remind me to show you my plot when we cover histograms; my teacher says it's wrong", ["histograms"]),
    (
        "remind me to ask about pip when we set up the Django project, my friend had issues with it",
        ["Django project"],
    ),
    ("if photosynthesis comes up, remind me to ask about the dark reactions", ["photosynthesis"]),
    ("remind me to bring my notes when we do eigenvalues, the lecture was too fast", ["eigenvalues"]),
    ("remind me about the quiz when we get to loops, we have one on Friday", ["loops"]),
    (
        "once we do adjective endings, remind me to ask about the genitive, the book explains it badly",
        ["adjective endings"],
    ),
]


@pytest.mark.parametrize(("text", "keywords"), REQUESTS)
def test_the_remark_is_no_keyword(text: str, keywords: list[str]) -> None:
    read = parse_reminder(text, now=NOW)
    assert read is not None and read["trigger_kind"] in {"keywords", "concept"}
    assert read["keywords"] == keywords


@pytest.mark.parametrize(
    ("text", "keywords"),
    [
        (
            "remind me to ask about indexes when we cover HAVING, CTEs or window functions",
            ["HAVING", "CTEs", "window functions"],
        ),
        (
            "remind me to ask about forces when we do vectors, matrices and determinants",
            ["vectors", "matrices", "determinants"],
        ),
    ],
)
def test_a_list_keeps_every_topic(text: str, keywords: list[str]) -> None:
    read = parse_reminder(text, now=NOW)
    assert read is not None and read["keywords"] == keywords
