"""The heartbeat's chat protocol pieces: schemas, the learner's message, the answer relay."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, SystemMessage, ToolMessage
from pydantic import TypeAdapter

from agent.errors import InvalidInputError
from agent.heartbeat.chat_input import learner_message, pending_message, served_request
from agent.heartbeat.chat_stream import AnswerRelay, internal_messages
from graphs.heartbeat import graph


def test_every_schema_of_the_heartbeat_builds_and_lists_both_inputs() -> None:
    """Studio's input form and MCP's tool list need these (typing.TypedDict broke them on 3.11)."""
    inputs = graph.get_input_jsonschema()["properties"]
    assert {"request", "messages", "context"} <= set(inputs)
    assert {"request", "messages"}.isdisjoint(graph.get_input_jsonschema().get("required", []))
    output = graph.get_output_jsonschema()
    assert {"response", "artifacts", "memory_state", "messages"} <= set(output["properties"])
    assert "max_steps" in graph.get_context_jsonschema()["properties"]
    for name in graph.stream_channels_list:  # the server's state schema, channel by channel
        TypeAdapter(graph.channels[name].UpdateType).json_schema()


def _state(*shown, queue=(), request=None) -> dict:
    return {"messages": list(shown), "fifo_queue": list(queue), "request": request}


def test_the_last_unserved_human_message_is_the_request() -> None:
    blocks = HumanMessage(
        content=[{"type": "text", "text": "What is"}, {"type": "text", "text": " a join?"}], id="h1"
    )
    message = learner_message(_state(blocks))
    assert (message.text, message.id, message.pending) == ("What is a join?", "h1", True)
    assert learner_message(_state(HumanMessage(content="hello", id="h2"))).text == "hello"


def test_a_served_or_answered_message_is_not_served_again() -> None:
    served = HumanMessage(content="hi", id="h1")
    assert pending_message(_state(served, queue=[served])) is None, "a failed run took it already"
    assert pending_message(_state(served, AIMessage(content="hello", id="a1"))) is None
    with pytest.raises(InvalidInputError, match=r"'request'.*'messages'"):
        learner_message(_state(served, queue=[served]))
    with pytest.raises(InvalidInputError, match=r"'request'.*'messages'"):
        learner_message(_state())


def test_request_wins_and_takes_the_pending_messages_id() -> None:
    message = learner_message(_state(HumanMessage(content="from messages", id="h1"), request="from request"))
    assert (message.text, message.id) == ("from request", "h1")
    alone = learner_message(_state(request="only a request"))
    assert alone.text == "only a request" and not alone.pending and alone.id


def test_a_message_without_text_or_over_the_limit_is_refused() -> None:
    image = HumanMessage(content=[{"type": "image", "url": "https://example.org/x.png"}], id="h1")
    with pytest.raises(InvalidInputError, match="no text"):
        learner_message(_state(image))
    with pytest.raises(InvalidInputError, match="limit"):
        learner_message(_state(HumanMessage(content="x" * 40_000, id="h2")))


def _relay(text_protocol: bool = False) -> tuple[AnswerRelay, list[AIMessageChunk]]:
    pushed: list[AIMessageChunk] = []
    return AnswerRelay({}, text_protocol=text_protocol, push=pushed.append), pushed


def test_the_relay_streams_the_answer_under_the_id_it_returns() -> None:
    relay, pushed = _relay()
    for so_far in ["Hello", "Hello ", "Hello world", "Hello world\n"]:
        relay.offer(so_far, calling=False)
    answer_id = relay.finish("Hello world\n")
    assert "".join(c.text for c in pushed) == "Hello world\n"
    assert {c.id for c in pushed} == {answer_id}
    assert [c.text for c in pushed] == ["Hello", " world", "\n"], "trailing whitespace waits"


def test_the_relay_stops_at_a_tool_call_and_a_different_answer_gets_a_new_id() -> None:
    relay, pushed = _relay()
    relay.offer("Let me", calling=False)
    shown_id = relay.id
    relay.offer("Let me look", calling=True)
    relay.offer("Let me look more", calling=False)
    assert [c.text for c in pushed] == ["Let me"]
    answer_id = relay.finish("I could not produce an answer this time; please rephrase.")
    assert answer_id != shown_id and pushed[-1].id == answer_id
    assert pushed[-1].text.startswith("I could not")


def test_the_text_protocol_never_shows_a_function_call() -> None:
    relay, pushed = _relay(text_protocol=True)
    for so_far in ["[", "[FUNC", '[FUNCTION] archival_memory_search(query="x")']:
        relay.offer(so_far, calling=False)
    assert pushed == []
    relay, pushed = _relay(text_protocol=True)
    for so_far in ["[FINAL", "[FINAL_ANSWER] Joins", "[FINAL_ANSWER] Joins combine."]:
        relay.offer(so_far, calling=False)
    relay.finish("Joins combine.")
    assert "".join(c.text for c in pushed) == "Joins combine."


def test_internal_messages_are_everything_outside_the_display_channel() -> None:
    answer = AIMessage(content="a", id="a1")
    update = {
        "fifo_queue": [answer, ToolMessage(content="{}", tool_call_id="c", id="t1")],
        "prompt": [SystemMessage(content="CORE MEMORY")],
        "messages": [answer],
        "response": "a",
    }
    hidden = internal_messages(update)
    assert [m.type for m in hidden] == ["tool", "system"], "the displayed answer is not hidden"


def test_the_request_being_served_is_the_queues_last_human_message() -> None:
    queue = [
        HumanMessage(content="first", id="h1"),
        AIMessage(content="a", id="a1"),
        HumanMessage(content="now"),
    ]
    assert served_request({"fifo_queue": [*queue, ToolMessage(content="{}", tool_call_id="c")]}) == "now"
    assert served_request({"fifo_queue": []}) == ""
