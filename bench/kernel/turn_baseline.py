"""The heartbeat bench's scripted chat models and its baseline: a minimal ReAct graph.

``bench/heartbeat.py`` times turns of the real heartbeat against ``baseline_graph``; both
answer from the same scripted models, so what differs is the graph's own cost. Kept apart
from the measuring loop: ``bench.concurrency`` and the tests use the models too.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.prebuilt import ToolNode

from agent.heartbeat.effort import CLASSIFY_INSTRUCTIONS, classify_offline

FILLER = "We went through another worked example of joins, step by step, with a small table. " * 4
QUERY = "joins example"


class LoopingModel(BaseChatModel):
    """Scripted by the last message: a question → one search call; a tool result → an answer.

    A summarisation request (the archive node's prompt) gets a fixed short summary, so the
    script never desynchronises when auto-archive calls the model.
    """

    tool_name: str = "archival_memory_search"
    calls: int = 0

    @property
    def _llm_type(self) -> str:
        return "bench-looping"

    def bind_tools(self, tools: Any, **kwargs: Any) -> LoopingModel:
        """Tools are ignored: the script decides."""
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.calls += 1
        last = messages[-1]
        if isinstance(last, HumanMessage) and last.text.startswith("Summarise the conversation"):
            reply = AIMessage(content="The learner practised SQL joins with worked examples.")
        elif isinstance(last, ToolMessage):
            reply = AIMessage(content=f"Answer {self.calls}: {FILLER}")
        else:
            call = {
                "name": self.tool_name,
                "args": {"query": QUERY},
                "id": f"c{self.calls}",
                "type": "tool_call",
            }
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])


class ScriptedModel(LoopingModel):
    """``LoopingModel`` that can answer directly (``direct``) and answers the intent classifier.

    The heartbeat asks a chat model for the request's intent through structured output
    (``agent.heartbeat.effort.classify``); this model answers that call with the offline
    rules' intent as an ``IntentChoice`` tool call, so the classifier costs one scripted call
    and never falls back through a parse error.
    """

    direct: bool = False
    """Answer every request without a tool call (the no-tool turn)."""

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        first, last = messages[0], messages[-1]
        if isinstance(first, SystemMessage) and first.text == CLASSIFY_INSTRUCTIONS:
            self.calls += 1
            args = {"intent": classify_offline(last.text)}
            call = {"name": "IntentChoice", "args": args, "id": f"i{self.calls}", "type": "tool_call"}
            return ChatResult(generations=[ChatGeneration(message=AIMessage(content="", tool_calls=[call]))])
        summarising = isinstance(last, HumanMessage) and last.text.startswith("Summarise the conversation")
        if self.direct and not summarising:
            self.calls += 1
            reply = AIMessage(content=f"Answer {self.calls}: {FILLER}")
            return ChatResult(generations=[ChatGeneration(message=reply)])
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

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
