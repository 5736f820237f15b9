"""A LangGraph chat client against the real server: Agent Chat UI's run requests, replayed with the SDK.

Agent Chat UI (``useStream`` of ``@langchain/langgraph-sdk``) submits the learner's message as
``{"messages": [{"id": …, "type": "human", "content": [{"type": "text", "text": …}]}]}`` with
stream modes ``values``, ``messages-tuple`` and ``custom``, subgraphs streamed, the stream
resumable; the Python SDK's examples send ``{"messages": [{"role": "user", "content": …}]}``.
The token goes as Agent Chat UI sends it (``X-Api-Key``, the SDK's ``api_key``) and as a
bearer token. Two turns on one thread, then the thread is read back as a reloaded page reads it. The message
stream may hold the learner's message and the tutor's answer only: no system prompt, no core or
working memory, no tool call or tool result. Each answer streams under the id it is stored
under, and every ``values`` event carries the conversation.
"""

from __future__ import annotations

import uuid

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from tests.integration.langgraph_server import DevServer, Learner

pytestmark = [pytest.mark.integration, pytest.mark.server]

FIRST = "My name is Ada and my goal is to learn Rust"
SECOND = "hello"
INTERNAL = ("CORE MEMORY", "WORKING MEMORY", "<current_goals>", "<user_profile>", "You are the learner")
"""Text of the system prompt, the core memory block and the working memory block."""


@pytest.fixture(params=["x-api-key", "bearer"])
def chat_client(request: pytest.FixtureRequest, server: DevServer, alice: Learner) -> LangGraphClient:
    """Alice's client, with her token in Agent Chat UI's API key header or as a bearer token."""
    if request.param == "bearer":
        return alice.client(server.url)
    client = get_client(url=server.url, api_key=alice.token)
    headers = client.http.client.headers
    assert headers.get("x-api-key") == alice.token and "authorization" not in headers, "as useStream sends it"
    return client


async def _submit(client: LangGraphClient, thread_id: str, message: dict) -> dict[str, list]:
    """One run as ``useStream.submit`` sends it; events by mode (``messages|<ns>`` counts as messages)."""
    seen: dict[str, list] = {"values": [], "messages": [], "custom": [], "error": []}
    async for part in client.runs.stream(
        thread_id,
        "kag",
        input={"messages": [message]},
        stream_mode=["values", "messages-tuple", "custom"],
        stream_subgraphs=True,
        stream_resumable=True,
    ):
        mode = part.event.split("|")[0]
        if mode in seen:
            seen[mode].append(part.data)
    return seen


def _check_stream(seen: dict[str, list], said: str) -> list[dict]:
    """The stream holds learner-facing messages only; returns the answer's chunks."""
    assert seen["error"] == []
    streamed = [data[0] for data in seen["messages"]]
    for message in streamed:
        assert message["type"] in {"human", "ai", "AIMessageChunk"}, f"internal message streamed: {message}"
        assert not message.get("tool_calls") and not message.get("tool_call_chunks"), message
        assert not any(marker in str(message["content"]) for marker in INTERNAL), message
    assert seen["values"], "values events"
    for values in seen["values"]:
        humans = [m for m in values["messages"] if m["type"] == "human"]
        assert humans and _text(humans[-1]) == said, "the learner's message stays on screen"
    return [m for m in streamed if m["type"] in {"ai", "AIMessageChunk"}]


def _text(message: dict) -> str:
    content = message["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if isinstance(block, dict))


async def test_agent_chat_uis_run_requests_stream_the_conversation_only(chat_client: LangGraphClient) -> None:
    as_alice = chat_client
    thread_id = (await as_alice.threads.create())["thread_id"]
    ui_message = {"id": str(uuid.uuid4()), "type": "human", "content": [{"type": "text", "text": FIRST}]}

    first = await _submit(as_alice, thread_id, ui_message)
    second = await _submit(as_alice, thread_id, {"role": "user", "content": SECOND})

    answers = [_check_stream(first, FIRST), _check_stream(second, SECOND)]
    state = await as_alice.threads.get_state(thread_id)  # a reloaded page reads the thread
    shown = state["values"]["messages"]
    assert [(m["type"], _text(m)) for m in shown] == [
        ("human", FIRST),
        ("ai", shown[1]["content"]),
        ("human", SECOND),
        ("ai", shown[3]["content"]),
    ], "the same conversation, each message once"
    assert shown[0]["id"] == ui_message["id"], "the client's message keeps its id"
    for chunks, stored in zip(answers, (shown[1], shown[3]), strict=True):
        assert chunks, "the answer streams"
        assert {c["id"] for c in chunks} == {stored["id"]}, "one id from the first chunk to the state"
        assert "".join(_text(c) for c in chunks) == _text(stored) != ""
    assert second["values"][-1]["messages"] == shown, "the last values event is the stored conversation"
    phases = [e["phase"] for e in first["custom"]]
    assert "act" in phases, "tool activity stays on the custom stream"
