"""Curation, prioritisation and decay: the three reflection steps that maintain what is stored.

- **curation** resolves contradictions through the bi-temporal facts, with the fact
  store's own Cypher: a slot ``(subject, predicate)`` holding more than one current fact
  keeps the newest, and current facts that say the same thing with opposite polarity
  (``rules.contradicts``) keep the newest; the others are superseded. At most ``limit``
  facts retired per run.
- **prioritisation** updates the activation of insights and patterns with
  ``agent.memory.activation``'s law, counting each evidence item once as one access at its
  own time, so a new insight from old evidence starts low (recency) and one with much fresh
  evidence starts high (frequency).
- **decay**, hourly: an insight or pattern whose ``last_access`` is at least an hour old is
  rolled forward by whole hours (``DECAY_PER_HOUR``, the one decay law). A lazy reader's
  value is the same before and after (``decayed`` composes), a second run within the hour
  changes nothing, and a read's boost in between wins (the write is conditional on the
  ``last_access`` read). The other memories decay when read.

Times come from the store's injected clock (``agent.clock``; ``ManualClock`` in tests).
"""

from __future__ import annotations

import math
from datetime import datetime, timedelta
from typing import Any

from agent.clock import as_aware
from agent.kernel.reflection.reports import StepReport
from agent.kernel.reflection.rules import polarity_key
from agent.kernel.reflection.store import ReflectionStore
from agent.memory.activation import READ_BOOST, decayed, hours_since

OPEN_SLOT_CAP = 500
"""Current facts in slots of their own that curation compares per run."""


def negation_conflicts(facts: list[dict[str, Any]]) -> list[tuple[dict[str, Any], list[str]]]:
    """``(winner, loser ids)`` per group of facts equal up to negation (``facts`` newest first)."""
    groups: dict[str, list[tuple[dict[str, Any], bool]]] = {}
    for fact in facts:
        base, negated = polarity_key(fact.get("text") or "")
        if base:
            groups.setdefault(base, []).append((fact, negated))
    out = []
    for members in groups.values():
        winner, polarity = members[0]
        losers = [f["id"] for f, negated in members[1:] if negated != polarity]
        if losers:
            out.append((winner, losers))
    return out


async def curation(store: ReflectionStore, learner_id: str, *, limit: int) -> StepReport:
    """Supersede contradicting current facts (module docstring)."""
    report = StepReport("curation")
    budget = limit

    async def retire(winner: dict[str, Any], old_ids: list[str]) -> int:
        nonlocal budget
        retired = await store.retire(learner_id, winner, old_ids[:budget])
        report.superseded += retired
        if retired:
            report.updated.append(winner["id"])
        budget -= len(retired)
        return len(retired)

    slots = await store.duplicate_slots(learner_id, limit)
    report.scanned = sum(len(s["facts"]) for s in slots)
    for slot in slots:
        await retire(slot["facts"][0], [f["id"] for f in slot["facts"][1:]])
        if budget <= 0:
            break
    negations = 0
    if budget > 0:
        facts = await store.open_slot_facts(learner_id, OPEN_SLOT_CAP)
        report.scanned += len(facts)
        for winner, losers in negation_conflicts(facts):
            negations += await retire(winner, losers)
            if budget <= 0:
                break
    report.details = {"duplicate_slots": len(slots), "negations": negations}
    return report


def activation_of(
    activation: float, last_access: str | None, fresh: list[str | None], now: datetime
) -> float:
    """The stored activation decayed to ``now`` plus one decayed ``READ_BOOST`` per fresh access time."""
    total = decayed(activation, last_access, now) if last_access else max(0.0, float(activation or 0.0))
    total += sum(decayed(READ_BOOST, t, now) for t in fresh if t)
    return round(total, 9)


async def prioritisation(store: ReflectionStore, learner_id: str, *, limit: int) -> StepReport:
    """Count new evidence into the activation of insights and patterns (module docstring)."""
    report = StepReport("prioritisation")
    due = await store.due_priority(learner_id, limit)
    report.scanned = len(due)
    now = store.clock()
    rows = []
    for node in due:
        times = [f["at"] for f in node["fresh"]]
        activation = activation_of(float(node["activation"] or 0.0), node["last_access"], times, now)
        rows.append(
            {"id": node["id"], "activation": activation, "evidence": [f["id"] for f in node["fresh"]]}
        )
    await store.set_priority(learner_id, rows, as_aware(now).isoformat())
    report.updated = [r["id"] for r in rows]
    report.details = {"evidence_counted": sum(len(r["evidence"]) for r in rows)}
    return report


def hourly(activation: float, since: str, now: datetime) -> tuple[float, str] | None:
    """``(activation decayed by the whole hours since since, since + those hours)``, or None (< 1 h)."""
    hours = math.floor(hours_since(since, now))
    if hours < 1:
        return None
    until = as_aware(datetime.fromisoformat(since)) + timedelta(hours=hours)
    return round(decayed(activation, since, until), 9), until.isoformat()


async def decay(store: ReflectionStore, learner_id: str, *, limit: int) -> StepReport:
    """Decay the activation of insights and patterns hourly (module docstring)."""
    report = StepReport("decay")
    now = store.clock()
    cutoff = (as_aware(now) - timedelta(hours=1)).isoformat()
    due = await store.due_decay(learner_id, cutoff, limit)
    report.scanned = len(due)
    rows = []
    for node in due:
        step = hourly(float(node["activation"] or 0.0), node["last_access"], now)
        if step is not None:
            rows.append(
                {"id": node["id"], "activation": step[0], "until": step[1], "was": node["last_access"]}
            )
    report.updated = await store.set_decay(learner_id, rows)
    return report
