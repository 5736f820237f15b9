"""Finishing a request, the second phase of the ``think`` step that answers.

Report the effort (``memory_state["effort"]`` and an ``effort`` stream event), record the
answer in recall storage and the display, report the memory state, copy core memory to
the LangGraph Store and clear the slots. With synchronous logging it also consolidates
due episodes (``EpisodeStore.consolidate_due``; errors logged, never fatal); with the
kernel (the default) the worker consolidates right after it writes the messages. What
the answer "used" is ``effort.used_slots``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.context import Context
from agent.heartbeat.effort import new_effort, used_slots
from agent.heartbeat.prompts import SUMMARY_INSTRUCTIONS
from agent.heartbeat.slots import clear_slots
from agent.heartbeat.turn import build_prompt, emit, recall_message, run_context, session_id, store_of
from agent.heartbeat.wiring import Wiring
from agent.heartbeat.working_memory import pressure
from agent.models.capabilities import has_structured_output
from agent.models.offline_policy import is_policy_reply
from agent.tracing import trace_config

log = logging.getLogger("kag.heartbeat")

CORE_NAMESPACE = "core_memory"
"""LangGraph Store namespace of the core memory copy, under the learner: ``(learner_id, CORE_NAMESPACE)``."""
CORE_KEY = "sections"


async def finish(wiring: Wiring, state: dict, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
    """Report the effort, record the answer and the memory state, clear the slots, consolidate episodes."""
    ctx = run_context(runtime)
    wired = wiring()
    answer = state["fifo_queue"][-1]
    effort = effort_report(state)
    emit(runtime, "effort", **effort)
    # The offline policy's own replies are tutor boilerplate, not conversation data.
    logged = await wired.stores.recall.log_messages(
        state["learner_id"],
        session_id(state, config),
        [recall_message(m) for m in [answer] if not is_policy_reply(m)],
    )
    memory_state = report_memory(state, ctx, degraded=bool(state.get("degraded")) or logged.degraded)
    await publish_core(runtime, state["learner_id"], state.get("core_memory") or {})
    emit(runtime, "finish", steps=memory_state["steps"], pressure=memory_state["pressure"])
    memory_state["effort"] = effort
    if getattr(getattr(wired.stores, "recall", None), "kernel", None) is None:
        # Synchronous logging only: with the kernel, the worker consolidates after it writes.
        consolidated = await consolidate(wired.stores, wired.resources.chat_model, state["learner_id"])
        if consolidated:
            memory_state["consolidated_episode"] = consolidated
    return {
        "messages": display_update(
            state.get("messages") or [],
            AIMessage(content=answer.text, id=answer.id),  # the id its streamed chunks had
            ctx.display_window,
        ),
        "response": answer.text,
        "memory_state": memory_state,
        "counters": {"requests": 1},
        "effort": effort,
        "slots": [clear_slots()],
    }


def effort_report(state: Mapping[str, Any]) -> dict[str, Any]:
    """The request's effort record as reported: steps used, and the retrieved slots the answer used."""
    effort = {**new_effort("simple_recall", "local", 0, ""), **(state.get("effort") or {})}
    effort.pop("message_checked", None)
    held = state.get("slots") or []
    effort["retrieved"] = [i for i in effort["retrieved"] if any(s["id"] == i for s in held)]
    answer = state["fifo_queue"][-1].text if state.get("fifo_queue") else ""
    effort["think_steps"] = state.get("step", 0)
    effort["steps_used"] = effort["rounds"] + effort["think_steps"]
    effort["used"] = used_slots(answer, held, effort["retrieved"])
    return effort


def report_memory(state: Mapping[str, Any], ctx: Context, *, degraded: bool) -> dict[str, Any]:
    """``memory_state``: core sections, queue size, pressure, steps and the archive counters."""
    counters = state.get("counters", {})
    return {
        "core_sections": sorted(state.get("core_memory", {})),
        "queue_size": len(state["fifo_queue"]),
        "pressure": round(pressure(build_prompt(state, ctx), ctx.max_tokens), 4),
        "steps": state.get("step", 0),
        "archived_count": counters.get("archived_messages", 0),
        "archive_attempts": counters.get("archive_attempts", 0),
        "archive_successes": counters.get("archive_successes", 0),
        "degraded": degraded,
    }


def display_update(shown: list[AnyMessage], answer: AnyMessage, window: int) -> list[AnyMessage]:
    """The ``messages`` update of a finished request: its answer, and removals past ``window``.

    The display channel is written whole by every checkpoint that changes it: unbounded, a
    no-tool turn's p50 went 12 → 40 ms over 400 turns (22 ms trimmed; ``bench.heartbeat``).
    """
    overflow = len(shown) + 1 - window
    old = [RemoveMessage(id=str(m.id)) for m in shown[: max(0, overflow)] if m.id]
    return [*old, answer]


async def publish_core(runtime: Runtime[Context], learner_id: str, core: dict[str, str]) -> None:
    """Copy core memory into the LangGraph Store when it changed (read-only view for clients).

    Written under ``(learner_id, "core_memory")``, which the auth handler maps a client's
    ``("core_memory",)`` to. A failing store is logged, never fatal (it is only a view).
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


async def consolidate(stores: object, model: BaseChatModel | None, learner_id: str) -> str | None:
    """Consolidate due episodes (with the model when it is an LLM); the new id, or None."""
    episodes = store_of(stores, "episodes")
    if episodes is None:
        return None
    summarise = model_summariser(model, learner_id) if has_structured_output(model) else None
    try:
        record = await episodes.consolidate_due(learner_id, summarise=summarise)
    except Exception as exc:  # noqa: BLE001 - consolidation is derived data: it is redone later
        log.error("episode consolidation failed: %s", exc)
        return None
    return str(record["id"]) if record else None


def model_summariser(model: BaseChatModel, learner_id: str) -> Callable[[Sequence[str]], Any]:
    """An episode summariser that asks ``model`` (tagged for tracing under ``learner_id``)."""

    async def summarise(texts: Sequence[str]) -> str:
        prompt = SUMMARY_INSTRUCTIONS.format(
            previous="(none)", excerpt="\n".join(f"- user: {t}" for t in texts)
        )
        reply = await model.ainvoke([HumanMessage(content=prompt)], trace_config(learner_id, "consolidate"))
        return reply.text

    return summarise
