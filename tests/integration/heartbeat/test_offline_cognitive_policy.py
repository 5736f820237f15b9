"""The offline policy's cognitive rules through the real heartbeat (real Neo4j and Redis, no LLM).

A fact that changes across sessions, a procedure saved then recalled in order, and a
reminder set → fired → resolved exactly once (``agent.models.offline_cognition``).
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage

from agent.clock import ManualClock
from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryStores
from agent.models.offline_policy import OFFLINE_BANNER, OfflinePolicyModel
from agent.resources import Resources
from graphs.heartbeat import make_builder

S1, S2, S3 = "2026-01-10T18:00:00+00:00", "2026-02-01T18:00:00+00:00", "2026-02-03T18:00:00+00:00"


@pytest.fixture
def clock() -> ManualClock:
    return ManualClock(S1)


@pytest.fixture
def bundle(resources: Resources, clock: ManualClock) -> Resources:
    return Resources(
        resources.settings,
        chat_model=OfflinePolicyModel(),
        embeddings=resources.embeddings,
        neo4j_driver=resources.neo4j,
        redis_client=resources.redis,
        clock=clock,
    )


@pytest.fixture
def graph(bundle, redis_saver):
    return make_builder(bundle).compile(checkpointer=redis_saver)


@pytest.fixture
async def cleanup(resources, learner_id):
    yield
    await erase_learner(resources, learner_id)


async def _ask(graph, learner_id, request, session):
    config = {"configurable": {"thread_id": f"{learner_id}-{session}"}}
    events: list[dict] = []
    out = None
    async for mode, chunk in graph.astream(
        {"learner_id": learner_id, "request": request, "context": {"session_id": session}},
        config,
        context=Context(),
        stream_mode=["custom", "values"],
    ):
        if mode == "custom":
            events.append(chunk)
        else:
            out = chunk
    assert out["response"].startswith(OFFLINE_BANNER)
    return out["response"], _calls((await graph.aget_state(config)).values["fifo_queue"], request)


def _calls(queue, request) -> list[tuple[str, dict]]:
    """The tool calls the policy made for the last request (after its learner message)."""
    start = max(i for i, m in enumerate(queue) if m.type == "human" and m.text == request)
    return [(c["name"], c["args"]) for m in queue[start:] if isinstance(m, AIMessage) for c in m.tool_calls]


async def test_a_moved_learner_is_answered_with_the_current_fact(graph, bundle, clock, learner_id, cleanup):
    reply, calls = await _ask(graph, learner_id, "I live in Da Nang and study online in the evenings.", "s1")
    assert [name for name, _ in calls] == ["remember_fact"]
    clock.set(S2)
    _, calls = await _ask(graph, learner_id, "Actually, I moved to Hanoi last week for my internship.", "s2")
    assert calls == [
        ("remember_fact", {"content": "Actually, I moved to Hanoi last week for my internship."})
    ]
    clock.set(S3)
    reply, calls = await _ask(graph, learner_id, "Where do I live now?", "s3")
    assert [name for name, _ in calls] == ["search_facts"]
    assert "Hanoi" in reply and "Da Nang" not in reply
    facts = MemoryStores.wire(bundle).facts
    now = await facts.search(learner_id, "where does the learner live")
    assert "Hanoi" in now.results[0].text
    before = await facts.search(learner_id, "where does the learner live", as_of="2026-01-20T00:00:00+00:00")
    assert "Da Nang" in before.results[0].text
    # Residence is a fact, not pinned in core memory (only identity and goals are).
    core = await CoreMemoryStore(bundle.redis).read(learner_id)
    assert "Da Nang" not in core.get("user_profile", "")


async def test_a_new_goal_replaces_the_old_goal_line_and_fact(graph, bundle, clock, learner_id, cleanup):
    await _ask(graph, learner_id, "My goal is to master SQL joins by Friday.", "s1")
    clock.set(S2)
    _, calls = await _ask(
        graph,
        learner_id,
        "I reached my joins goal! My new goal is to learn window functions before the exam.",
        "s2",
    )
    assert [name for name, _ in calls] == ["remember_fact", "core_memory_replace"]
    core = await CoreMemoryStore(bundle.redis).read(learner_id)
    assert core["current_goals"].strip() == "My new goal is to learn window functions before the exam."
    clock.set(S3)
    reply, calls = await _ask(graph, learner_id, "What am I working towards right now?", "s3")
    assert ("search_facts", {"query": "What am I working towards right now"}) in calls
    assert "window functions" in reply and "master SQL joins" not in reply


async def test_a_procedure_is_saved_then_recalled_with_its_steps_in_order(graph, bundle, learner_id, cleanup):
    statement = (
        "Here is how I write a LEFT JOIN now: first pick the table whose rows I must keep, then write "
        "LEFT JOIN with the other table, then put the key match in ON, and only then filter with WHERE."
    )
    reply, calls = await _ask(graph, learner_id, statement, "s1")
    assert [name for name, _ in calls] == ["save_procedure"]
    assert calls[0][1]["name"] == "write a LEFT JOIN" and len(calls[0][1]["steps"]) == 4
    reply, calls = await _ask(
        graph, learner_id, "I forgot how I write a LEFT JOIN. What were my steps again?", "s2"
    )
    assert calls == [("recall_procedure", {"query": "write a LEFT JOIN"})]
    steps = [
        "pick the table whose rows I must keep",
        "LEFT JOIN with the other table",
        "key match in ON",
        "WHERE",
    ]
    positions = [reply.index(step) for step in steps]
    assert positions == sorted(positions), reply
    assert "1. pick the table" in reply
    [saved] = await MemoryStores.wire(bundle).procedures.list(learner_id)
    assert saved.usage_count >= 1, "the recall counted as a use (the appraisal's search may count too)"


async def test_a_reminder_fires_once_in_a_later_session_and_is_resolved(graph, bundle, learner_id, cleanup):
    reply, calls = await _ask(
        graph, learner_id, "Please remind me to review GROUP BY when we get to HAVING.", "s1"
    )
    assert calls == [("set_reminder", {"description": "review GROUP BY", "keywords": ["HAVING"]})]
    assert "Reminder:" not in reply
    reply, calls = await _ask(graph, learner_id, "Let's do ORDER BY today.", "s2")
    assert "Reminder:" not in reply and not calls
    reply, calls = await _ask(graph, learner_id, "Now I'm ready for HAVING clauses.", "s3")
    assert "Reminder: review GROUP BY" in reply
    [reminder] = await MemoryStores.wire(bundle).reminders.list(learner_id)
    assert ("resolve_reminder", {"reminder_id": reminder.id}) in calls
    assert [name for name, _ in calls].count("resolve_reminder") == 1
    assert reminder.status == "resolved"
    reply, calls = await _ask(graph, learner_id, "More HAVING practice please.", "s3")
    assert "Reminder:" not in reply and "resolve_reminder" not in [name for name, _ in calls]


async def test_a_name_a_home_and_news_inside_a_question_are_each_stored(
    graph, bundle, clock, learner_id, cleanup
):
    # 'I'm Aino, and I rent …' was one fact in the name slot, and a statement before a question in the
    # same sentence stored nothing (issue 39).
    home = "I'm Aino, and I rent a room in Tartu near the library."
    _, calls = await _ask(graph, learner_id, home, "s1")
    assert [args["content"] for name, args in calls if name == "remember_fact"] == [home]
    clock.set(S2)
    await _ask(
        graph, learner_id, "IELTS retake results came in: 6.5 in writing :( what should I focus on?", "s2"
    )
    facts = await MemoryStores.wire(bundle).facts.history(learner_id)
    by_text = {f.content: f for f in facts}
    assert by_text[home].predicate != "name"  # a later name does not retire the home
    assert "IELTS retake results came in: 6.5 in writing" in by_text
    core = await CoreMemoryStore(bundle.redis).read(learner_id)
    assert "Aino" in core["user_profile"] and "Tartu" not in core["user_profile"]
