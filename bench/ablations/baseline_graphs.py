"""The design's baselines as small graphs with the heartbeat's input and output.

```
window (fixed | sliding):  receive → compile → think ─(tool call)→ act → compile …
                                                    └─(answer)→ finish → END
RAG-only:                  receive → retrieve → compile → think → finish → END
```
Their logic lives in ``bench/ablations/baseline_policies.py``. Nodes emit the heartbeat's
custom phase events (``monitor``, ``compile``, ``think``, ``act``, ``finish``),
so ``bench.ablations.run_recorder`` records every variant alike.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from agent.context import Context
from agent.heartbeat.prompts import FORCE_FINAL
from agent.heartbeat.state import HeartbeatInput, HeartbeatOutput
from agent.heartbeat.summarizer import role_of
from agent.heartbeat.tokens import count_messages
from agent.heartbeat.tool_runner import run_tool_calls
from agent.heartbeat.turn import run_context
from agent.identity import add_bound_nodes
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources, default_resources
from agent.validation import validate_request
from bench.ablations.baseline_policies import (
    Keep,
    rag_exchange,
    rag_system,
    remaining_budget,
    retain,
    select_window,
    window_system,
)
from bench.ablations.baseline_state import BaselineState
from bench.ablations.window_tools import make_window_tools

Provider = Callable[[], Resources]


def _emit(runtime: Runtime[Context], phase: str, **data: Any) -> None:
    runtime.stream_writer({"phase": phase, **data})


def _provider(resources: Resources | None) -> Provider:
    return (lambda: resources) if resources is not None else default_resources


def _memory_state(state: BaselineState, pressure: float, degraded: bool = False) -> dict[str, Any]:
    return {
        "core_sections": [],
        "queue_size": len(state.get("history", [])),
        "pressure": round(pressure, 4),
        "steps": state.get("step", 0),
        "archived_count": 0,
        "archive_attempts": 0,
        "archive_successes": 0,
        "degraded": degraded,
    }


def _session_id(state: BaselineState, config: RunnableConfig) -> str:
    configurable = config.get("configurable", {})
    return str(state.get("context", {}).get("session_id") or configurable.get("thread_id") or "default")


async def receive(state: BaselineState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
    """Validate the input and start a new turn."""
    learner_id = state["learner_id"]  # bound to the authenticated learner (agent.identity)
    human = HumanMessage(content=validate_request(state.get("request")), id=str(uuid.uuid4()))
    _emit(runtime, "receive", queue_size=len(state.get("history", [])) + 1)
    return {
        "learner_id": learner_id,
        "turn": [RemoveMessage(id=REMOVE_ALL_MESSAGES), human],
        "history": state.get("history", []),
        "step": 0,
        "response": "",
        "artifacts": [],
        "degraded": False,
    }


def make_window_builder(keep: Keep, resources: Resources | None = None) -> StateGraph:
    """A window baseline: ``keep="first"`` is the fixed window, ``"last"`` the sliding window."""
    provide = _provider(resources)
    system = window_system(keep)

    def visible(
        state: BaselineState, ctx: Context, extra: str = ""
    ) -> tuple[list[AnyMessage], list[AnyMessage]]:
        """The prompt, and the window part of it (what window search may search)."""
        head = system.model_copy(update={"content": f"{system.text}\n\n{extra}".strip()})
        turn = state.get("turn", [])
        window = select_window(state.get("history", []), remaining_budget(ctx.max_tokens, [head], turn), keep)
        return [head, *window, *turn], window

    async def compile_(state: BaselineState, runtime: Runtime[Context]) -> dict:
        """Build the prompt: system, the window, the current turn (monitor and compile in one)."""
        ctx = run_context(runtime)
        force = state.get("step", 0) + 1 >= ctx.max_steps
        prompt, _ = visible(state, ctx, FORCE_FINAL if force else "")
        value = count_messages(prompt) / ctx.max_tokens
        _emit(runtime, "monitor", pressure=round(value, 4), step=state.get("step", 0))
        _emit(runtime, "compile", pressure=round(value, 4), forced_final=force)
        return {"pressure": value}

    async def think(state: BaselineState, runtime: Runtime[Context]) -> dict:
        """One model call; window search is bound until the last step."""
        ctx = run_context(runtime)
        step = state.get("step", 0) + 1
        force = step >= ctx.max_steps
        prompt, window = visible(state, ctx, FORCE_FINAL if force else "")
        model = provide().chat_model
        if not force:
            model = model.bind_tools(make_window_tools(window, ctx.search_page_size))
        reply = await model.ainvoke(prompt, config={"run_name": "think"})
        if force and getattr(reply, "tool_calls", None):
            reply = AIMessage(content=reply.text or "I ran out of steps before I could finish.")
        reply = reply.model_copy(update={"id": str(uuid.uuid4())})
        calls = [{"name": c["name"], "args": c["args"]} for c in getattr(reply, "tool_calls", [])]
        _emit(runtime, "think", step=step, tool_calls=calls, forced_final=force)
        return {"turn": [reply], "step": step}

    async def act(state: BaselineState, runtime: Runtime[Context]) -> dict:
        """Run window search over the window the model saw."""
        ctx = run_context(runtime)
        _, window = visible(state, ctx)
        registry = {t.name: t for t in make_window_tools(window, ctx.search_page_size)}
        run = await run_tool_calls(state["turn"][-1].tool_calls, registry, {})
        results = [m.model_copy(update={"id": str(uuid.uuid4())}) for m in run.messages]
        _emit(runtime, "act", tools=[m.name for m in results], errors=run.errors)
        return {"turn": results}

    async def finish(state: BaselineState, runtime: Runtime[Context]) -> dict:
        """Answer, then keep the turn's dialogue in the window."""
        ctx = run_context(runtime)
        history = retain(
            state.get("history", []),
            state["turn"],
            remaining_budget(ctx.max_tokens, [system]),
            keep,
        )
        state_after = {**state, "history": history}
        _emit(runtime, "finish", steps=state.get("step", 0), pressure=round(state.get("pressure", 0.0), 4))
        return {
            "response": state["turn"][-1].text,
            "history": history,
            "memory_state": _memory_state(state_after, state.get("pressure", 0.0)),  # type: ignore[arg-type]
        }

    def route(state: BaselineState) -> Literal["act", "finish"]:
        return "act" if getattr(state["turn"][-1], "tool_calls", None) else "finish"

    builder = _builder()
    add_bound_nodes(
        builder, {"receive": receive, "compile": compile_, "think": think, "act": act, "finish": finish}
    )
    builder.add_edge(START, "receive")
    builder.add_edge("receive", "compile")
    builder.add_edge("compile", "think")
    builder.add_conditional_edges("think", route, ["act", "finish"])
    builder.add_edge("act", "compile")
    builder.add_edge("finish", END)
    return builder


def make_rag_builder(resources: Resources | None = None) -> StateGraph:
    """RAG-only: retrieve the top-k past messages, answer once; no core memory, no loop."""
    provide = _provider(resources)

    async def retrieve(state: BaselineState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Log the request to recall storage, then retrieve the top-k other messages."""
        ctx = run_context(runtime)
        stores = MemoryStores.wire(provide())
        human = state["turn"][-1]
        logged = await stores.recall.log_messages(
            state["learner_id"],
            _session_id(state, config),
            [RecallMessage(id=str(human.id), role="user", content=human.text)],
        )
        page = await stores.recall.search(
            state["learner_id"], human.text, page_size=ctx.search_page_size + 1, recipe=ctx.search_recipe
        )
        hits = [h.to_dict() for h in page.results if h.id != str(human.id)][: ctx.search_page_size]
        _emit(runtime, "retrieve", hits=len(hits), degraded=page.degraded)
        degraded = logged.degraded or page.degraded
        return {"turn": rag_exchange(hits, human.text), "degraded": degraded}

    async def compile_(state: BaselineState, runtime: Runtime[Context]) -> dict:
        """The prompt: system, the request, the retrieval."""
        ctx = run_context(runtime)
        value = count_messages([rag_system(), *state["turn"]]) / ctx.max_tokens
        _emit(runtime, "monitor", pressure=round(value, 4), step=0)
        _emit(runtime, "compile", pressure=round(value, 4), forced_final=True)
        return {"pressure": value}

    async def think(state: BaselineState, runtime: Runtime[Context]) -> dict:
        """The one model call, without tools."""
        reply = await provide().chat_model.ainvoke(
            [rag_system(), *state["turn"]], config={"run_name": "think"}
        )
        reply = AIMessage(content=reply.text, id=str(uuid.uuid4()))
        _emit(runtime, "think", step=1, tool_calls=[], forced_final=True)
        return {"turn": [reply], "step": 1}

    async def finish(state: BaselineState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Log the answer to recall storage (so later requests can retrieve it)."""
        answer = state["turn"][-1]
        logged = await MemoryStores.wire(provide()).recall.log_messages(
            state["learner_id"],
            _session_id(state, config),
            [RecallMessage(id=str(answer.id), role=role_of(answer), content=answer.text or "(empty)")],
        )
        degraded = bool(state.get("degraded")) or logged.degraded
        _emit(runtime, "finish", steps=1, pressure=round(state.get("pressure", 0.0), 4))
        return {
            "response": answer.text,
            "memory_state": _memory_state(state, state.get("pressure", 0.0), degraded),
        }

    builder = _builder()
    for name, fn in (
        ("receive", receive),
        ("retrieve", retrieve),
        ("compile", compile_),
        ("think", think),
        ("finish", finish),
    ):
        add_bound_nodes(builder, {name: fn})
    builder.add_edge(START, "receive")
    builder.add_edge("receive", "retrieve")
    builder.add_edge("retrieve", "compile")
    builder.add_edge("compile", "think")
    builder.add_edge("think", "finish")
    builder.add_edge("finish", END)
    return builder


def _builder() -> StateGraph:
    return StateGraph(
        BaselineState, context_schema=Context, input_schema=HeartbeatInput, output_schema=HeartbeatOutput
    )
