"""The heartbeat speaks LangGraph's chat protocol: ``messages`` in, the answer alone streamed out.

Real Neo4j and Redis, a scripted chat model that streams word by word. Each run is streamed
as a chat client does (``values``, ``messages``, ``custom``): the message stream must hold the
learner's message and the tutor's answer only, the answer under one id from its first chunk
to the stored state, and every ``values`` event the conversation with the learner's message.
"""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage

from agent.context import Context
from agent.errors import InvalidInputError
from agent.heartbeat.slots import HEADER as WORKING_MEMORY
from agent.memory.core import CoreMemoryStore
from tests.scripted_models import ScriptedChatModel, call, scripted

PROFILE = "Name: Ana, Level: Beginner, Prefers worked examples"
ANSWER = "Ana, an INNER JOIN keeps only the rows that match in both tables."
ASK = "I'm Ana, tell me about inner joins."  # simple_recall: no appraisal rounds, 5 steps


async def _chat(graph, learner_id: str, payload: dict, thread: str = "chat") -> dict[str, list]:
    """Stream one run as a chat client does; events by mode (messages as (message, metadata))."""
    config = {"configurable": {"thread_id": f"{learner_id}-{thread}"}}
    seen: dict[str, list] = {"values": [], "messages": [], "custom": []}
    async for mode, chunk in graph.astream(
        {"learner_id": learner_id, **payload},
        config,
        context=Context(),
        stream_mode=["values", "messages", "custom"],
    ):
        seen[mode].append(chunk)
    seen["state"] = [(await graph.aget_state(config)).values]
    return seen


@pytest.fixture
async def cleanup(resources, learner_id):
    yield
    await CoreMemoryStore(resources.redis).clear(learner_id)
    await resources.neo4j.execute_query(
        "MATCH (n) WHERE n.learner_id = $l OR (n:Learner AND n.id = $l) DETACH DELETE n",
        l=learner_id,
        database_=resources.database,
    )


def _assert_learner_facing_only(streamed: list[BaseMessage]) -> None:
    for message in streamed:
        assert message.type in {"human", "ai", "AIMessageChunk"}, f"internal message streamed: {message!r}"
        assert not getattr(message, "tool_calls", None) and not getattr(message, "tool_call_chunks", None)
        assert "CORE MEMORY" not in message.text and WORKING_MEMORY not in message.text
        assert PROFILE not in message.text, "core memory text reached the stream"


def _answer_chunks(streamed: list[BaseMessage]) -> list[BaseMessage]:
    return [m for m in streamed if isinstance(m, AIMessage | AIMessageChunk)]


async def test_a_chat_client_sees_its_message_and_the_answer_only(make_graph, learner_id, cleanup) -> None:
    model = scripted(
        call("core_memory_append", 0, section="user_profile", content=PROFILE),
        call("archival_memory_search", 1, query="inner join"),
        ANSWER,
        streaming=True,
    )
    graph = make_graph(model)
    human = {"type": "human", "content": [{"type": "text", "text": ASK}]}

    seen = await _chat(graph, learner_id, {"messages": [human]})

    streamed = [message for message, _ in seen["messages"]]
    _assert_learner_facing_only(streamed)
    answer = _answer_chunks(streamed)
    assert len(answer) > 3, "the answer streams token by token"
    assert {m.id for m in answer} == {answer[0].id}, "one id from the first chunk"
    assert "".join(m.text for m in answer) == ANSWER
    stored = seen["state"][0]["messages"]
    assert [(m.type, m.text) for m in stored] == [("human", ASK), ("ai", ANSWER)], "no duplicated message"
    assert stored[1].id == answer[0].id, "the stored answer has the streamed id"
    assert all(meta["langgraph_node"] == "think" for _, meta in seen["messages"])
    # values carry the conversation from the input on, with the learner's message in every event
    assert seen["values"] and all(
        [m.text for m in v["messages"] if isinstance(m, HumanMessage)] == [ASK] for v in seen["values"]
    )
    assert seen["values"][-1]["response"] == ANSWER and seen["values"][-1]["messages"][-1].id == answer[0].id
    # tool activity stays on the custom stream
    acts = [e["tools"] for e in seen["custom"] if e["phase"] == "act"]
    assert acts == [["core_memory_append"], ["archival_memory_search"]]
    assert PROFILE in seen["state"][0]["core_memory"]["user_profile"], "the tools ran"


async def test_two_turns_in_both_message_shapes_keep_one_conversation(
    make_graph, learner_id, cleanup
) -> None:
    graph = make_graph(scripted("First answer.", "Second answer.", streaming=True))
    await _chat(
        graph, learner_id, {"messages": [{"type": "human", "content": [{"type": "text", "text": "one"}]}]}
    )
    second = await _chat(graph, learner_id, {"messages": [{"role": "user", "content": "hello"}]})

    stored = second["state"][0]["messages"]
    assert [(m.type, m.text) for m in stored] == [
        ("human", "one"),
        ("ai", "First answer."),
        ("human", "hello"),
        ("ai", "Second answer."),
    ]
    assert len({m.id for m in stored}) == 4
    answer = _answer_chunks([m for m, _ in second["messages"]])
    assert {m.id for m in answer} == {stored[-1].id}
    assert "hello" in [m.text for m in second["state"][0]["fifo_queue"] if isinstance(m, HumanMessage)]


async def test_request_wins_over_messages_and_takes_the_messages_place(
    make_graph, learner_id, cleanup
) -> None:
    model = scripted("Answered.")
    graph = make_graph(model)
    seen = await _chat(
        graph,
        learner_id,
        {"request": "the request", "messages": [{"role": "user", "content": "the message"}]},
    )

    stored = seen["state"][0]["messages"]
    assert [(m.type, m.text) for m in stored] == [("human", "the request"), ("ai", "Answered.")]
    assert "the request" in model.prompts[0][-1].text
    assert "the message" not in str(model.prompts[0])


async def test_a_run_with_neither_names_both(make_graph, learner_id, cleanup) -> None:
    graph = make_graph(scripted("Answered.", "Again."))
    await _chat(graph, learner_id, {"messages": [{"role": "user", "content": "hi"}]})
    for payload in ({}, {"messages": []}):
        with pytest.raises(InvalidInputError, match=r"'request'.*'messages'"):
            await _chat(graph, learner_id, payload)  # the served message is not served again
    with pytest.raises(InvalidInputError, match="no text"):
        await _chat(
            graph, learner_id, {"messages": [{"type": "human", "content": [{"type": "text", "text": " "}]}]}
        )


async def test_text_before_a_tool_call_never_carries_the_call(make_graph, learner_id, cleanup) -> None:
    preamble = AIMessage(
        content="Let me look.",
        tool_calls=[
            {"name": "archival_memory_search", "args": {"query": "joins"}, "id": "c1", "type": "tool_call"}
        ],
    )
    graph = make_graph(scripted(preamble, "Joins combine tables.", streaming=True))
    seen = await _chat(graph, learner_id, {"messages": [{"role": "user", "content": "joins?"}]})

    streamed = [m for m, _ in seen["messages"]]
    _assert_learner_facing_only(streamed)
    stored = seen["state"][0]["messages"][-1]
    answer = [m for m in _answer_chunks(streamed) if m.id == stored.id]
    assert "".join(m.text for m in answer) == stored.text == "Joins combine tables."


class _DownOnce(ScriptedChatModel):
    """The provider fails the first call, then answers from the script."""

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: ANN001, D102
        if not self.prompts:
            self.prompts.append(list(messages))
            raise RuntimeError("provider down")
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


async def test_a_request_of_a_failed_run_is_not_served_again(make_graph, learner_id, cleanup) -> None:
    model = _DownOnce(responses=[AIMessage(content="Answered the new one.")], prompts=[], bound_tools=[])
    graph = make_graph(model)
    with pytest.raises(RuntimeError, match="provider down"):
        await _chat(graph, learner_id, {"request": "the old question"})

    seen = await _chat(graph, learner_id, {"messages": [{"role": "user", "content": "the new question"}]})

    assert seen["values"][-1]["response"] == "Answered the new one."
    assert model.prompts[-1][-1].text == "the new question", "the chat message is served, not the old request"
    assert seen["state"][0]["request"] == "", "receive consumed the request"
