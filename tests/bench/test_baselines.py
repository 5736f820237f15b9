"""Baseline policies and the window graphs (no services: windows touch no store)."""

from __future__ import annotations

import json
import uuid

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.checkpoint.memory import InMemorySaver

from agent.context import Context
from agent.heartbeat.tokens import count_messages
from agent.models.offline_policy import OfflinePolicyModel
from agent.resources import Resources
from bench.ablations.baseline_graphs import make_rag_builder, make_window_builder
from bench.ablations.baseline_policies import dialogue, rag_exchange, retain, search_window, select_window
from bench.ablations.run_recorder import STREAM_MODES, TurnRecorder

FILLER = "Filler about SQL grouping and ordering rows in a result set, with no personal detail at all. " * 3


def msgs(n: int) -> list:
    return [HumanMessage(f"message {i} " + "x" * 40, id=str(i)) for i in range(n)]


def test_select_window_keeps_a_prefix_or_a_suffix_within_budget():
    history = msgs(10)
    each = count_messages(history[:1])
    first = select_window(history, 3 * each + 1, "first")
    last = select_window(history, 3 * each + 1, "last")
    assert [m.id for m in first] == ["0", "1", "2"]
    assert [m.id for m in last] == ["7", "8", "9"]
    assert select_window(history, each - 1, "last") == []


def test_retain_keeps_only_the_dialogue_of_a_turn():
    tool_call = {"name": "conversation_search", "args": {}, "id": "c", "type": "tool_call"}
    call = AIMessage("", tool_calls=[tool_call])
    turn = [HumanMessage("q", id="h"), call, ToolMessage("{}", tool_call_id="c"), AIMessage("answer", id="a")]
    assert [m.id for m in dialogue(turn)] == ["h", "a"]
    kept = retain(msgs(2), turn, budget=10_000, keep="last")
    assert [m.id for m in kept] == ["0", "1", "h", "a"]


def test_search_window_ranks_by_overlap_and_drops_non_matches():
    window = [HumanMessage("My cat is called Miso."), AIMessage("Nice."), HumanMessage("Joins join tables.")]
    hits = search_window(window, "cat called", k=5)
    assert [h["text"] for h in hits] == ["My cat is called Miso."]
    assert search_window(window, "unrelated words", k=5) == []


def test_the_offline_policy_answers_from_a_rag_exchange():
    exchange = rag_exchange([{"text": "My cat is called Miso.", "score": 0.9}], "cat")
    assert json.loads(exchange[1].content)["results"][0]["text"] == "My cat is called Miso."
    reply = OfflinePolicyModel().invoke([HumanMessage("What did I mention my cat is called?"), *exchange])
    assert "Miso" in reply.text and not reply.tool_calls


async def _converse(graph, turns: list[str], context: Context) -> list:
    learner = f"unit-{uuid.uuid4().hex[:8]}"
    config = {"configurable": {"thread_id": learner}}
    records = []
    for i, text in enumerate(turns):
        recorder = TurnRecorder(
            variant="w", session="s", turn=i, request=text, max_tokens=context.max_tokens,
            max_steps=context.max_steps, pressure_threshold=context.pressure_threshold,
        )  # fmt: skip
        payload = {"learner_id": learner, "request": text}
        async for mode, chunk in graph.astream(payload, config, context=context, stream_mode=STREAM_MODES):
            recorder.feed(mode, chunk)
        records.append(recorder.record())
    return records


@pytest.mark.parametrize("keep", ["first", "last"])
async def test_window_graphs_recall_only_what_their_window_holds(settings, keep):
    resources = Resources(settings, chat_model=OfflinePolicyModel())
    graph = make_window_builder(keep, resources).compile(checkpointer=InMemorySaver())
    context = Context(max_tokens=700)
    turns = [
        "My cat is called Miso.",
        *[FILLER] * 8,
        "My study buddy is called Jonas.",
        "What did I mention my cat is called?",
        "What did I mention my study buddy is called?",
    ]
    records = await _converse(graph, turns, context)
    early, recent = records[-2], records[-1]
    for probe in (early, recent):
        assert probe.steps == 2 and [t.name for t in probe.tool_results] == ["conversation_search"]
    if keep == "first":  # the fixed window still holds the first turn, not the late one
        assert "Miso" in early.response and "Jonas" not in recent.response
    else:  # the sliding window dropped the first turn, holds the late one
        assert "Miso" not in early.response and "Jonas" in recent.response
    assert all(p <= 1.0 for r in records for p in r.prompt_pressures)
    assert max(r.peak_pressure for r in records) > 0.7  # the window did fill up


def test_rag_graph_topology(settings):
    g = make_rag_builder(Resources(settings)).compile().get_graph()
    edges = {(e.source, e.target) for e in g.edges}
    assert ("receive", "retrieve") in edges and ("think", "finish") in edges
    assert "act" not in g.nodes  # no loop, no tools
