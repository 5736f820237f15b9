"""The heartbeat against real Neo4j and Redis, with scripted chat models."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import SystemMessage, ToolMessage

from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.memory.stores import MemoryStores
from graphs.heartbeat import make_builder
from tests.scripted_models import call, scripted


async def _ask(graph, learner_id, request, thread="t1", context=None, events=None, request_context=None):
    config = {"configurable": {"thread_id": f"{learner_id}-{thread}"}}
    out = None
    async for mode, chunk in graph.astream(
        {"learner_id": learner_id, "request": request, "context": request_context or {}},
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
        "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n",
        l=learner_id,
        database_=resources.database,
    )
    await resources.neo4j.execute_query(
        "MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id, database_=resources.database
    )
    await resources.redis.delete(f"kag:artifacts:{learner_id}")


def test_topology_is_the_designs_heartbeat():
    """The design's steps only: appraisal runs inside receive, the finish inside the answering think."""
    g = make_builder().compile().get_graph()
    nodes = set(g.nodes) - {"__start__", "__end__"}
    assert nodes == {"receive", "monitor", "archive", "compile", "think", "act", "notes"}
    edges = {(e.source, e.target, e.conditional) for e in g.edges}
    assert ("__start__", "receive", False) in edges and ("receive", "monitor", False) in edges
    assert ("monitor", "archive", True) in edges and ("monitor", "compile", True) in edges
    assert ("archive", "compile", False) in edges and ("compile", "think", False) in edges
    assert ("think", "act", True) in edges and ("act", "monitor", False) in edges
    assert ("think", "notes", True) in edges and ("think", "__end__", True) in edges


async def test_tool_chain_append_search_answer(make_graph, resources, learner_id, cleanup):
    model = scripted(
        call("core_memory_append", 0, section="user_profile", content="Name: Ana, Level: Beginner"),
        call("archival_memory_search", 1, query="inner join"),
        "Ana, an INNER JOIN keeps matching rows.",
    )
    events: list[dict] = []
    out, state = await _ask(make_graph(model), learner_id, "I'm Ana. What are inner joins?", events=events)
    assert out["response"] == "Ana, an INNER JOIN keeps matching rows."
    assert out["memory_state"]["steps"] == 3
    assert "user_profile" in out["memory_state"]["core_sections"]
    assert out["artifacts"] == []
    # Core memory was persisted in Redis and mirrored in state.
    assert "Name: Ana" in (await CoreMemoryStore(resources.redis).read(learner_id))["user_profile"]
    assert "Name: Ana" in state["core_memory"]["user_profile"]
    # The third prompt shows the persona with the learner's name from core memory.
    phases = [e["phase"] for e in events]
    assert phases[:6] == ["receive", "appraise", "monitor", "compile", "think", "act"]
    assert phases[-1] == "finish"
    tool_msgs = [m for m in state["fifo_queue"] if isinstance(m, ToolMessage)]
    assert [m.name for m in tool_msgs] == ["core_memory_append", "archival_memory_search"]
    # A fresh learner has nothing archived but, once a kernel worker (any process's) has drained
    # this conversation, the turn contexts derived from its own messages.
    hits = json.loads(tool_msgs[1].content)["results"]
    assert all(h["kind"] == "turn_context" and "Ana" in h["text"] for h in hits), hits


async def test_max_steps_forces_a_final_answer_without_tools(make_graph, resources, learner_id, cleanup):
    loops = [call("archival_memory_search", i, query=f"q{i}") for i in range(4)]
    model = scripted(*loops, "Here is what I have so far.")
    out, _ = await _ask(make_graph(model), learner_id, "Dig deep", context=Context(max_steps=5))
    assert out["response"] == "Here is what I have so far."
    assert out["memory_state"]["steps"] == 5
    assert len(model.prompts) == 5
    assert len(model.bound_tools) == 4  # the fifth call had no tools bound
    assert "write_session_notes" in model.bound_tools[0] and "note_search" in model.bound_tools[0]
    assert "Do not call tools" in model.prompts[-1][0].content


async def test_max_steps_never_ends_on_an_empty_message(make_graph, resources, learner_id, cleanup):
    # A model that keeps asking for tools even when none are bound.
    model = scripted(*[call("archival_memory_search", i, query="x") for i in range(3)])
    out, _ = await _ask(make_graph(model), learner_id, "loop", context=Context(max_steps=3))
    assert out["response"].strip()
    assert out["memory_state"]["steps"] == 3


async def test_unknown_tool_and_tool_exception_continue(make_graph, resources, learner_id, cleanup):
    model = scripted(
        call("teleport", 0, where="mars"),
        call("core_memory_replace", 1, section="user_profile", old_content="absent", new_content="x"),
        "Recovered.",
    )
    out, state = await _ask(make_graph(model), learner_id, "do things")
    assert out["response"] == "Recovered."
    errors = [m for m in state["fifo_queue"] if isinstance(m, ToolMessage) and m.status == "error"]
    assert len(errors) == 2
    assert "no tool named 'teleport'" in errors[0].content
    assert "not found" in errors[1].content
    assert state["counters"]["tool_errors"] == 2 and state["counters"]["unknown_tools"] == 1


async def test_malformed_function_arguments_in_text_protocol(make_graph, resources, learner_id, cleanup):
    model = scripted(
        '[FUNCTION] archival_memory_search(query="unterminated)',
        '[FUNCTION] archival_memory_search(query="joins")',
        "[FINAL_ANSWER] Done.",
    )
    out, state = await _ask(make_graph(model), learner_id, "search", context=Context(tool_protocol="text"))
    assert out["response"] == "Done."
    tools = [m for m in state["fifo_queue"] if isinstance(m, ToolMessage)]
    assert tools[0].status == "error" and "Malformed [FUNCTION]" in tools[0].content
    assert tools[1].status == "success" and "results" in json.loads(tools[1].content)
    assert model.bound_tools == []  # text protocol binds nothing
    assert "[FUNCTION]" in model.prompts[0][0].content


async def test_empty_response_is_retried_once(make_graph, resources, learner_id, cleanup):
    model = scripted("", "Second try works.")
    out, state = await _ask(make_graph(model), learner_id, "hello")
    assert out["response"] == "Second try works."
    assert state["counters"]["empty_retries"] == 1
    assert len(model.prompts[1]) == 2  # the simpler prompt: instruction + last learner message


@pytest.mark.parametrize("request_text", ["", "   ", "x" * (32 * 1024 + 1)])
async def test_bad_requests_fail_before_any_model_call(make_graph, resources, learner_id, request_text):
    model = scripted("never used")
    with pytest.raises(Exception, match="request"):
        await _ask(make_graph(model), learner_id, request_text)
    assert model.prompts == []


async def test_bad_learner_id_is_rejected(make_graph, resources):
    model = scripted("never used")
    with pytest.raises(Exception, match="learner_id"):
        await _ask(make_graph(model), "x' OR 1=1 //", "hello")
    assert model.prompts == []


async def test_pressure_triggers_archive_and_summary_lands_in_neo4j(
    make_graph, resources, learner_id, cleanup
):
    # 1600: the fixed part of the prompt (persona, tool docs, working memory slots) is ~750 tokens.
    ctx = Context(max_tokens=1600)
    model = scripted(*[f"Answer {i}: " + "details " * 30 for i in range(40)])
    graph = make_graph(model)
    archived_at = None
    for turn in range(12):
        events: list[dict] = []
        before = (await graph.aget_state({"configurable": {"thread_id": f"{learner_id}-t1"}})).values
        out, state = await _ask(
            graph, learner_id, f"Question {turn}: " + "context " * 40, context=ctx, events=events
        )
        archive_events = [e for e in events if e["phase"] == "archive"]
        if archive_events:
            archived_at = (before, state, archive_events[0], events)
            break
    assert archived_at, "pressure never crossed the threshold"
    before, state, event, events = archived_at
    assert event["ok"] is True
    # The queue halved (plus the new request, minus the evicted half, plus the summary head).
    queue_before = len(before["fifo_queue"]) + 1
    assert event["evicted"] + event["kept"] == queue_before - (
        1 if isinstance(before["fifo_queue"][0], SystemMessage) else 0
    )
    assert event["kept"] <= queue_before // 2 + 1
    head = state["fifo_queue"][0]
    assert isinstance(head, SystemMessage) and head.name == "recursive_summary"
    # The next compiled prompt is under the threshold.
    compiled = [e for e in events if e["phase"] == "compile"][0]
    assert compiled["pressure"] <= ctx.pressure_threshold
    # The summary node exists with links to the raw messages in recall storage: the archive
    # step does not drain the kernel stream, the worker links what it commits afterwards.
    await MemoryStores.wire(resources).settle(learner_id)
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (l:Learner {id: $l})-[:HAS_SUMMARY]->(s:SessionSummary {id: $sid}) "
        "OPTIONAL MATCH (s)-[:SUMMARIZES]->(m:Message) "
        "RETURN s.text AS text, count(m) AS raw, s.pending_message_ids AS pending",
        l=learner_id,
        sid=event["summary_id"],
        database_=resources.database,
    )
    assert records and records[0]["raw"] == event["evicted"] and records[0]["pending"] is None
    # The model wrote the summary from the evicted excerpt, which starts at the first question.
    summary_prompts = [p for p in model.prompts if "Summarise the conversation excerpt" in p[0].content]
    assert len(summary_prompts) == 1 and "Question 0" in summary_prompts[0][0].content
    assert records[0]["text"] == head.content
    assert out["memory_state"]["archive_successes"] == 1


async def test_two_hundred_turns_never_overflow(make_graph, resources, learner_id, cleanup):
    ctx = Context(max_tokens=2048)
    graph = make_graph(scripted(*["ok " * 20] * 200))
    peak, archives = 0.0, 0
    for turn in range(200):
        events: list[dict] = []
        request = f"turn {turn} " + "words " * 30
        out, values = await _ask(graph, learner_id, request, context=ctx, events=events)
        peak = max(peak, max(e["pressure"] for e in events if e["phase"] == "compile"))
        archives += sum(1 for e in events if e["phase"] == "archive" and e["ok"])
    assert peak <= ctx.pressure_threshold
    assert archives >= 5
    # The display channel keeps the latest display_window messages: the last 50 exchanges.
    shown = values["messages"]
    assert len(shown) == ctx.display_window == 100
    assert shown[0].text.startswith("turn 150 ") and shown[-2].text.startswith("turn 199 ")
    assert [m.type for m in shown[:2]] == ["human", "ai"]
    assert out["memory_state"]["archive_successes"] == out["memory_state"]["archive_attempts"] == archives
    await MemoryStores.wire(resources).settle(learner_id)  # the last turns wait in the kernel stream
    records, _, _ = await resources.neo4j.execute_query(
        "MATCH (m:Message {learner_id: $l}) RETURN count(m) AS n",
        l=learner_id,
        database_=resources.database,
    )
    assert records[0]["n"] == 400  # every user and assistant message is in recall storage


async def test_end_of_session_writes_zettelkasten_artifacts(make_graph, resources, learner_id, cleanup):
    from agent.models.offline_policy import OfflinePolicyModel

    graph = make_graph(OfflinePolicyModel())
    concept = {"current_concept": "sql.joins"}
    await _ask(
        graph,
        learner_id,
        "Remember that an INNER JOIN keeps only rows whose keys match in both tables.",
        request_context=concept,
    )
    events: list[dict] = []
    out, _ = await _ask(
        graph,
        learner_id,
        "I find LEFT JOIN confusing when NULLs appear.",
        events=events,
        request_context={**concept, "end_session": True},
    )
    assert out["artifacts"], "the end of the session produced no notes"
    for artifact in out["artifacts"]:
        assert artifact["type"] == "ZETTELKASTEN_NOTE"
        assert artifact["note_id"] and artifact["content"]
        assert artifact["concept_map"].startswith("flowchart")
        assert isinstance(artifact["links"], list) and isinstance(artifact["tags"], list)
    assert [e["phase"] for e in events][-2:] == ["finish", "notes"]
    stream = await resources.redis.xrange(f"kag:artifacts:{learner_id}")
    assert len(stream) == len(out["artifacts"])
    # Without end_session no notes are written.
    out2, _ = await _ask(graph, learner_id, "Thanks!")
    assert out2["artifacts"] == []


async def test_the_tutor_writes_session_notes_with_a_tool_for_the_bound_learner_only(
    make_graph, resources, learner_id, cleanup
):
    from agent.notes.store import NoteStore

    extraction = {
        "notes": [
            {
                "concept": "inner join",
                "definition": "An inner join keeps only rows that match in both tables.",
                "personal_example": "Orders without a customer drop out.",
                "key_insight": "Matching happens on the join condition.",
                "keywords": ["inner join", "rows"],
                "tags": ["sql"],
                "description": "Inner joins keep matching rows only.",
                "links": [],
            }
        ]
    }
    model = scripted(
        "Noted.",
        call("write_session_notes", 0, current_concept="sql.joins", learner_id="someone-else"),
        json.dumps(extraction),  # the note extractor's model call, inside the tool
        "Your notes are written.",
    )
    graph = make_graph(model)
    await _ask(graph, learner_id, "An inner join keeps only rows that match in both tables.")
    out, state = await _ask(graph, learner_id, "Please write my notes now.")
    tool_msgs = [m for m in state["fifo_queue"] if isinstance(m, ToolMessage)]
    written = json.loads(tool_msgs[-1].content)
    assert tool_msgs[-1].name == "write_session_notes", tool_msgs[-1]
    assert [n["content"] for n in written["notes"]], written
    assert "inner join" in written["notes"][0]["content"].lower()
    store = NoteStore.for_resources(resources)
    assert await store.count_notes(learner_id) == len(written["notes"])
    assert await store.count_notes("someone-else") == 0, "a model-supplied learner id is ignored"


async def test_the_prompt_is_not_checkpointed_and_a_resumed_think_compiles_the_same_one(
    make_graph, learner_id, cleanup
):
    request = "What does a LEFT JOIN keep?"
    straight, resumed = scripted("It keeps every left row."), scripted("It keeps every left row.")
    await _ask(make_graph(straight), learner_id, request, thread="straight")
    graph = make_graph(resumed, interrupt_before=["think"])
    config = {"configurable": {"thread_id": f"{learner_id}-resumed"}}
    await graph.ainvoke({"learner_id": learner_id, "request": request}, config, context=Context())
    paused = await graph.aget_state(config)
    assert paused.next == ("think",), "compile ran; the run stopped before think"
    assert "prompt" not in paused.values, "the compiled prompt is not stored in the checkpoint"
    out = await graph.ainvoke(None, config, context=Context())  # a new run: think has no prompt
    assert out["response"] == "It keeps every left row."
    assert [type(m) for m in resumed.prompts[-1]] == [type(m) for m in straight.prompts[-1]]
    assert [m.text for m in resumed.prompts[-1]] == [m.text for m in straight.prompts[-1]]
    assert resumed.prompts[-1][-1].text == request
