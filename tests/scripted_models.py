"""Scripted chat models for tests: LangChain's fake model plus ``bind_tools``."""

from __future__ import annotations

from typing import Any

from langchain_core.language_models.fake_chat_models import FakeMessagesListChatModel
from langchain_core.messages import AIMessage, BaseMessage


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


def call(name: str, i: int = 0, **args: Any) -> AIMessage:
    """An assistant message that calls one tool."""
    return AIMessage(
        content="",
        tool_calls=[{"name": name, "args": args, "id": f"call-{name}-{i}", "type": "tool_call"}],
    )


def scripted(*responses: BaseMessage | str) -> ScriptedChatModel:
    """A scripted model; strings become plain assistant answers."""
    msgs = [AIMessage(content=r) if isinstance(r, str) else r for r in responses]
    return ScriptedChatModel(responses=msgs, prompts=[], bound_tools=[])
