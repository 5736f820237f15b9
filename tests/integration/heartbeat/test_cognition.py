"""Cognitive phases of the heartbeat on real Neo4j and Redis, with scripted models.

Working memory slots, adaptive effort (plan → search → evaluate), reminders fired by
``monitor`` (message, concept and clock), sensory capture, episode consolidation.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from langchain_core.messages import HumanMessage

from agent.clock import ManualClock
from agent.context import Context
from agent.heartbeat.slots import HEADER
from agent.memory.core import CoreMemoryStore
from agent.memory.sensory import sensory_prefix
from agent.memory.stores import MemoryStores
from agent.models.offline_policy import OfflinePolicyModel
from agent.models.slot_block import read_slots
from agent.resources import Resources
from graphs.heartbeat import make_builder
from tests.scripted_models import call, scripted

START = "2026-03-02T09:00:00+00:00"


@pytest.fixture
def clock() -> ManualClock:
    """The graph's clock, moved by hand."""
    return ManualClock(START)


@pytest.fixture
def bundle(resources: Resources, clock: ManualClock):
    """A bundle over the shared clients with ``model`` and the manual clock."""

    def build(model) -> Resources:
        return Resources(
            resources.settings,
            chat_model=model,
            embeddings=resources.embeddings,
            neo4j_driver=resources.neo4j,
            redis_client=resources.redis,
            clock=clock,
        )

    return build


@pytest.fixture
def graph_of(bundle, redis_saver):
    """A heartbeat over ``bundle(model)``, checkpointed in Redis."""

    def build(model):
        return make_builder(bundle(model)).compile(checkpointer=redis_saver)

    return build


async def _cleanup(resources: Resources, *learners: str) -> None:
    for learner in learners:
        await CoreMemoryStore(resources.redis).clear(learner)
        await resources.neo4j.execute_query(
            "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n", l=learner, database_=resources.database
        )
        await resources.neo4j.execute_query(
            "MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner, database_=resources.database
        )
        keys = [k async for k in resources.redis.scan_iter(match=f"{sensory_prefix(learner)}:*")]
        if keys:
            await resources.redis.delete(*keys)


@pytest.fixture
async def cleanup(resources, learner_id):
    yield
    await _cleanup(resources, learner_id)


async def _ask(graph, learner_id, request, *, thread="t1", context=None, request_context=None):
    config = {"configurable": {"thread_id": f"{learner_id}-{thread}"}}
    events: list[dict] = []
    out = None
    async for mode, chunk in graph.astream(
        {"learner_id": learner_id, "request": request, "context": request_context or {}},
        config,
        context=context or Context(),
        stream_mode=["custom", "values"],
    ):
        if mode == "custom":
            events.append(chunk)
        else:
            out = chunk
    return out, events, (await graph.aget_state(config)).values


def _slots_of(prompt) -> list[dict]:
    return read_slots(prompt)


def _phase(events, name):
    return [e for e in events if e["phase"] == name]


# ----- working memory and adaptive effort -----
async def test_simple_request_has_a_question_slot_and_slots_clear_on_finish(graph_of, learner_id, cleanup):
    model = scripted("Hello Ana.")
    out, events, state = await _ask(graph_of(model), learner_id, "Hello, I'm Ana.")
    slots = _slots_of(model.prompts[0])
    assert [s["type"] for s in slots] == ["question"]
    assert slots[0]["content"] == "Hello, I'm Ana." and slots[0]["relevance"] == 1.0
    head = model.prompts[0][0].content
    assert head.index("CORE MEMORY") < head.index(HEADER)
    effort = out["memory_state"]["effort"]
    assert effort["intent"] == "simple_recall" and effort["method"] == "local"
    assert effort["rounds"] == 0 and effort["evaluations"] == 0 and effort["steps_used"] == 1
    assert state["slots"] == [], "working memory is cleared when the request is answered"
    assert _phase(events, "appraise")[0]["intent"] == "simple_recall"
    assert _phase(events, "effort")[0]["budget"] == 5
    # The queue and core memory are not slots: the request is queued as before.
    assert isinstance(state["fifo_queue"][0], HumanMessage)


async def test_contradiction_plans_searches_and_evaluates_into_slots(graph_of, bundle, learner_id, cleanup):
    model = scripted(call("search_facts", 0, query="live"), "You live in Hanoi.")
    stores = MemoryStores.wire(bundle(model))
    await stores.facts.remember(learner_id, "I live in Paris", valid_from="2026-01-05T00:00:00+00:00")
    await stores.facts.remember(learner_id, "I moved to Hanoi", valid_from="2026-02-20T00:00:00+00:00")
    out, events, state = await _ask(graph_of(model), learner_id, "Where do I live now, Hanoi or Paris?")
    first = _slots_of(model.prompts[0])
    types = [s["type"] for s in first]
    assert types[0] == "question" and "plan" in types and "evaluation" in types
    retrieved = [s for s in first if s["type"] == "retrieved_fact"]
    assert any("Hanoi" in s["content"] and "[current]" in s["content"] for s in retrieved), retrieved
    assert any("Paris" in s["content"] and "superseded" in s["content"] for s in retrieved), retrieved
    assert all(0.0 <= s["relevance"] <= 1.0 for s in first)
    effort = out["memory_state"]["effort"]
    assert effort["intent"] == "contradiction_resolution"
    assert effort["budget"] == 4 and effort["rounds"] >= 1 and effort["evaluations"] == effort["rounds"]
    assert effort["sufficient"] is True and effort["self_corrections"] == 0
    assert effort["steps_used"] == effort["rounds"] + 2 <= effort["budget"]
    assert out["response"] == "You live in Hanoi."
    # The search tool's results became retrieved slots too; the answer used the Hanoi fact.
    later = _slots_of(model.prompts[1])
    assert len([s for s in later if s["type"] == "retrieved_fact"]) >= len(retrieved)
    assert effort["used"] and all(i in effort["retrieved"] for i in effort["used"])
    assert any("Hanoi" in s["content"] for s in later if s["id"] in effort["used"])
    assert _phase(events, "appraise")[0]["rounds"] == effort["rounds"]
    assert state["slots"] == []


async def test_a_complex_request_never_exceeds_its_step_budget(graph_of, bundle, learner_id, cleanup):
    model = scripted(*[call("search_facts", i, query="live") for i in range(8)])
    stores = MemoryStores.wire(bundle(model))
    await stores.facts.remember(learner_id, "I live in Paris")
    out, _, _ = await _ask(graph_of(model), learner_id, "Do I still live in Paris?")
    effort = out["memory_state"]["effort"]
    assert effort["intent"] == "contradiction_resolution" and effort["budget"] == 4
    # Appraisal rounds + think steps use the whole budget, the last think step forced to answer.
    assert effort["steps_used"] == effort["rounds"] + effort["think_steps"] == effort["budget"]
    assert len(model.prompts) == effort["think_steps"] == out["memory_state"]["steps"]
    assert "Do not call tools" in model.prompts[-1][0].content
    assert out["response"].strip()


async def test_an_insufficient_search_re_queries_once_with_a_widened_plan(graph_of, learner_id, cleanup):
    model = scripted("I have nothing on that.")
    out, events, _ = await _ask(
        graph_of(model),
        learner_id,
        "When did my quokka enclosure budget change?",
        context=Context(max_steps=8),
    )
    effort = out["memory_state"]["effort"]
    assert effort["intent"] == "temporal_comparison" and effort["budget"] == 6
    assert effort["rounds"] == 2 and effort["evaluations"] == 2
    assert effort["self_corrections"] == 1 and effort["sufficient"] is False
    assert effort["plan"].endswith("+widened")
    slots = _slots_of(model.prompts[0])
    assert [s["id"] for s in slots if s["type"] == "evaluation"] == ["evaluation-1", "evaluation-2"]
    assert "insufficient" in slots[-1]["content"]
    assert _phase(events, "appraise")[0]["self_corrections"] == 1


async def test_search_tool_results_become_retrieved_slots(graph_of, bundle, resources, learner_id, cleanup):
    model = scripted(call("archival_memory_search", 0, query="window functions"), "Found it.")
    stores = MemoryStores.wire(bundle(model))
    await stores.archival.insert(learner_id, "Window functions compute ranks over partitions.")
    out, _, _ = await _ask(graph_of(model), learner_id, "What did I note on window functions?")
    await stores.settle(learner_id)
    slots = _slots_of(model.prompts[1])
    retrieved = [s for s in slots if s["type"] == "retrieved_fact"]
    assert retrieved and "Window functions compute ranks" in retrieved[0]["content"]
    assert retrieved[0]["relevance"] == pytest.approx(0.9)
    assert out["memory_state"]["effort"]["retrieved"] == [retrieved[0]["id"]]
    # The tool output went through sensory memory and its recall message attended to it.
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (m:Message {learner_id: $l, role: 'tool'})-[:ATTENDED_TO]->(s) RETURN s.kind AS k",
        l=learner_id,
        database_=resources.database,
    )
    assert [r["k"] for r in records] == ["tool_output"]


# ----- reminders -----
async def test_a_reminder_set_in_one_request_fires_once_in_a_later_matching_one(
    graph_of, learner_id, cleanup
):
    model = scripted(
        call("set_reminder", 0, description="review GROUP BY", keywords=["HAVING"]),
        "I will remind you.",
        "Joins combine tables.",
        "HAVING filters groups.",
        "More on HAVING.",
    )
    graph = graph_of(model)
    _, events1, _ = await _ask(graph, learner_id, "Remind me to review GROUP BY when we reach HAVING")
    assert not _phase(events1, "reminder"), "the request that sets a reminder never fires it"
    _, events2, _ = await _ask(graph, learner_id, "Tell me about joins")
    assert not _phase(events2, "reminder"), "an unrelated request fires nothing"
    n = len(model.prompts)
    _, events3, _ = await _ask(graph, learner_id, "Now we reach HAVING clauses")
    fired = _phase(events3, "reminder")
    assert len(fired) == 1 and fired[0]["description"] == "review GROUP BY"
    slot = next(s for s in _slots_of(model.prompts[n]) if s["id"] == f"reminder-{fired[0]['id']}")
    assert slot["type"] == "plan" and slot["relevance"] == 1.0
    assert slot["content"].startswith(f"REMINDER {fired[0]['id']}: review GROUP BY")
    assert "REMINDER" in model.prompts[n][0].content
    out4, events4, _ = await _ask(graph, learner_id, "More about HAVING clauses please")
    assert not _phase(events4, "reminder"), "a reminder fires exactly once"
    assert not any(s["id"].startswith("reminder-") for s in _slots_of(model.prompts[-1]))
    assert out4["memory_state"]["effort"]["reminders"] == []


async def test_the_offline_tutor_sets_a_reminder_and_acts_on_it_once(graph_of, learner_id, cleanup):
    graph = graph_of(OfflinePolicyModel())
    _, events1, _ = await _ask(graph, learner_id, "Remind me to review GROUP BY when we reach HAVING.")
    assert [e["tools"] for e in _phase(events1, "act")] == [["set_reminder"]]
    assert not _phase(events1, "reminder")
    _, unrelated, _ = await _ask(graph, learner_id, "Explain inner joins to me.")
    assert not _phase(unrelated, "reminder")
    out, events2, _ = await _ask(graph, learner_id, "Now we reach HAVING clauses.")
    assert len(_phase(events2, "reminder")) == 1
    assert "Reminder: review GROUP BY" in out["response"]
    assert ["resolve_reminder"] in [e["tools"] for e in _phase(events2, "act")]
    _, events3, _ = await _ask(graph, learner_id, "More about HAVING clauses.")
    assert not _phase(events3, "reminder")


async def test_time_triggers_use_the_clock_on_every_monitor_pass(
    graph_of, bundle, clock, learner_id, cleanup
):
    due = (clock() + timedelta(hours=1)).isoformat()
    model = scripted(
        "Not yet.",
        call("set_reminder", 0, description="stretch break", due_at=clock().isoformat()),
        "Done.",
    )
    stores = MemoryStores.wire(bundle(model))
    later = await stores.reminders.set(learner_id, "quiz on subqueries", due_at=due)
    graph = graph_of(model)
    _, events1, _ = await _ask(graph, learner_id, "Explain subqueries")
    assert not _phase(events1, "reminder")
    clock.advance(hours=2)
    # First pass: the hour has passed. After act: the reminder set (due now) in this very run.
    out, events2, _ = await _ask(graph, learner_id, "Let's go on")
    fired = _phase(events2, "reminder")
    assert [e["description"] for e in fired] == ["quiz on subqueries", "stretch break"]
    assert fired[0]["id"] == later.id
    phases = [e["phase"] for e in events2]
    assert phases.index("reminder") < phases.index("think")  # the first before the first think
    assert phases.index("act") < max(i for i, p in enumerate(phases) if p == "reminder")
    assert f"REMINDER {later.id}" in model.prompts[1][0].content
    assert sorted(out["memory_state"]["effort"]["reminders"]) == sorted(e["id"] for e in fired)


async def test_concept_reminders_fire_from_the_request_context(graph_of, bundle, learner_id, cleanup):
    model = scripted("Noted.", "On to HAVING.")
    stores = MemoryStores.wire(bundle(model))
    await stores.reminders.set(learner_id, "check GROUP BY first", concept="sql.having")
    graph = graph_of(model)
    _, events1, _ = await _ask(
        graph, learner_id, "Next topic", request_context={"current_concept": "sql.joins"}
    )
    assert not _phase(events1, "reminder")
    _, events2, _ = await _ask(
        graph, learner_id, "Next topic", request_context={"current_concept": "sql.having"}
    )
    assert [e["description"] for e in _phase(events2, "reminder")] == ["check GROUP BY first"]
    concept = next(s for s in _slots_of(model.prompts[1]) if s["id"] == "concept")
    assert concept["type"] == "context" and concept["content"] == "current concept: sql.having"


async def test_a_learners_reminder_never_fires_in_another_learners_run(
    graph_of, bundle, resources, learner_id
):
    other = f"{learner_id}-b"
    try:
        model = scripted("B answer.", "A answer.")
        stores = MemoryStores.wire(bundle(model))
        mine = await stores.reminders.set(learner_id, "review GROUP BY", keywords=["HAVING"])
        graph = graph_of(model)
        _, events_b, _ = await _ask(graph, other, "Explain HAVING clauses")
        assert not _phase(events_b, "reminder")
        assert not any(s["id"].startswith("reminder-") for s in _slots_of(model.prompts[0]))
        assert [r.status for r in await stores.reminders.list(learner_id)] == ["pending"]
        _, events_a, _ = await _ask(graph, learner_id, "Explain HAVING clauses")
        assert [e["id"] for e in _phase(events_a, "reminder")] == [mine.id]
    finally:
        await _cleanup(resources, learner_id, other)


# ----- sensory and episodic memory -----
async def test_the_request_is_captured_attended_and_linked(graph_of, resources, learner_id, cleanup):
    model = scripted("Sure.")
    await _ask(
        graph_of(model), learner_id, "Explain LEFT JOIN", request_context={"current_concept": "sql.joins"}
    )
    await MemoryStores.wire(resources).settle(learner_id)  # the kernel writes the messages
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (m:Message {learner_id: $l, role: 'user'})-[:ATTENDED_TO]->(s) "
        "RETURN m.content AS c, s.kind AS k",
        l=learner_id,
        database_=resources.database,
    )
    assert [(r["c"], r["k"]) for r in records] == [("Explain LEFT JOIN", "request")]
    live = await MemoryStores.wire(resources).sensory.peek(learner_id)
    assert [i["kind"] for i in live] == ["context"], "the context payload waits in the buffer, unattended"
    assert "sql.joins" in live[0]["content"]


async def test_the_kernel_consolidates_due_episodes(graph_of, resources, learner_id, cleanup):
    model = scripted(*[f"Answer {i}." for i in range(10)])
    graph = graph_of(model)
    stores = MemoryStores.wire(resources)
    query = (
        "MATCH (e:ConsolidatedEpisode {learner_id: $l})-[:CONSOLIDATES]->(m:Message) "
        "RETURN e.id AS id, count(m) AS n"
    )
    for i in range(9):
        await _ask(graph, learner_id, f"Fact number {i} about indexes")
    await stores.settle(learner_id)
    records, _, _ = await resources.neo4j.execute_query(query, l=learner_id, database_=resources.database)
    assert records == []  # nine statements: not due yet
    out, _, _ = await _ask(graph, learner_id, "Fact number 9 about indexes")
    assert "consolidated_episode" not in out["memory_state"]  # not in the turn: in the worker
    await stores.settle(learner_id)
    records, _, _ = await resources.neo4j.execute_query(query, l=learner_id, database_=resources.database)
    assert [r["n"] for r in records] == [10]
    assert not [p for p in model.prompts if "Summarise" in p[0].content], "offline: extractive summary"


async def test_tools_link_facts_to_the_request_episode(graph_of, resources, learner_id, cleanup):
    model = scripted(call("remember_fact", 0, content="I live in Hanoi"), "Noted.")
    await _ask(graph_of(model), learner_id, "By the way, I live in Hanoi.")
    # The fact was stored before the kernel wrote its message: the link follows the drain.
    await MemoryStores.wire(resources).settle(learner_id)
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (f:Fact {learner_id: $l})-[:DERIVES_FROM]->(m:Message) RETURN f.text AS f, m.content AS m",
        l=learner_id,
        database_=resources.database,
    )
    assert [(r["f"], r["m"]) for r in records] == [("I live in Hanoi", "By the way, I live in Hanoi.")]
