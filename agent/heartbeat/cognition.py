"""Cognitive phases of the heartbeat (issue 13): appraise, reminders, retrieved slots, effort report.

``make_cognitive_nodes(wiring, base)`` adds the ``appraise`` phase and wraps three of
``agent.heartbeat.nodes``' phases, keeping what they do (the graph runs ``appraise``
inside the ``receive`` step and ``finish`` inside the ``think`` step that answers:
``agent.heartbeat.phases``):

- **appraise** (after ``receive``, before the first think step): classify the request's
  intent (``agent.heartbeat.effort``), start a fresh set of working memory slots with a
  ``question`` slot (and a ``context`` slot naming ``current_concept``); for the complex
  intents (temporal, synthesis, contradiction, procedural) run plan → search
  (``agent.memory.blend.blended_search``) → evaluate sufficiency, putting ``plan``,
  ``retrieved_fact`` and ``evaluation`` slots. It stops when the evaluation is sufficient
  or the rounds are spent; an insufficient first round re-queries once with a widened plan
  (a **self-correction**, counted). Hits on the request itself (just logged) are ignored.
- **monitor**: before the pressure check, fire the learner's reminders. The first pass of a
  request matches the request text and ``context.current_concept``; every pass matches the
  clock. Each fired reminder becomes a ``plan`` slot ``reminder-<id>`` (relevance 1.0,
  content ``REMINDER <id>: <description>``) and a ``{"phase": "reminder"}`` stream event.
  ``ReminderStore.fire`` moves it pending → triggered, so it fires exactly once.
- **act**: results of the search tools (``agent.heartbeat.slots.SEARCH_TOOLS``) become
  ``retrieved_fact`` slots (the top ``TOOL_HITS`` of each call).
- **finish**: report the effort (``memory_state["effort"]`` and an ``effort`` stream event),
  clear the slots. With synchronous logging it also consolidates due episodes
  (``EpisodeStore.consolidate_due``; errors logged, never fatal); with the kernel (the
  default) the worker consolidates right after it writes the messages.

Sufficiency (``effort.evaluate``, threshold ``SUFFICIENCY_THRESHOLD`` = 0.6 of the
request's content words covered by the hits), what the answer "used" (``effort.used_slots``)
and the relevance of retrieved slots (``slots.hit_slots``) are documented where they live.
Sensory memory: ``sense_request`` and ``sense_tool_outputs`` (called by ``receive`` and
``act``) capture raw input and attend to what the heartbeat logs.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import KAGError
from agent.heartbeat.chat_input import served_request
from agent.heartbeat.effort import (
    EFFORT,
    appraisal_rounds,
    classify_offline,
    evaluate,
    has_structured_output,
    new_effort,
    step_budget,
    used_slots,
    widen,
)
from agent.heartbeat.prompts import SUMMARY_INSTRUCTIONS
from agent.heartbeat.slots import (
    SEARCH_TOOLS,
    Slot,
    clear_slots,
    hit_slots,
    make_slot,
    merge_slots,
    reminder_slot,
    tool_hits,
)
from agent.heartbeat.state import HeartbeatState
from agent.heartbeat.wiring import Wiring
from agent.kernel.derive import turn_context_id
from agent.memory.blend import RetrievalPlan, blended_search
from agent.memory.sensory import trace_of
from agent.tracing import trace_config

log = logging.getLogger("kag.heartbeat.cognition")

ROUND_HITS = 8
"""Retrieved slots per appraisal search round."""
QUESTION_CHARS = 200
TOOL_SLOT_CHARS = 120
"""Content kept in a slot made from a search tool's result (the result itself is in the queue)."""
"""The ``question`` slot keeps this much of the request (the whole request is in the queue)."""
PASTE_CHARS = 2000
"""A request longer than this is captured in sensory memory as ``paste``, else ``request``."""

Node = Callable[..., Any]


def _store(stores: object, name: str) -> Any:
    """A cognitive store of the bundle, or None when this bundle has none (the step is skipped)."""
    return getattr(stores, name, None)


def _unique(*lists: Iterable[str]) -> list[str]:
    return list(dict.fromkeys(x for items in lists for x in items))


# ----- sensory memory (called by receive and act) -----
async def sense_request(
    stores: object, learner_id: str, request: str, context: Mapping[str, Any]
) -> list[dict]:
    """Take the request into sensory memory attended at once; capture the context payload.

    Returns the request's trace for ``RecallMessage.attended`` (its ``ATTENDED_TO`` link).
    The request is attended as it arrives (``SensoryBuffer.attended``: no round trip).
    The context payload is captured but not attended, so it expires. A sensory outage is
    logged and the request goes on without traces.
    """
    sensory = _store(stores, "sensory")
    if sensory is None:
        return []
    traces: list[dict] = []
    try:
        kind = "paste" if len(request) > PASTE_CHARS else "request"
        traces = [trace_of(sensory.attended(learner_id, kind, request))]
        if context:
            await sensory.capture(learner_id, "context", json.dumps(dict(context), default=str))
    except KAGError as exc:  # an outage, or a context payload over the buffer's size cap
        log.warning("sensory memory did not take the request or its context: %s", exc)
    return traces


def sense_tool_outputs(stores: object, learner_id: str, results: Sequence[AnyMessage]) -> dict[str, list]:
    """Tool outputs into sensory memory, attended at once (the heartbeat logs them in this step).

    Returns ``{message id: [trace]}`` for ``RecallMessage.attended``; failures are logged.
    """
    sensory = _store(stores, "sensory")
    if sensory is None:
        return {}
    traces: dict[str, list] = {}
    for message in results:
        try:
            item = sensory.attended(
                learner_id, "tool_output", message.text or "(empty)", meta={"tool": message.name or ""}
            )
        except KAGError as exc:
            log.warning("sensory memory did not take a %s output: %s", message.name, exc)
            continue
        traces[str(message.id)] = [trace_of(item)]
    return traces


def _brief(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def current_requests(state: Mapping[str, Any]) -> set[str]:
    """Ids of the request being served: a search hit on it is no evidence.

    Its recall message, and the ``turn_context`` memory the kernel worker derives from it
    (a background worker may drain the request before this turn's search runs).
    """
    queue = state.get("fifo_queue") or []
    last = next((m for m in reversed(queue) if isinstance(m, HumanMessage)), None)
    if last is None or not last.id:
        return set()
    return {str(last.id), turn_context_id(str(last.id))}


def _emit(runtime: Runtime[Context], phase: str, **data: Any) -> None:
    runtime.stream_writer({"phase": phase, **data})


def make_cognitive_nodes(wiring: Wiring, base: Mapping[str, Node]) -> dict[str, Node]:
    """``appraise`` plus ``monitor``, ``act`` and ``finish`` wrapped around ``base``'s phases."""
    base = dict(base)  # a snapshot: the caller may put the wrapped nodes into its own dict

    async def appraise(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Classify the intent, put the question slot; complex intents plan, search and evaluate."""
        ctx = Context.coerce(runtime.context)
        wired = wiring()
        learner_id, request = state["learner_id"], served_request(state)
        # Local, never a model call: a turn that needs no tool asks the model once (think).
        intent, method = classify_offline(request), "local"
        budget = step_budget(intent, ctx.max_steps)
        plan: RetrievalPlan = EFFORT[intent].plan
        effort = new_effort(intent, method, budget, plan.name)
        slots: list[Slot] = [
            clear_slots(),
            make_slot(
                "question",
                _brief(request, QUESTION_CHARS),
                id="question",
                relevance=1.0,
                source="request",
                meta={"intent": intent},
            ),
        ]
        concept = (state.get("context") or {}).get("current_concept")
        if concept:
            slots.append(make_slot("context", f"current concept: {concept}", id="concept", relevance=0.6))
        rounds = appraisal_rounds(intent, budget, request)
        asked = current_requests(state)
        for round_no in range(1, rounds + 1):
            slots.append(
                make_slot(
                    "plan",
                    f"intent={intent} budget={budget} search {plan.name}: sources={','.join(plan.sources)} "
                    f"k={plan.k} chronological={plan.chronological} history={plan.include_history} "
                    f"depth={plan.expand_depth}",
                    id=f"plan-{round_no}",
                    relevance=0.7,
                    source="appraise",
                )
            )
            try:
                found_hits = await blended_search(wired.stores, learner_id, request, plan)
                hits = [h for h in found_hits if h.id not in asked]  # not the request itself
            except Exception as exc:  # noqa: BLE001 - appraisal is advisory: the tools can still search
                if not isinstance(exc, KAGError):
                    log.exception("appraisal search failed")
                log.error("appraisal search failed: %s", exc)
                slots.append(
                    make_slot(
                        "evaluation",
                        f"round {round_no}: search failed ({type(exc).__name__}); use the search tools",
                        id=f"evaluation-{round_no}",
                        relevance=0.8,
                        source="appraise",
                    )
                )
                effort["rounds"] += 1
                break
            found = hit_slots(hits[:ROUND_HITS], "appraise", {"round": round_no})
            verdict = evaluate(request, hits)
            slots.extend(found)
            slots.append(
                make_slot(
                    "evaluation",
                    verdict.describe(round_no),
                    id=f"evaluation-{round_no}",
                    relevance=0.8,
                    source="appraise",
                    meta={"coverage": verdict.coverage, "sufficient": verdict.sufficient},
                )
            )
            effort.update(
                rounds=effort["rounds"] + 1,
                evaluations=effort["evaluations"] + 1,
                sufficient=verdict.sufficient,
                coverage=verdict.coverage,
                retrieved=_unique(effort["retrieved"], (s["id"] for s in found)),
            )
            if verdict.sufficient or round_no == rounds:
                break
            plan = widen(plan)  # self-correction: one re-query with a wider plan
            effort["self_corrections"] += 1
            effort["plan"] = plan.name
        kept = merge_slots([], slots)
        effort["retrieved"] = [i for i in effort["retrieved"] if any(s["id"] == i for s in kept)]
        _emit(
            runtime,
            "appraise",
            **{
                k: effort[k]
                for k in ("intent", "method", "budget", "plan", "rounds", "sufficient", "coverage")
            },
            self_corrections=effort["self_corrections"],
            slots=len(kept),
        )
        return {"slots": slots, "effort": effort}

    async def monitor(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Fire due reminders into working memory, then measure pressure (``base`` monitor)."""
        effort = dict(state.get("effort") or {})
        fired = await _fire_reminders(state, effort)
        slots = [reminder_slot(r) for r in fired]
        for reminder in fired:
            log.info("reminder %s fired", reminder.id)
            _emit(runtime, "reminder", id=reminder.id, description=reminder.description)
        effort["message_checked"] = True
        effort["reminders"] = _unique(effort.get("reminders", []), (r.id for r in fired))
        view = {**state, "slots": merge_slots(state.get("slots"), slots)} if slots else state
        update = await base["monitor"](view, runtime=runtime)
        return {**update, "effort": effort, **({"slots": slots} if slots else {})}

    async def _fire_reminders(state: HeartbeatState, effort: Mapping[str, Any]) -> list[Any]:
        reminders = _store(wiring().stores, "reminders")
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

    async def act(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Run the tools (``base`` act); search results become ``retrieved_fact`` slots."""
        update = await base["act"](state, config=config, runtime=runtime)
        slots: list[Slot] = []
        for message in update.get("fifo_queue", []):
            if (
                isinstance(message, ToolMessage)
                and message.name in SEARCH_TOOLS
                and message.status != "error"
            ):
                hits = [h for h in tool_hits(message) if h.id not in current_requests(state)]
                slots.extend(
                    # The full result is already in the queue: the slot only points at it.
                    hit_slots(hits, message.name, {"step": state.get("step", 0)}, chars=TOOL_SLOT_CHARS)
                )
        if not slots:
            return update
        effort = dict(state.get("effort") or {})
        effort["retrieved"] = _unique(effort.get("retrieved", []), (s["id"] for s in slots))
        return {**update, "slots": slots, "effort": effort}

    async def finish(state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
        """Report the effort, answer (``base`` finish), clear the slots, consolidate episodes."""
        wired = wiring()
        effort = {**new_effort("simple_recall", "local", 0, ""), **(state.get("effort") or {})}
        effort.pop("message_checked", None)
        held = state.get("slots") or []
        effort["retrieved"] = [i for i in effort["retrieved"] if any(s["id"] == i for s in held)]
        answer = state["fifo_queue"][-1].text if state.get("fifo_queue") else ""
        effort["think_steps"] = state.get("step", 0)
        effort["steps_used"] = effort["rounds"] + effort["think_steps"]
        effort["used"] = used_slots(answer, held, effort["retrieved"])
        _emit(runtime, "effort", **effort)
        update = await base["finish"](state, config=config, runtime=runtime)
        consolidated = None
        if getattr(getattr(wired.stores, "recall", None), "kernel", None) is None:
            # Synchronous logging only: with the kernel, the worker consolidates after it writes.
            consolidated = await _consolidate(wired.stores, wired.resources.chat_model, state["learner_id"])
        memory_state = {**update.get("memory_state", {}), "effort": effort}
        if consolidated:
            memory_state["consolidated_episode"] = consolidated
        return {**update, "memory_state": memory_state, "effort": effort, "slots": [clear_slots()]}

    return {"appraise": appraise, "monitor": monitor, "act": act, "finish": finish}


async def _consolidate(stores: object, model: BaseChatModel | None, learner_id: str) -> str | None:
    """Consolidate due episodes (with the model when it is an LLM); the new id, or None."""
    episodes = _store(stores, "episodes")
    if episodes is None:
        return None
    summarise = _model_summariser(model, learner_id) if has_structured_output(model) else None
    try:
        record = await episodes.consolidate_due(learner_id, summarise=summarise)
    except Exception as exc:  # noqa: BLE001 - consolidation is derived data: it is redone later
        log.error("episode consolidation failed: %s", exc)
        return None
    return str(record["id"]) if record else None


def _model_summariser(model: BaseChatModel, learner_id: str) -> Callable[[Sequence[str]], Any]:
    async def summarise(texts: Sequence[str]) -> str:
        prompt = SUMMARY_INSTRUCTIONS.format(
            previous="(none)", excerpt="\n".join(f"- user: {t}" for t in texts)
        )
        reply = await model.ainvoke([HumanMessage(content=prompt)], trace_config(learner_id, "consolidate"))
        return reply.text

    return summarise
