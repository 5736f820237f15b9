"""The offline tutor through the real heartbeat graph (real Neo4j and Redis, no LLM).

The model is ``agent.models.offline_policy.OfflinePolicyModel``, as in ``make demo``.
"""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import ToolMessage

from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.memory.stores import MemoryStores
from agent.models.offline_policy import OFFLINE_BANNER, OfflinePolicyModel
from agent.notes.pipeline import ingest_session

CANNED = "can't teach new material"
"""Words of the policy's reply when it can do nothing (``offline_replies.NOTHING_TO_DO``)."""


async def _ask(graph, learner_id, request, thread="t1", context=None, events=None):
    config = {"configurable": {"thread_id": f"{learner_id}-{thread}"}}
    out = None
    async for mode, chunk in graph.astream(
        {"learner_id": learner_id, "request": request, "context": {}},
        config,
        context=context or Context(),
        stream_mode=["custom", "values"],
    ):
        if mode == "custom" and events is not None:
            events.append(chunk)
        elif mode == "values":
            out = chunk
    return out, (await graph.aget_state(config)).values


@pytest.fixture
async def cleanup(resources, learner_id):
    yield
    await CoreMemoryStore(resources.redis).clear(learner_id)
    await resources.neo4j.execute_query(
        "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n", l=learner_id, database_=resources.database
    )
    await resources.neo4j.execute_query(
        "MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id, database_=resources.database
    )
    await resources.redis.delete(f"kag:artifacts:{learner_id}")


async def _introduce(graph, learner_id, context=None):
    for request in [
        "Hi! My name is Ana and I am a beginner in SQL.",
        "I want to master SQL joins by Friday.",
        "I work as a nurse, so my practice database is about patients and wards.",
        "I am planning to revise anti-joins next.",
        "Explain recursion to me.",  # a canned reply: must never reach memory
    ]:
        out, _ = await _ask(graph, learner_id, request, thread="s1", context=context)
    return out


async def test_goal_question_is_answered_from_core_memory(make_graph, learner_id, cleanup):
    graph = make_graph(OfflinePolicyModel())
    await _introduce(graph, learner_id)
    events: list[dict] = []
    out, _ = await _ask(graph, learner_id, "What is my goal?", thread="s2", events=events)
    assert out["response"].startswith(OFFLINE_BANNER)
    assert "master SQL joins by Friday" in out["response"]
    assert "revise anti-joins" in out["response"]
    assert CANNED not in out["response"]
    assert 'From your goals: "I want to master SQL joins by Friday."' in out["response"]
    assert not [e for e in events if e["phase"] == "act"], "answered from core memory, no tool call"


async def test_plans_land_in_current_goals(make_graph, resources, learner_id, cleanup):
    graph = make_graph(OfflinePolicyModel())
    await _introduce(graph, learner_id)
    core = await CoreMemoryStore(resources.redis).read(learner_id)
    assert "I am planning to revise anti-joins next." in core["current_goals"]
    assert "anti-joins" not in core["user_profile"]
    assert "I work as a nurse" in core["user_profile"]


async def test_core_memory_keeps_facts_not_greetings(make_graph, resources, learner_id, cleanup):
    graph = make_graph(OfflinePolicyModel())
    out, _ = await _ask(graph, learner_id, "Hi, my name is Ana and I work as a data analyst.")
    assert out["response"] == f"{OFFLINE_BANNER} Got it: your name is Ana and you work as a data analyst."
    await _ask(graph, learner_id, "My name is Bob and my goal is to learn window functions.", thread="t2")
    core = await CoreMemoryStore(resources.redis).read(learner_id)
    profile = core["user_profile"].splitlines()
    assert "My name is Ana." in profile and "I work as a data analyst." in profile
    assert not any(line.lower().startswith("hi") for line in profile), profile
    assert "My name is Bob." in profile, "the name of a name-and-goal sentence reaches the profile"
    assert core["current_goals"].splitlines() == ["My goal is to learn window functions."]


async def test_what_did_i_say_about_my_job_quotes_the_nurse_statement(make_graph, learner_id, cleanup):
    graph = make_graph(OfflinePolicyModel())
    await _introduce(graph, learner_id)
    out, _ = await _ask(graph, learner_id, "What did I say about my job earlier?", thread="s2")
    assert "I work as a nurse" in out["response"]
    assert "What did I say" not in out["response"].split(OFFLINE_BANNER, 1)[1]
    assert "[calls " not in out["response"]


async def test_a_search_answers_with_the_best_learner_statement(make_graph, learner_id, cleanup):
    graph = make_graph(OfflinePolicyModel())
    await _introduce(graph, learner_id)
    await _ask(
        graph, learner_id, "Today I practised anti-joins on the wards table with IS NULL.", thread="s1"
    )
    out, state = await _ask(graph, learner_id, "What did we discuss about anti-joins and wards?", thread="s2")
    assert "You said on " in out["response"] and '"Today I practised anti-joins' in out["response"]
    assert "anti-joins" in out["response"]
    searches = [
        m for m in state["fifo_queue"] if isinstance(m, ToolMessage) and m.name == "conversation_search"
    ]
    assert searches, "the question was searched"
    for message in searches:  # recall search results never hold the policy's banner or replies
        assert OFFLINE_BANNER not in message.text
        assert CANNED not in message.text


async def test_banner_never_enters_recall_storage_or_summaries(make_graph, resources, learner_id, cleanup):
    graph = make_graph(OfflinePolicyModel())
    ctx = Context(max_tokens=600)  # small, so archiving happens
    await _introduce(graph, learner_id, context=ctx)
    for i in range(4):
        await _ask(
            graph, learner_id, f"Explain window function number {i} to me, please.", thread="s1", context=ctx
        )
    _, state = await _ask(graph, learner_id, "What did we discuss about recursion?", thread="s1", context=ctx)
    await MemoryStores.wire(resources).settle(learner_id)
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (m:Message {learner_id: $l}) RETURN m.content AS content",
        l=learner_id,
        database_=resources.database,
    )
    assert records, "messages were logged to recall storage"
    for record in records:
        assert OFFLINE_BANNER not in record["content"]
        assert CANNED not in record["content"]
    summaries, _, _ = await resources.neo4j.execute_query(
        "MATCH (s:SessionSummary {learner_id: $l}) RETURN s.text AS text",
        l=learner_id,
        database_=resources.database,
    )
    assert summaries, "the small budget archived at least once"
    for summary in summaries:
        assert OFFLINE_BANNER not in summary["text"]
        assert CANNED not in summary["text"]
    for message in state["fifo_queue"]:
        if isinstance(message, ToolMessage) and message.name == "conversation_search":
            hits = json.loads(message.text)["results"]
            assert all(OFFLINE_BANNER not in h["text"] for h in hits)


WINDOW_SESSION = [
    {
        "role": "user",
        "content": "A window function computes a value over the rows related to the current row "
        "without collapsing them into groups.",
    },
    {
        "role": "user",
        "content": "For example, RANK() OVER (PARTITION BY ward ORDER BY admitted) ranks the patients "
        "of each ward.",
    },
]


async def test_explaining_hands_back_the_learners_own_note(make_graph, resources, learner_id, cleanup):
    written = await ingest_session(resources, learner_id, WINDOW_SESSION, "window functions", "s0")
    assert not written["failures"] and written["artifacts"]
    graph = make_graph(OfflinePolicyModel())
    events: list[dict] = []
    out, _ = await _ask(graph, learner_id, "Can you explain what a window function is?", events=events)
    reply = out["response"]
    assert reply.startswith(f"{OFFLINE_BANNER} From your own note on "), reply
    assert "without collapsing them into groups" in reply and "For example: RANK() OVER" in reply
    assert "Example: RANK" not in reply, "the note's fields (definition, example), not its text run together"
    assert CANNED not in reply and "note_" not in reply
    assert [e["tools"] for e in events if e["phase"] == "act"] == [["note_search"]]
    out, _ = await _ask(graph, learner_id, "Can you explain what recursion is?")
    assert out["response"].startswith(
        f"{OFFLINE_BANNER} You have no note on recursion yet. The closest is your note on "
    ), out["response"]
