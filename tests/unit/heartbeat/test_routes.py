"""The heartbeat's routes decide from state alone, so a client's state edit routes like a run."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langgraph.checkpoint.memory import InMemorySaver

from graphs.heartbeat import make_builder, route_after_monitor, route_after_think


def _call() -> AIMessage:
    call = {"name": "archival_memory_search", "args": {}, "id": "t"}
    return AIMessage(content="", id="c", tool_calls=[call])


def test_monitor_routes_by_its_interrupt():
    assert route_after_monitor({"archive_due": True}) == "archive"
    assert route_after_monitor({"archive_due": False, "pressure": 0.99}) == "compile"
    assert route_after_monitor({}) == "compile"


def test_think_routes_to_tools_notes_or_the_end():
    answer = AIMessage(content="done", id="a")
    assert route_after_think({"fifo_queue": [_call()]}) == "act"
    assert route_after_think({"fifo_queue": [answer], "context": {"end_session": True}}) == "notes"
    assert route_after_think({"fifo_queue": [answer], "context": {}}) == "__end__"


@pytest.mark.parametrize(
    ("as_node", "values", "expected"),
    [
        ("receive", {}, ("monitor",)),
        ("monitor", {"archive_due": True}, ("archive",)),
        ("monitor", {"archive_due": False}, ("compile",)),
        ("compile", {}, ("think",)),
        ("think", {"fifo_queue": [_call()]}, ("act",)),
        ("think", {}, ()),
        ("act", {}, ("monitor",)),
    ],
)
async def test_a_state_edit_as_any_node_routes_without_a_run(as_node, values, expected):
    graph = make_builder().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": f"edit-{as_node}"}}
    base = {"learner_id": "learner-1", "fifo_queue": [HumanMessage(content="hi", id="h")]}
    await graph.aupdate_state(config, {**base, **values}, as_node=as_node)
    assert (await graph.aget_state(config)).next == expected
