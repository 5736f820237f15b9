"""The heartbeat bench's scripted chat models and its baseline: a minimal ReAct graph.

``bench/heartbeat.py`` times turns of the real heartbeat against ``baseline_graph``; both
answer from the same scripted models, so what differs is the graph's own cost. Kept apart
from the measuring loop: ``bench.concurrency`` and the tests use the models too.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypedDict, get_args, get_origin

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable, RunnableLambda
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode
from pydantic.fields import FieldInfo

from agent.heartbeat.tokens import count_messages

FILLER = "We went through another worked example of joins, step by step, with a small table. " * 4
QUERY = "joins example"


class LoopingModel(BaseChatModel):
    """Scripted by the last message: a question → one search call; a tool result → an answer.

    A summarisation request (the archive node's prompt) gets a fixed short summary, so the
    script never desynchronises when auto-archive calls the model. Every call is counted,
    with its tokens (prompt in, reply out, by the product's own count), so the bench reports
    model calls and tokens per turn beside the baseline's.
    """

    tool_name: str = "archival_memory_search"
    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-looping"

    def bind_tools(self, tools: Any, **kwargs: Any) -> LoopingModel:
        """Tools are ignored: the script decides."""
        return self

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Runnable:
        """Answer like a provider's structured output: one counted call, a valid ``schema``.

        Every field gets its default, or a value of its type (the request's text for a
        string), so a caller that asks for structured output costs a call and never falls
        back through a parse error.
        """

        def answer(prompt: Any) -> Any:
            messages = prompt if isinstance(prompt, list) else [HumanMessage(content=str(prompt))]
            values = {name: _value_of(info, messages[-1].text) for name, info in schema.model_fields.items()}
            reply = schema(**values)
            self._count(messages, AIMessage(content=reply.model_dump_json()))
            return reply

        return RunnableLambda(answer)

    def _count(self, messages: list[BaseMessage], reply: AIMessage) -> None:
        self.calls += 1
        self.input_tokens += count_messages(messages)
        self.output_tokens += count_messages([reply])

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if _summarising(last):
            return AIMessage(content="The learner practised SQL joins with worked examples.")
        if isinstance(last, ToolMessage):
            return AIMessage(content=f"Answer {self.calls}: {FILLER}")
        call = {"name": self.tool_name, "args": {"query": QUERY}, "id": f"c{self.calls}", "type": "tool_call"}
        return AIMessage(content="", tool_calls=[call])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        reply = self._reply(messages)
        self._count(messages, reply)
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _summarising(message: BaseMessage) -> bool:
    return isinstance(message, HumanMessage) and message.text.startswith("Summarise the conversation")


def _value_of(info: FieldInfo, text: str) -> Any:
    """A field's default, else a value of its annotated type."""
    if not info.is_required():
        return info.get_default(call_default_factory=True)
    kind = info.annotation
    choices = get_args(kind) if get_origin(kind) is Literal else ()
    if choices:
        return choices[0]
    return {str: text[:200], int: 0, float: 0.0, bool: False}.get(
        kind, [] if get_origin(kind) is list else None
    )


class ScriptedModel(LoopingModel):
    """``LoopingModel`` that can answer directly (``direct``): the no-tool turn."""

    direct: bool = False
    """Answer every request without a tool call (the no-tool turn)."""

    def _reply(self, messages: list[BaseMessage]) -> AIMessage:
        if self.direct and not _summarising(messages[-1]):
            return AIMessage(content=f"Answer {self.calls + 1}: {FILLER}")
        return super()._reply(messages)

    async def _agenerate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        """The same script, answered on the loop: a real chat model's async call is native.

        Without it LangChain runs ``_generate`` in a thread pool, a hop a remote model never
        pays; the heartbeat calls models with ``ainvoke`` (the baseline's sync node does not).
        """
        return self._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


class BaselineState(TypedDict):
    """State of the minimal ReAct baseline."""

    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation."""


@tool
def archival_memory_search(query: str) -> str:
    """No-op stand-in tool for the baseline graph."""
    return f"nothing stored about {query}"


def baseline_graph(model: LoopingModel, checkpointer: Any = None) -> Any:
    """Model → tool → model, no memory management, on ``checkpointer`` (default: InMemorySaver)."""

    def think(state: BaselineState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: BaselineState) -> str:
        return "act" if state["messages"][-1].tool_calls else END

    builder = StateGraph(BaselineState)
    builder.add_node("think", think)
    builder.add_node("act", ToolNode([archival_memory_search]))
    builder.add_edge(START, "think")
    builder.add_conditional_edges("think", route, ["act", END])
    builder.add_edge("act", "think")
    return builder.compile(checkpointer=InMemorySaver() if checkpointer is None else checkpointer)
