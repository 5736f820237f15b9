"""Consultation on the real Neo4j and Redis: cache and invalidation, isolation, enrichment, boost."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import timedelta

import pytest

from agent.errors import InvalidInputError, LearnerMismatchError
from agent.kernel.consult import ConsultDeps, consult
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.validation import AUTH_USER_KEY
from graphs.consult import make_builder
from tools.consult_tools import make_consult_tools


@dataclass
class Rig:
    deps: ConsultDeps
    stores: MemoryStores
    a: str
    b: str


@pytest.fixture
async def rig(resources: Resources) -> AsyncIterator[Rig]:
    """Two fresh learners, the consultation over the shared bundle; both erased afterwards."""
    deps = ConsultDeps.wire(resources)
    a, b = f"test-consult-{uuid.uuid4()}", f"test-consult-{uuid.uuid4()}"
    yield Rig(deps, deps.stores, a, b)
    for learner in (a, b):
        await erase_learner(resources, learner)
        await deps.cache.clear(learner)
        keys = [k async for k in resources.redis.scan_iter(match=f"kag:kernel:{{{learner}}}:*")]
        if keys:
            await resources.redis.delete(*keys)


async def run(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


async def remember(rig: Rig, learner: str, text: str, **kw: object) -> None:
    """A fact write of ``learner`` (it bypasses the stream, so it bumps the generation itself)."""
    await rig.stores.facts.remember(learner, text, **kw)
    await rig.stores.kernel.bump(learner)


def same_payload(x: object, y: object) -> bool:
    left, right = x.model_dump(), y.model_dump()  # type: ignore[attr-defined]
    for d in (left, right):
        d.pop("request_id"), d.pop("cached")
    return left == right


async def test_a_repeat_is_served_from_the_cache_until_the_learner_writes(rig: Rig) -> None:
    await remember(rig, rig.a, "I live in Hanoi and work as a data analyst.")
    body = {"query": "Where do I live?", "max_results": 5}

    first = await consult(rig.deps, rig.a, body)
    assert not first.cached and first.brief_method == "template"
    assert any("Hanoi" in f["text"] for f in first.relevant_facts) and first.confidence > 0.3
    again = await consult(rig.deps, rig.a, body)
    assert again.cached and again.request_id != first.request_id and same_payload(first, again)
    other = await consult(rig.deps, rig.a, {**body, "max_results": 4})
    assert not other.cached  # another request is another key

    await remember(rig, rig.b, "I live in Paris.")  # another learner's write: A's entry stays
    assert (await consult(rig.deps, rig.a, body)).cached

    await remember(rig, rig.a, "Actually, I moved to Da Nang last month.")  # A's own write invalidates
    fresh = await consult(rig.deps, rig.a, body)
    assert not fresh.cached
    assert "Da Nang" in fresh.relevant_facts[0]["text"]
    assert (await consult(rig.deps, rig.a, body)).cached


async def test_one_learner_never_sees_another_learners_memory(rig: Rig, resources: Resources) -> None:
    secret = "My locker code is purple-elephant-marzipan."
    await remember(rig, rig.b, secret, concept="personal.secrets")
    await run(
        resources,
        "CREATE (:Memory:Insight {id: $id, learner_id: $b, text: $t, concept: 'personal.secrets', "
        "evidence_count: 3, confidence: 0.9, activation: 5.0, created_at: '2026-01-01T00:00:00+00:00'})",
        id=f"ins-{uuid.uuid4().hex}", b=rig.b, t="purple-elephant-marzipan is the locker code",
    )  # fmt: skip
    await run(
        resources,
        "CREATE (:Memory:Pattern {id: $id, learner_id: $b, kind: 'recurring_error', "
        "concept: 'personal.secrets', description: 'forgets purple-elephant locker code', count: 4, "
        "activation: 5.0})",
        id=f"pat-{uuid.uuid4().hex}", b=rig.b,
    )  # fmt: skip
    await rig.stores.reminders.set(rig.b, "change the purple-elephant code", keywords=["locker code"])
    await remember(rig, rig.a, "I enjoy hiking on weekends.")

    for body in (
        {"query": "What is my locker code? purple elephant"},
        {"query": "locker code", "topic_filters": ["personal"]},
    ):
        seen = await consult(rig.deps, rig.a, body)
        text = json.dumps(seen.model_dump()).lower()
        assert "marzipan" not in text and "secrets" not in text and "change the" not in text
        assert all(f["text"] == "I enjoy hiking on weekends." for f in seen.relevant_facts)
        assert not seen.insights and not seen.patterns and not seen.proactive_alerts

    theirs = await consult(rig.deps, rig.b, {"query": "What is my locker code? purple elephant"})
    assert any("purple-elephant" in f["text"] for f in theirs.relevant_facts)
    assert theirs.insights and theirs.patterns
    assert {a["kind"] for a in theirs.proactive_alerts} == {"reminder", "recurring_error"}


async def test_insights_patterns_alerts_and_the_read_boost(rig: Rig, resources: Resources) -> None:
    a = rig.a
    await remember(rig, a, "I keep mixing up LEFT JOIN and INNER JOIN in SQL.", concept="sql.joins")
    insight, pattern, other = (f"{p}-{uuid.uuid4().hex}" for p in ("ins", "pat", "ins"))
    await run(
        resources,
        "CREATE (:Memory:Insight {id: $i, learner_id: $a, text: 'Struggles with outer join semantics', "
        "concept: 'sql.joins', evidence_count: 3, confidence: 0.8, activation: 1.0, "
        "created_at: '2026-01-01T00:00:00+00:00'}), "
        "(:Memory:Insight {id: $o, learner_id: $a, text: 'Likes Python decorators', concept: 'python', "
        "evidence_count: 2, confidence: 0.7, activation: 9.0, created_at: '2026-01-01T00:00:00+00:00'}), "
        "(:Memory:Pattern {id: $p, learner_id: $a, kind: 'recurring_error', concept: 'sql.joins', "
        "description: 'drops unmatched rows with INNER JOIN', count: 5, activation: 1.0})",
        i=insight, o=other, p=pattern, a=a,
    )  # fmt: skip
    due = (resources.clock() - timedelta(hours=1)).isoformat()
    reminder = await rig.stores.reminders.set(a, "quiz the learner on joins", due_at=due)
    await rig.stores.kernel.bump(a)

    answer = await consult(rig.deps, a, {"query": "How do joins work?", "topic_filters": ["sql"]})
    assert [i["id"] for i in answer.insights] == [insight]  # python is outside the filter
    assert [p["id"] for p in answer.patterns] == [pattern]
    assert [(x["kind"], x["id"]) for x in answer.proactive_alerts] == [
        ("reminder", reminder.id),
        ("recurring_error", pattern),
    ]
    assert "Insights: Struggles with outer join semantics" in answer.synthesized_brief
    assert "insights" in answer.evidence["sources"] and answer.confidence > 0

    rows = await run(
        resources,
        "MATCH (n:Memory) WHERE n.id IN $ids RETURN n.id AS id, n.activation AS act, n.access_count AS n",
        ids=[insight, pattern, other],
    )
    by_id = {r["id"]: r for r in rows}
    assert by_id[insight]["act"] > 1.0 and by_id[insight]["n"] == 1  # read: boosted
    assert by_id[pattern]["act"] > 1.0 and by_id[pattern]["n"] == 1
    assert by_id[other]["act"] == 9.0 and by_id[other]["n"] is None  # not read: untouched
    [pending] = await rig.stores.reminders.list(a, ["pending"])
    assert pending.id == reminder.id  # peeked, never fired

    cached = await consult(rig.deps, a, {"query": "How do joins work?", "topic_filters": ["sql"]})
    assert cached.cached
    [after] = await run(resources, "MATCH (n:Memory {id: $i}) RETURN n.access_count AS n", i=insight)
    assert after["n"] == 1  # a cache hit reads nothing, boosts nothing


async def test_no_memory_means_no_confidence(rig: Rig) -> None:
    answer = await consult(rig.deps, rig.a, {"query": "What is my favourite programming language?"})
    assert answer.confidence == 0.0 and answer.relevant_facts == []
    assert answer.synthesized_brief == (
        'Consultation on "What is my favourite programming language?": nothing in memory matches yet '
        "(confidence 0.00, none)."
    )


async def test_the_body_never_names_the_learner(rig: Rig, resources: Resources) -> None:
    with pytest.raises(InvalidInputError, match="learner_id"):
        await consult(rig.deps, rig.a, {"query": "anything", "learner_id": rig.b})
    graph = make_builder(resources).compile()
    with pytest.raises(InvalidInputError, match="learner_id"):
        await graph.ainvoke({"learner_id": rig.a, "request": {"query": "q", "learner_id": rig.b}})
    as_a = {"configurable": {AUTH_USER_KEY: rig.a}}
    with pytest.raises(LearnerMismatchError):  # the token is A's: B's id in the state is refused
        await graph.ainvoke({"learner_id": rig.b, "request": {"query": "q"}}, as_a)
    answer = (await graph.ainvoke({"request": {"query": "q"}}, as_a))["response"]  # the token names A
    assert answer["confidence"] == 0.0 and not answer["cached"]


async def test_the_graph_and_the_tool_run_the_same_consultation(rig: Rig, resources: Resources) -> None:
    await remember(rig, rig.a, "My goal is to pass the SQL certification in June.")
    graph = make_builder(resources).compile()
    first = (await graph.ainvoke({"learner_id": rig.a, "request": {"query": "What is my goal?"}}))["response"]
    assert not first["cached"] and any("certification" in f["text"] for f in first["relevant_facts"])
    second = (await graph.ainvoke({"learner_id": rig.a, "request": {"query": "What is my goal?"}}))[
        "response"
    ]
    assert second["cached"] and second["synthesized_brief"] == first["synthesized_brief"]

    [tool] = make_consult_tools(rig.stores, resources)
    assert "learner_id" not in tool.tool_call_schema.model_json_schema()["properties"]
    out = json.loads(await tool.ainvoke({"query": "What is my goal?", "learner_id": rig.a}))
    assert any("certification" in f["text"] for f in out["facts"]) and 0 < out["confidence"] <= 1
    assert set(out) == {"brief", "confidence", "cached", "facts", "insights", "patterns", "alerts"}


async def test_messages_through_the_kernel_stream_invalidate_that_learner_only(rig: Rig) -> None:
    """Enqueueing moves the learner's generation, and so does the worker's commit."""
    body = {"query": "Which database do I use at work?"}
    assert not (await consult(rig.deps, rig.a, body)).cached
    assert (await consult(rig.deps, rig.a, body)).cached

    said = RecallMessage(id=f"msg-{uuid.uuid4().hex}", role="user", content="At work we run PostgreSQL 16.")
    await rig.stores.recall.log_messages(rig.b, "session-b", [said])  # B's write
    assert (await consult(rig.deps, rig.a, body)).cached

    said = RecallMessage(id=f"msg-{uuid.uuid4().hex}", role="user", content="At work we run PostgreSQL 16.")
    await rig.stores.recall.log_messages(rig.a, "session-a", [said])  # A's write, still on the stream
    assert not (await consult(rig.deps, rig.a, body)).cached
    await rig.stores.settle(rig.a)  # the worker's commit moves the generation again
    await rig.stores.settle(rig.b)
    found = await consult(rig.deps, rig.a, body)
    assert not found.cached and any("PostgreSQL" in f["text"] for f in found.relevant_facts)
