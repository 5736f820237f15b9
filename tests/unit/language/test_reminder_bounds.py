"""Where a reminder's trigger clause starts and ends (my own phrasings, not from any set).

A lead-in closed by a colon before the condition, a condition that runs into "I want to …"
without a comma, and a connective or an aside inside the task when the condition came first.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent.language.reminders import parse_reminder

NOW = datetime(2026, 6, 1, 9, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "keyword"),
    [
        # a lead-in closed by a colon is an utterance of its own, before the condition
        ("just one note: when we reach quicksort, remind me to ask about pivots", "quicksort"),
        ("last thing: once we do the genitive, remind me of the table I made", "genitive"),
        # the condition runs into the task's own subject, no comma between them
        ("don't let me forget: once we do decorators I want to ask about wraps", "decorators"),
        ("remind me: when we get to limits I need to ask about epsilon", "limits"),
        ("make sure I remember: when we start cell division I'd like to ask about spindles", "cell division"),
        # a connective or an aside inside the task: the request's own condition is the last
        ("before we do sorting, remind me to ask about stability after you show it, it bugs me", "sorting"),
        ("if we reach integrals, remind me to ask about area when you draw, I never get it", "integrals"),
    ],
)
def test_the_trigger_is_the_requests_own_condition(text: str, keyword: str) -> None:
    read = parse_reminder(text, now=NOW)
    assert read is not None and read["trigger_kind"] in {"keywords", "concept"}
    assert read["keywords"] == [keyword]


def test_the_next_time_is_one_connective() -> None:
    read = parse_reminder("The next time we study vectors, ping me about the cross product.", now=NOW)
    assert read is not None and read["keywords"] == ["vectors"]
    assert read["description"] == "the cross product"
