"""Consultation resolves contradictions: a superseded fact, its source message and the learner's questions.

A learner says "I live in Da Nang", later "Actually, I moved to Hanoi" (the second fact
supersedes the first through ``FactStore.remember``), then asks "Where do I live now?".
The messages go through the kernel stream and are drained, so the turn contexts exist.
Consulting "Where do I live?" must present Hanoi as current and Da Nang never as current.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.kernel.consult import ConsultDeps, consult
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.resources import Resources

DA_NANG = "I live in Da Nang and study online in the evenings."
HANOI = "Actually, I moved to Hanoi last week, closer to my new job."
QUESTION = "Where do I live now?"


@pytest.fixture
async def learner(resources: Resources) -> AsyncIterator[str]:
    """A fresh learner, erased (graph, cache, kernel keys) afterwards."""
    learner_id = f"test-consult-contra-{uuid.uuid4()}"
    yield learner_id
    deps = ConsultDeps.wire(resources)
    await erase_learner(resources, learner_id)
    await deps.cache.clear(learner_id)
    keys = [k async for k in resources.redis.scan_iter(match=f"kag:kernel:{{{learner_id}}}:*")]
    if keys:
        await resources.redis.delete(*keys)


def message(role: str, content: str, created_at: str, seq: int) -> RecallMessage:
    return RecallMessage(f"msg-{uuid.uuid4().hex}", role, content, created_at=created_at, seq=seq)


async def test_a_superseded_fact_is_never_presented_as_current(resources: Resources, learner: str) -> None:
    deps = ConsultDeps.wire(resources)
    stores = deps.stores
    first = [
        message("user", DA_NANG, "2026-01-10T01:00:00+00:00", 1),
        message("assistant", "Evening study works well with a routine.", "2026-01-10T01:00:05+00:00", 2),
    ]
    second = [
        message("user", HANOI, "2026-02-13T09:00:00+00:00", 1),
        message("assistant", "Congratulations on the new job!", "2026-02-13T09:00:05+00:00", 2),
        message("user", QUESTION, "2026-02-20T01:00:00+00:00", 3),
    ]
    await stores.recall.log_messages(learner, "session-1", first)
    old = await stores.facts.remember(
        learner, DA_NANG, valid_from="2026-01-10T01:00:00+00:00", episode_id=first[0].id
    )
    await stores.recall.log_messages(learner, "session-2", second)
    new = await stores.facts.remember(
        learner, HANOI, valid_from="2026-02-13T09:00:00+00:00", episode_id=second[0].id
    )
    await stores.kernel.bump(learner)
    await stores.settle(learner)
    assert new.superseded == [old.id]  # the FactStore closed Da Nang

    answer = await consult(deps, learner, {"query": "Where do I live?"})
    brief = answer.synthesized_brief
    assert "Hanoi" in brief and "Da Nang" not in brief
    assert QUESTION not in brief
    current = [f for f in answer.relevant_facts if f.get("current") is not False]
    assert any("Hanoi" in f["text"] for f in current)
    assert not any("Da Nang" in f["text"] for f in current)  # only ever as current: false
    assert not any(QUESTION in f["text"] for f in answer.relevant_facts)
    assert answer.relevant_facts[0]["kind"] == "fact" and "Hanoi" in answer.relevant_facts[0]["text"]
    assert answer.relevant_facts[0]["current"] is True
    # Da Nang's message and its turn context are the fact's own copies, which the blend already
    # dropped (one statement, one slot); what is left quoting Da Nang is dropped here.
    assert answer.evidence["dropped"]["superseded_source"] >= 1
    assert answer.evidence["dropped"]["question"] >= 1
    assert answer.confidence > 0.3  # the superseded statement still says what Hanoi answers
