"""Tool bookkeeping against what someone said, as the heartbeat writes recall messages."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from agent.heartbeat.turn import recall_message as _recall
from agent.kernel.derive import is_conversation_turn
from agent.memory.message_kinds import is_bookkeeping


def test_the_heartbeats_tool_call_and_tool_result_are_bookkeeping() -> None:
    call = _recall(
        AIMessage(content="", id="a", tool_calls=[{"name": "archival_memory_search", "args": {}, "id": "c"}])
    )
    result = _recall(ToolMessage(content="3 memories", tool_call_id="c", id="t"))
    for message in (call, result):
        assert is_bookkeeping(message.role, message.content), message
        assert not is_conversation_turn(message.role, message.content)


def test_what_someone_said_is_not_bookkeeping() -> None:
    question = _recall(HumanMessage(content="What is a LEFT JOIN?", id="h"))
    answer = _recall(AIMessage(content="It keeps every row of the left table.", id="a"))
    for message in (question, answer):
        assert not is_bookkeeping(message.role, message.content), message
    assert not is_bookkeeping("user", "I wrote [calls it] in my notes")  # only a leading rendering counts
    assert is_bookkeeping("assistant", "  [calls search({})]")
