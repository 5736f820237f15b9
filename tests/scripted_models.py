"""Scripted chat models for tests: LangChain's fake model plus ``bind_tools``."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage
from langchain_core.outputs import ChatGenerationChunk


class ScriptedChatModel(FakeMessagesListChatModel):
    """Replays ``responses`` in order and records every prompt it was given."""

    prompts: list[list[BaseMessage]] = []
    bound_tools: list[list[str]] = []

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:  # noqa: D102
        from langchain_core.utils.function_calling import convert_to_openai_tool

        self.bound_tools.append([convert_to_openai_tool(t)["function"]["name"] for t in tools])
        return self

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):  # noqa: D102, ANN001
        self.prompts.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


class StreamingScriptedChatModel(ScriptedChatModel):
    """A ``ScriptedChatModel`` that streams, as a provider does.

    Its text goes word by word, then each tool call as a tool-call chunk (a reply may hold text
    before its tool call).
    """

    def _stream(self, messages, stop=None, run_manager=None, **kwargs) -> Iterator[ChatGenerationChunk]:  # noqa: ANN001
        reply = self._generate(messages, stop=stop, run_manager=run_manager, **kwargs).generations[0].message
        for piece in re.findall(r"\s*\S+\s*?(?=\s|$)|\s+$", reply.text):
            yield ChatGenerationChunk(message=AIMessageChunk(content=piece))
        for index, tool_call in enumerate(getattr(reply, "tool_calls", [])):
            chunk = {"name": tool_call["name"], "args": json.dumps(tool_call["args"]), "id": tool_call["id"]}
            yield ChatGenerationChunk(
                message=AIMessageChunk(content="", tool_call_chunks=[{**chunk, "index": index}])
            )


def call(name: str, i: int = 0, **args: Any) -> AIMessage:
    """An assistant message that calls one tool."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"call-{name}-{i}", "type": "tool_call"}],
    )


def scripted(*responses: BaseMessage | str, streaming: bool = False) -> ScriptedChatModel:
    """A scripted model; strings become plain assistant answers. ``streaming``: it streams."""
    msgs = [AIMessage(content=r) if isinstance(r, str) else r for r in responses]
    cls = StreamingScriptedChatModel if streaming else ScriptedChatModel
    return cls(responses=msgs, prompts=[], bound_tools=[])
