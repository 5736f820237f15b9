"""Appraisal, the second phase of ``receive``: intent, step budget and, when it pays, retrieval.

Classify the request's intent (``agent.heartbeat.effort.classify``: never a model call)
and start a fresh set of working memory slots with a ``question`` slot. For the complex
intents (temporal, synthesis, contradiction, procedural) run plan → search → evaluate
sufficiency into slots, until the evaluation is sufficient or the rounds are spent; an
insufficient first round re-queries once with a widened plan (a **self-correction**).
Hits on the request itself (just logged) are ignored.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import KAGError
from agent.heartbeat.chat_input import served_request
from agent.heartbeat.effort import (
    EFFORT,
    appraisal_rounds,
    classify,
    evaluate,
    new_effort,
    step_budget,
    widen,
)
from agent.heartbeat.slots import Slot, clear_slots, hit_slots, make_slot, merge_slots
from agent.heartbeat.turn import current_requests, emit, run_context, unique
from agent.heartbeat.wiring import Wiring
from agent.memory.blend import RetrievalPlan, blended_search

log = logging.getLogger("kag.heartbeat.cognition")

ROUND_HITS = 8
"""Retrieved slots per appraisal search round."""
QUESTION_CHARS = 200
"""The ``question`` slot keeps this much of the request (the whole request is in the queue)."""


async def appraise(wiring: Wiring, state: Mapping[str, Any], runtime: Runtime[Context]) -> dict:
    """Classify the intent, put the question slot; complex intents plan, search and evaluate."""
    ctx = run_context(runtime)
    learner_id, request = state["learner_id"], served_request(state)
    # Local, never a model call: a turn that needs no tool asks the model once (think).
    # Memory (a read that leaves activation alone) is asked only when the words ask for one value.
    intent = await classify(wiring().stores.facts, learner_id, request)
    budget = step_budget(intent, ctx.max_steps)
    plan: RetrievalPlan = EFFORT[intent].plan
    effort = new_effort(intent, "local", budget, plan.name)
    slots = opening_slots(request, intent, (state.get("context") or {}).get("current_concept"))
    rounds = appraisal_rounds(intent, budget, request)
    asked = current_requests(state)
    for round_no in range(1, rounds + 1):
        slots.append(plan_slot(round_no, intent, budget, plan))
        try:
            found_hits = await blended_search(wiring().stores, learner_id, request, plan)
            hits = [h for h in found_hits if h.id not in asked]  # not the request itself
        except Exception as exc:  # noqa: BLE001 - appraisal is advisory: the tools can still search
            slots.append(failed_search_slot(round_no, exc))
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
            retrieved=unique(effort["retrieved"], (s["id"] for s in found)),
        )
        if verdict.sufficient or round_no == rounds:
            break
        plan = widen(plan)  # self-correction: one re-query with a wider plan
        effort["self_corrections"] += 1
        effort["plan"] = plan.name
    kept = merge_slots([], slots)
    effort["retrieved"] = [i for i in effort["retrieved"] if any(s["id"] == i for s in kept)]
    reported = ("intent", "method", "budget", "plan", "rounds", "sufficient", "coverage")
    emit(
        runtime,
        "appraise",
        **{k: effort[k] for k in reported},
        self_corrections=effort["self_corrections"],
        slots=len(kept),
    )
    return {"slots": slots, "effort": effort}


def brief(text: str, limit: int) -> str:
    """``text`` on one line, cut to ``limit`` characters with an ellipsis."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def opening_slots(request: str, intent: str, concept: str | None) -> list[Slot]:
    """A fresh set of slots: the clear sentinel, the question and the session's concept."""
    slots: list[Slot] = [
        clear_slots(),
        make_slot(
            "question",
            brief(request, QUESTION_CHARS),
            id="question",
            relevance=1.0,
            source="request",
            meta={"intent": intent},
        ),
    ]
    if concept:
        slots.append(make_slot("context", f"current concept: {concept}", id="concept", relevance=0.6))
    return slots


def plan_slot(round_no: int, intent: str, budget: int, plan: RetrievalPlan) -> Slot:
    """The ``plan`` slot of one appraisal round: what is searched, and how."""
    return make_slot(
        "plan",
        f"intent={intent} budget={budget} search {plan.name}: sources={','.join(plan.sources)} "
        f"k={plan.k} chronological={plan.chronological} history={plan.include_history} "
        f"depth={plan.expand_depth}",
        id=f"plan-{round_no}",
        relevance=0.7,
        source="appraise",
    )


def failed_search_slot(round_no: int, exc: Exception) -> Slot:
    """Log a failed appraisal search; the ``evaluation`` slot that sends the model to the tools."""
    if not isinstance(exc, KAGError):
        log.exception("appraisal search failed")
    log.error("appraisal search failed: %s", exc)
    return make_slot(
        "evaluation",
        f"round {round_no}: search failed ({type(exc).__name__}); use the search tools",
        id=f"evaluation-{round_no}",
        relevance=0.8,
        source="appraise",
    )
