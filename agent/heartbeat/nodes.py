"""Node functions of the heartbeat: thin adapters from state to ``agent/`` logic."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import StoreUnavailableError
from agent.heartbeat.chat_input import learner_message
from agent.heartbeat.chat_stream import AnswerRelay, stream_reply
from agent.heartbeat.cognition import sense_request, sense_tool_outputs
from agent.heartbeat.effort import think_limit
from agent.heartbeat.prompts import FORCE_FINAL, SIMPLE_RETRY
from agent.heartbeat.state import HeartbeatState
from agent.heartbeat.summarizer import role_of
from agent.heartbeat.text_protocol import parse_text_reply
from agent.heartbeat.tool_runner import run_tool_calls
from agent.heartbeat.wiring import Wiring
from agent.heartbeat.working_memory import compile_prompt, eviction_cut, pressure
from agent.memory.message_kinds import CALL_MARK
from agent.memory.recall import LogResult, RecallMessage
from agent.memory.stores import MemoryKnobs
from agent.models.offline_policy import is_policy_reply
from agent.tracing import trace_config
from agent.validation import learner_hash, validate_request_context

log = logging.getLogger("kag.heartbeat")
SUMMARY_NAME = "recursive_summary"


def run_context(runtime: Runtime[Context]) -> Context:
    """The run's Context: defaults when none was passed, ``ConfigError`` naming the field when bad."""
    return Context.coerce(runtime.context)


def emit(runtime: Runtime[Context], phase: str, **data: Any) -> None:
    """Stream a custom ``{"phase": ...}`` event (``stream_mode="custom"``)."""
    runtime.stream_writer({"phase": phase, **data})


def session_id(state: HeartbeatState, config: RunnableConfig) -> str:
    """The session recall storage groups messages by: the request's, else the thread id."""
    configurable = config.get("configurable", {})
    return str(state.get("context", {}).get("session_id") or configurable.get("thread_id") or "default")


def _recall(message: AnyMessage, attended: list[dict] | None = None) -> RecallMessage:
    """``message`` for recall storage; ``attended``: the sensory traces it promotes (``ATTENDED_TO``)."""
    text = message.text
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        text = (text + " " if text else "") + " ".join(f"{CALL_MARK}{c['name']}({c['args']})]" for c in calls)
    return RecallMessage(
        id=str(message.id), role=role_of(message), content=text or "(empty)", attended=attended or None
    )


def _with_id(message: AnyMessage) -> AnyMessage:
    if not message.id:
        message.id = str(uuid.uuid4())
    return message


def split_summary(queue: list[AnyMessage]) -> tuple[str, list[AnyMessage]]:
    """Separate the recursive summary at the head of the queue from the rest."""
    if queue and isinstance(queue[0], SystemMessage) and queue[0].name == SUMMARY_NAME:
        return queue[0].text, queue[1:]
    return "", queue


def display_update(shown: list[AnyMessage], answer: AnyMessage, window: int) -> list[AnyMessage]:
    """The ``messages`` update of a finished request: its answer, and removals past ``window``.

    The display channel is written whole by every checkpoint that changes it (twice a
    turn) and read whole when a run starts. ``bench.heartbeat --turns 400``, p50 of the
    first and last 50 no-tool turns: 12.0 → 40.4 ms unbounded, 14.7 → 22.4 ms trimmed at
    100 (the rest of the growth is shared with the in-process baseline's own thread).
    """
    overflow = len(shown) + 1 - window
    old = [RemoveMessage(id=str(m.id)) for m in shown[: max(0, overflow)] if m.id]
    return [*old, answer]


def archive_due(state: HeartbeatState, ctx: Context, value: float) -> bool:
    """The monitor's interrupt: auto-archive on, ``value`` over the threshold, and something to evict."""
    if not ctx.auto_archive or value <= ctx.pressure_threshold:
        return False
    _, queue = split_summary(state.get("fifo_queue", []))
    return eviction_cut(queue, ctx.evict_fraction) > 0


def _tool_state(state: HeartbeatState, config: RunnableConfig) -> dict[str, Any]:
    """What tools reading graph state see: the learner's session; ``episode_id``: the latest request."""
    queue = split_summary(state.get("fifo_queue", []))[1]
    episode = next((m for m in reversed(queue) if isinstance(m, HumanMessage)), None)
    return {
        "learner_id": state["learner_id"],
        "fifo_queue": queue,
        "episode_id": str(episode.id) if episode is not None and episode.id else None,
        "current_concept": state.get("context", {}).get("current_concept"),
        "session_id": session_id(state, config),
    }


def _prompt(state: HeartbeatState, ctx: Context, extra_system: str = "") -> list[AnyMessage]:
    summary, queue = split_summary(state.get("fifo_queue", []))
    text, slots = ctx.tool_protocol == "text", state.get("slots") or []
    prompt = compile_prompt(state.get("core_memory", {}), queue, text_protocol=text, slots=slots)
    head = prompt[0].text
    if summary:
        head += f"\n\nRECURSIVE SUMMARY (earlier conversation, archived)\n{summary}"
    if extra_system:
        head += f"\n\n{extra_system}"
    return [SystemMessage(content=head), *prompt[1:]]


CORE_NAMESPACE = "core_memory"
"""LangGraph Store namespace of the core memory copy, under the learner: ``(learner_id, CORE_NAMESPACE)``."""
CORE_KEY = "sections"


async def _publish_core(runtime: Runtime[Context], learner_id: str, core: dict[str, str]) -> None:
    """Copy core memory into the LangGraph Store when it changed (read-only view for clients).

    The server's auth handler rewrites a client's namespace ``("core_memory",)`` to
    ``(identity, "core_memory")``, so the graph writes under ``(learner_id, "core_memory")``:
    the learner reads it, nobody else does. Without a store (plain runs) nothing happens;
    a failing store is logged, never fatal (Neo4j and Redis stay the source of truth).
    """
    store = runtime.store
    if store is None:
        return
    namespace = (learner_id, CORE_NAMESPACE)
    value = {"sections": dict(core)}
    try:
        item = await store.aget(namespace, CORE_KEY)
        if item is None or item.value != value:
            await store.aput(namespace, CORE_KEY, value, index=False)
    except Exception as exc:  # noqa: BLE001 - a display copy must not fail the run
        log.warning("could not copy core memory to the LangGraph Store: %s", exc)


def make_nodes(wiring: Wiring) -> dict[str, Callable[..., Any]]:
    """Build the heartbeat's node functions over ``wiring`` (stores and tools, built once).

    The tools come from ``tools/`` through the wiring the graph builds: ``agent/``
    never imports the tool layer.
    """

    async def receive(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Validate input, bind the learner, load core memory, sense and enqueue the request.

        The request is the input's ``request``, else the chat client's message already in
        ``messages`` (``agent.heartbeat.chat_input``), which keeps its id and is not appended again.
        """
        learner_id = state["learner_id"]  # bound to the authenticated learner (agent.identity)
        message = learner_message(state)
        request = message.text
        # The request context is client input too: checked before anything is written.
        state = {**state, "context": validate_request_context(state.get("context"))}
        ctx = run_context(runtime)
        stores = wiring().stores

        async def read_core() -> dict[str, str]:
            try:
                return await stores.core.read(learner_id, ttl_seconds=ctx.core_ttl_seconds)
            except StoreUnavailableError as exc:
                log.error("core memory unavailable, using the checkpointed mirror: %s", exc)
                return dict(state.get("core_memory") or {})

        seed: list[AnyMessage] = []
        if not state.get("fifo_queue"):
            for turn in state.get("context", {}).get("session_history", [])[-50:]:
                cls = HumanMessage if turn.get("role") == "user" else AIMessage
                seed.append(cls(content=str(turn.get("content", "")), id=str(uuid.uuid4())))
        human = message.human()

        async def sense_and_log() -> LogResult:
            attended = await sense_request(stores, learner_id, request, state["context"])
            recalled = [*(_recall(m) for m in seed), _recall(human, attended)]
            return await stores.recall.log_messages(learner_id, session_id(state, config), recalled)

        # Independent round trips: the core memory read overlaps sensing and logging.
        core, logged = await asyncio.gather(read_core(), sense_and_log())
        emit(
            runtime,
            "receive",
            learner=learner_hash(learner_id),
            queue_size=len(state.get("fifo_queue", [])) + 1,
        )
        # A chat client's message stands before the seeded history: rewrite a new thread's display.
        restart = [RemoveMessage(id=REMOVE_ALL_MESSAGES)] if seed and message.pending else []
        return {
            "request": "",  # consumed: a run failing later leaves no request to serve again
            "context": state["context"],
            "learner_id": learner_id,
            "messages": [*restart, *seed, human],
            "fifo_queue": [*seed, human],
            "core_memory": core,
            "step": 0,
            "response": "",
            "artifacts": [],
            "degraded": logged.degraded,
        }

    async def monitor(state: HeartbeatState, runtime: Runtime[Context]) -> dict:
        """Measure memory pressure: the interrupt that triggers archiving."""
        ctx = run_context(runtime)
        value = pressure(_prompt(state, ctx), ctx.max_tokens)
        if value > ctx.pressure_threshold:  # routine: archive runs next (a failed archive warns)
            log.info("memory pressure %.2f over %.2f", value, ctx.pressure_threshold)
        emit(runtime, "monitor", pressure=round(value, 4), step=state.get("step", 0))
        return {"pressure": value, "archive_due": archive_due(state, ctx, value)}

    async def compile_(state: HeartbeatState, runtime: Runtime[Context]) -> dict:
        """Build the prompt: system, then core memory, then the FIFO queue."""
        ctx = run_context(runtime)
        force = state.get("step", 0) + 1 >= think_limit(state.get("effort"), ctx.max_steps)
        prompt = _prompt(state, ctx, FORCE_FINAL if force else "")
        value = pressure(prompt, ctx.max_tokens)
        emit(runtime, "compile", pressure=round(value, 4), messages=len(prompt), forced_final=force)
        return {"prompt": prompt, "pressure": value}

    async def think(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """One model call; the last allowed step gets no tools and must answer.

        The answer streams to a chat client as the model writes it, under the id it is stored
        under; tool calls never do (``agent.heartbeat.chat_stream``).
        """
        ctx = run_context(runtime)
        wired = wiring()
        resources = wired.resources
        step = state.get("step", 0) + 1
        force = step >= think_limit(state.get("effort"), ctx.max_steps)
        model = resources.chat_model
        if not force and ctx.tool_protocol == "native":
            model = model.bind_tools(list(wired.tools))
        # The prompt is not checkpointed: a run resumed between compile and think rebuilds it.
        prompt = state.get("prompt") or _prompt(state, ctx, FORCE_FINAL if force else "")
        relay = AnswerRelay(config, text_protocol=ctx.tool_protocol == "text")
        reply = await stream_reply(model, prompt, trace_config(state["learner_id"], "think", step), relay)
        counters = {"model_calls": 1}
        if not reply.text.strip() and not getattr(reply, "tool_calls", None):
            log.warning("empty model response; retrying once with a simpler prompt")
            last = next((m for m in reversed(state["fifo_queue"]) if isinstance(m, HumanMessage)), None)
            simple = [SystemMessage(content=SIMPLE_RETRY), *([last] if last else [])]
            retry = trace_config(state["learner_id"], "think", step, run_name="think-retry")
            reply = await stream_reply(resources.chat_model, simple, retry, relay)
            counters = {"model_calls": 2, "empty_retries": 1}
            if not reply.text.strip():
                reply = AIMessage(content="I could not produce an answer this time; please rephrase.")
        if ctx.tool_protocol == "text":
            reply = parse_text_reply(reply)
        if force and getattr(reply, "tool_calls", None):
            reply = AIMessage(content=reply.text or "I ran out of steps before I could finish.", id=reply.id)
        calls = [{"name": c["name"], "args": c["args"]} for c in getattr(reply, "tool_calls", [])]
        # A new id for every step: a reused one would replace a queued message and dedupe in recall.
        reply = reply.model_copy(update={"id": str(uuid.uuid4()) if calls else relay.finish(reply.text)})
        emit(runtime, "think", step=step, tool_calls=calls, forced_final=force)
        return {"fifo_queue": [reply], "step": step, "counters": counters}

    async def act(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Run the requested tools and append their results to the queue."""
        ctx = run_context(runtime)
        wired = wiring()
        stores = wired.stores
        call_msg = state["fifo_queue"][-1]
        malformed = call_msg.additional_kwargs.get("malformed_call")
        if malformed:
            log.warning("malformed [FUNCTION] call: %s", malformed)
            call = call_msg.tool_calls[0]
            results = [
                ToolMessage(
                    content=f"ERROR: {malformed}",
                    tool_call_id=call["id"],
                    name=call["name"],
                    status="error",
                )
            ]
            outputs: list[dict] = [{}]
            errors, unknown = 1, 0
        else:
            run = await run_tool_calls(
                call_msg.tool_calls,
                wired.registry,
                {
                    "learner_id": state["learner_id"],
                    "knobs": MemoryKnobs.from_context(ctx).as_dict(),
                    "state": _tool_state(state, config),
                },
                trace_config(state["learner_id"], "act", state.get("step", 0)),
            )
            results, outputs, errors, unknown = run.messages, run.outputs, run.errors, run.unknown
        results = [_with_id(m) for m in results]
        traces = sense_tool_outputs(stores, state["learner_id"], results)
        logged = await stores.recall.log_messages(
            state["learner_id"],
            session_id(state, config),
            [_recall(call_msg), *(_recall(m, traces.get(str(m.id))) for m in results)],
        )
        core = next((o["core_memory"] for o in reversed(outputs) if "core_memory" in o), None)
        degraded = logged.degraded or any(o.get("degraded") for o in outputs)
        emit(
            runtime,
            "act",
            tools=[m.name for m in results],
            errors=errors,
            results=[m.text[:200] for m in results],
        )
        update: dict[str, Any] = {
            "fifo_queue": results,
            "counters": {
                "tool_calls": len(results),
                "tool_errors": errors,
                "unknown_tools": unknown,
            },
        }
        if core is not None:
            update["core_memory"] = core
        if degraded:
            update["degraded"] = True
        return update

    async def finish(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Record the answer and report the memory state."""
        ctx = run_context(runtime)
        stores = wiring().stores
        answer = state["fifo_queue"][-1]
        # The offline policy's own replies are tutor boilerplate, not conversation data.
        logged = await stores.recall.log_messages(
            state["learner_id"],
            session_id(state, config),
            [_recall(m) for m in [answer] if not is_policy_reply(m)],
        )
        counters = state.get("counters", {})
        _, queue = split_summary(state["fifo_queue"])
        memory_state = {
            "core_sections": sorted(state.get("core_memory", {})),
            "queue_size": len(state["fifo_queue"]),
            "pressure": round(pressure(_prompt(state, ctx), ctx.max_tokens), 4),
            "steps": state.get("step", 0),
            "archived_count": counters.get("archived_messages", 0),
            "archive_attempts": counters.get("archive_attempts", 0),
            "archive_successes": counters.get("archive_successes", 0),
            "degraded": bool(state.get("degraded")) or logged.degraded,
        }
        await _publish_core(runtime, state["learner_id"], state.get("core_memory") or {})
        emit(runtime, "finish", steps=memory_state["steps"], pressure=memory_state["pressure"])
        return {
            "messages": display_update(
                state.get("messages") or [],
                AIMessage(content=answer.text, id=answer.id),  # the id its streamed chunks had
                ctx.display_window,
            ),
            "response": answer.text,
            "memory_state": memory_state,
            "counters": {"requests": 1},
        }

    return {
        "receive": receive,
        "monitor": monitor,
        "compile": compile_,
        "think": think,
        "act": act,
        "finish": finish,
    }
