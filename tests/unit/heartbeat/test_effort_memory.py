"""``effort.classify`` reads the learner's facts without touching them, and survives only our store errors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from agent.errors import StoreUnavailableError
from agent.heartbeat.effort import classify


@dataclass(frozen=True)
class Fact:
    content: str
    valid_to: str | None = None
    superseded: list[str] = field(default_factory=list)


class History:
    """The fact store's non-touching read; it has no ``search`` (a search boosts activation)."""

    def __init__(self, facts: Sequence[Fact] = (), error: Exception | None = None) -> None:
        self.facts, self.error, self.reads = list(facts), error, 0

    async def history(self, learner_id: str, *, limit: int = 100) -> list[Fact]:
        self.reads += 1
        if self.error is not None:
            raise self.error
        return self.facts


CHANGED = [
    Fact("I live in Lyon.", valid_to="2026-02-01T00:00:00+00:00"),
    Fact("I moved to Grenoble for my studies.", superseded=["old"]),
    Fact("I work as a receptionist at a dental clinic."),
]


async def test_two_values_for_what_is_asked_need_the_current_version() -> None:
    facts = History(CHANGED)
    assert await classify(facts, "ana", "Which city does the learner live in?") == "contradiction_resolution"
    assert facts.reads == 1


async def test_a_plain_question_about_a_value_with_two_versions_needs_the_current_one() -> None:
    # the words lean elsewhere (procedural): the old code never asked memory for it
    memory = History(
        [
            Fact(
                "I do all my data cleaning in Excel with Power Query.", valid_to="2026-04-28T00:00:00+00:00"
            ),
            Fact("A colleague showed me polars, and my data cleaning happens with it.", superseded=["x"]),
        ]
    )
    assert await classify(memory, "ana", "What tool does the learner clean data with?") == (
        "contradiction_resolution"
    )


async def test_an_unchanged_value_beside_a_changed_one_stays_a_plain_recall() -> None:
    assert (
        await classify(History(CHANGED), "ana", "What does the learner do at the clinic?") == "simple_recall"
    )
    assert await classify(History(CHANGED), "ana", "What is the learner's cat called?") == "simple_recall"


async def test_the_words_decide_without_memory_or_when_it_knows_nothing() -> None:
    assert await classify(None, "ana", "Where does the learner live?") == "contradiction_resolution"
    assert await classify(History([]), "ana", "Where does the learner live?") == "contradiction_resolution"
    facts = History(CHANGED)
    assert await classify(facts, "ana", "How do I write a LEFT JOIN?") == "procedural"
    assert facts.reads == 0, "a question the words decide reads no memory"


async def test_a_store_error_leaves_the_words(caplog: pytest.LogCaptureFixture) -> None:
    down = History(error=StoreUnavailableError("Neo4j", "test"))
    assert await classify(down, "ana", "Where does the learner live?") == "contradiction_resolution"
    assert "could not be read" in caplog.text


async def test_a_bug_is_not_swallowed() -> None:
    with pytest.raises(TypeError):
        await classify(History(error=TypeError("bug")), "ana", "Where does the learner live?")
