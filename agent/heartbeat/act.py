"""The ``act`` step: run the tools the think step asked for, then keep search results in working memory.

The tools come from ``tools/`` through the graph's ``Wiring`` (``agent/`` never imports the
tool layer); hidden arguments (the learner, the run's knobs, the turn's state) are
injected by ``agent.heartbeat.tool_runner``. Results of the search tools
(``agent.heartbeat.slots.SEARCH_TOOLS``) become ``retrieved_fact`` slots (the top
``TOOL_HITS`` of each call) that point at the result in the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.context import Context
from agent.heartbeat.sensing import sense_tool_outputs
from agent.heartbeat.slots import SEARCH_TOOLS, Slot, hit_slots, tool_hits
from agent.heartbeat.tool_runner import ToolRunResult, error_message, run_tool_calls
from agent.heartbeat.turn import (
    current_requests,
    emit,
    recall_message,
    run_context,
    session_id,
    split_summary,
    unique,
    with_id,
)
from agent.heartbeat.wiring import Wired, Wiring
from agent.memory.stores import MemoryKnobs
from agent.tracing import trace_config

log = logging.getLogger("kag.heartbeat")

TOOL_SLOT_CHARS = 120
"""Content kept in a slot made from a search tool's result (the result itself is in the queue)."""


async def act(wiring: Wiring, state: dict, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
    """Run the requested tools and append their results to the queue; search results become slots."""
    wired = wiring()
    stores = wired.stores
    call_msg = state["fifo_queue"][-1]
    run = await run_tools(wired, state, config, run_context(runtime))
    results = [with_id(m) for m in run.messages]
    traces = sense_tool_outputs(stores, state["learner_id"], results)
    logged = await stores.recall.log_messages(
        state["learner_id"],
        session_id(state, config),
        [recall_message(call_msg), *(recall_message(m, traces.get(str(m.id))) for m in results)],
    )
    core = next((o["core_memory"] for o in reversed(run.outputs) if "core_memory" in o), None)
    degraded = logged.degraded or any(o.get("degraded") for o in run.outputs)
    emit(
        runtime,
        "act",
        tools=[m.name for m in results],
        errors=run.errors,
        results=[m.text[:200] for m in results],
    )
    update: dict[str, Any] = {
        "fifo_queue": results,
        "counters": {"tool_calls": len(results), "tool_errors": run.errors, "unknown_tools": run.unknown},
    }
    if core is not None:
        update["core_memory"] = core
    if degraded:
        update["degraded"] = True
    slots = search_slots(state, results)
    if slots:
        effort = dict(state.get("effort") or {})
        effort["retrieved"] = unique(effort.get("retrieved", []), (s["id"] for s in slots))
        update.update(slots=slots, effort=effort)
    return update


async def run_tools(
    wired: Wired, state: Mapping[str, Any], config: RunnableConfig, ctx: Context
) -> ToolRunResult:
    """The tool calls of the latest think step, run; a malformed ``[FUNCTION]`` call is one error."""
    call_msg = state["fifo_queue"][-1]
    malformed = call_msg.additional_kwargs.get("malformed_call")
    if malformed:
        log.warning("malformed [FUNCTION] call: %s", malformed)
        error = error_message(call_msg.tool_calls[0], malformed)
        return ToolRunResult(messages=[error], outputs=[{}], errors=1, unknown=0)
    return await run_tool_calls(
        call_msg.tool_calls,
        wired.registry,
        {
            "learner_id": state["learner_id"],
            "knobs": MemoryKnobs.from_context(ctx).as_dict(),
            "state": tool_state(state, config),
        },
        trace_config(state["learner_id"], "act", state.get("step", 0)),
    )


def tool_state(state: Mapping[str, Any], config: RunnableConfig) -> dict[str, Any]:
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


def search_slots(state: Mapping[str, Any], results: Sequence[AnyMessage]) -> list[Slot]:
    """``retrieved_fact`` slots from the search tools' results (hits on the request itself left out)."""
    slots: list[Slot] = []
    for message in results:
        if isinstance(message, ToolMessage) and message.name in SEARCH_TOOLS and message.status != "error":
            hits = [h for h in tool_hits(message) if h.id not in current_requests(state)]
            # The full result is already in the queue: the slot only points at it.
            slots.extend(hit_slots(hits, message.name, {"step": state.get("step", 0)}, chars=TOOL_SLOT_CHARS))
    return slots
