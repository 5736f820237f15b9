"""The ``monitor`` step: fire due reminders into working memory, then measure memory pressure.

Reminders: the first pass of a request matches the request text and
``context.current_concept``; every pass matches the clock. Each fired reminder becomes a
``plan`` slot and a ``{"phase": "reminder"}`` stream event; ``ReminderStore.fire`` moves
it pending → triggered, so it fires exactly once.

Pressure is the interrupt that triggers archiving: ``archive_due`` routes to ``archive``
when it passes ``Context.pressure_threshold`` and the queue has something to evict.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import KAGError
from agent.heartbeat.chat_input import served_request
from agent.heartbeat.slots import merge_slots, reminder_slot
from agent.heartbeat.turn import build_prompt, emit, run_context, split_summary, store_of, unique
from agent.heartbeat.wiring import Wiring
from agent.heartbeat.working_memory import eviction_cut, pressure

log = logging.getLogger("kag.heartbeat")


async def monitor(wiring: Wiring, state: dict, runtime: Runtime[Context]) -> dict:
    """Fire due reminders into working memory, then measure pressure: the interrupt that archives."""
    ctx = run_context(runtime)
    effort = dict(state.get("effort") or {})
    fired = await fire_reminders(wiring, state, effort)
    slots = [reminder_slot(r) for r in fired]
    for reminder in fired:
        log.info("reminder %s fired", reminder.id)
        emit(runtime, "reminder", id=reminder.id, description=reminder.description)
    effort["message_checked"] = True
    effort["reminders"] = unique(effort.get("reminders", []), (r.id for r in fired))
    # Pressure is measured with the fired reminders in working memory.
    view = {**state, "slots": merge_slots(state.get("slots"), slots)} if slots else state
    value = pressure(build_prompt(view, ctx), ctx.max_tokens)
    if value > ctx.pressure_threshold:  # routine: archive runs next (a failed archive warns)
        log.info("memory pressure %.2f over %.2f", value, ctx.pressure_threshold)
    emit(runtime, "monitor", pressure=round(value, 4), step=view.get("step", 0))
    update: dict[str, Any] = {"pressure": value, "archive_due": archive_due(view, ctx, value)}
    return {**update, "effort": effort, **({"slots": slots} if slots else {})}


async def fire_reminders(wiring: Wiring, state: Mapping[str, Any], effort: Mapping[str, Any]) -> list[Any]:
    """The learner's due reminders: by request and concept on a request's first pass, else the clock."""
    reminders = store_of(wiring().stores, "reminders")
    if reminders is None:
        return []
    learner_id = state["learner_id"]
    try:
        request = served_request(state)
        if effort.get("message_checked") or not request:
            return await reminders.fire(learner_id)  # later passes: the clock only
        concept = (state.get("context") or {}).get("current_concept")
        return await reminders.fire(learner_id, message=request, concept=concept)
    except KAGError as exc:
        log.error("reminders not checked: %s", exc)
        return []


def archive_due(state: Mapping[str, Any], ctx: Context, value: float) -> bool:
    """The monitor's interrupt: ``value`` over the threshold, and something to evict."""
    if value <= ctx.pressure_threshold:
        return False
    _, queue = split_summary(state.get("fifo_queue", []))
    return eviction_cut(queue, ctx.evict_fraction) > 0
