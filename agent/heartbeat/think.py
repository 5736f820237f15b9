"""The ``compile`` and ``think`` steps: build the prompt, then one model call.

``think`` answers or asks for tools. An answer finishes the request in the same step
(``agent.heartbeat.finish``, the step's second phase on the state with the answer
applied: ``agent.heartbeat.phases``); a tool call goes on to ``act``. The last allowed
step gets no tools and must answer.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.context import Context
from agent.heartbeat.chat_stream import AnswerRelay, stream_reply
from agent.heartbeat.effort import think_limit
from agent.heartbeat.finish import finish
from agent.heartbeat.phases import after, combine
from agent.heartbeat.prompts import FORCE_FINAL, SIMPLE_RETRY
from agent.heartbeat.text_protocol import parse_text_reply
from agent.heartbeat.turn import build_prompt, emit, run_context
from agent.heartbeat.wiring import Wiring
from agent.heartbeat.working_memory import pressure
from agent.tracing import trace_config

log = logging.getLogger("kag.heartbeat")


def forced_final(state: Mapping[str, Any], ctx: Context) -> bool:
    """True when the coming think step is the last the request's budget allows: it must answer."""
    return state.get("step", 0) + 1 >= think_limit(state.get("effort"), ctx.max_steps)


def calls_tools(state: Mapping[str, Any]) -> bool:
    """True when the latest think step asked for tools; anything else is the final answer."""
    return bool(getattr(state["fifo_queue"][-1], "tool_calls", None))


async def compile_(state: dict, runtime: Runtime[Context]) -> dict:
    """Build the prompt: system, then core memory, then the FIFO queue."""
    ctx = run_context(runtime)
    force = forced_final(state, ctx)
    prompt = build_prompt(state, ctx, FORCE_FINAL if force else "")
    value = pressure(prompt, ctx.max_tokens)
    emit(runtime, "compile", pressure=round(value, 4), messages=len(prompt), forced_final=force)
    return {"prompt": prompt, "pressure": value}


async def think(wiring: Wiring, state: dict, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
    """One model call; an answer then finishes the request in the same step.

    The answer streams to a chat client as the model writes it, under the id it is stored
    under; tool calls never do (``agent.heartbeat.chat_stream``).
    """
    update = await call_model(wiring, state, config, runtime)
    view = after(state, update)
    if calls_tools(view):
        return update
    return combine(update, await finish(wiring, view, config, runtime))


async def call_model(wiring: Wiring, state: dict, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
    """The think phase: the reply to the prompt, with tools unless this step must answer."""
    ctx = run_context(runtime)
    wired = wiring()
    step = state.get("step", 0) + 1
    force = forced_final(state, ctx)
    model = wired.resources.chat_model
    if not force and ctx.tool_protocol == "native":
        model = model.bind_tools(list(wired.tools))
    # The prompt is not checkpointed: a run resumed between compile and think rebuilds it.
    prompt = state.get("prompt") or build_prompt(state, ctx, FORCE_FINAL if force else "")
    relay = AnswerRelay(config, text_protocol=ctx.tool_protocol == "text")
    reply = await stream_reply(model, prompt, trace_config(state["learner_id"], "think", step), relay)
    counters = {"model_calls": 1}
    if not reply.text.strip() and not getattr(reply, "tool_calls", None):
        reply = await retry_empty(wired.resources.chat_model, state, step, relay)
        counters = {"model_calls": 2, "empty_retries": 1}
    if ctx.tool_protocol == "text":
        reply = parse_text_reply(reply)
    if force and getattr(reply, "tool_calls", None):
        reply = AIMessage(content=reply.text or "I ran out of steps before I could finish.", id=reply.id)
    calls = [{"name": c["name"], "args": c["args"]} for c in getattr(reply, "tool_calls", [])]
    # A new id for every step: a reused one would replace a queued message and dedupe in recall.
    reply = reply.model_copy(update={"id": str(uuid.uuid4()) if calls else relay.finish(reply.text)})
    emit(runtime, "think", step=step, tool_calls=calls, forced_final=force)
    return {"fifo_queue": [reply], "step": step, "counters": counters}


async def retry_empty(
    model: BaseChatModel, state: Mapping[str, Any], step: int, relay: AnswerRelay
) -> AnyMessage:
    """After an empty reply: one more call with a simpler prompt, else a fixed apology."""
    log.warning("empty model response; retrying once with a simpler prompt")
    last = next((m for m in reversed(state["fifo_queue"]) if isinstance(m, HumanMessage)), None)
    simple = [SystemMessage(content=SIMPLE_RETRY), *([last] if last else [])]
    retry = trace_config(state["learner_id"], "think", step, run_name="think-retry")
    reply = await stream_reply(model, simple, retry, relay)
    if not reply.text.strip():
        reply = AIMessage(content="I could not produce an answer this time; please rephrase.")
    return reply
