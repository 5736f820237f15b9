"""Facts (with their validity and history) and reminders, through the cognitive memory stores.

Built against the issue-13 contract: ``agent.memory.facts.FactStore.history`` (every
version, newest first) and ``agent.memory.reminders.ReminderStore.list``. The stores
are imported when first used; a server without them answers ``available: false``
instead of failing the page.
"""

from __future__ import annotations

import importlib
from typing import Any

from agent.resources import Resources


def _store(module: str, name: str, resources: Resources) -> Any | None:
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None
    return cls(resources.neo4j, resources.embeddings, database=resources.database, clock=resources.clock)


def _history_line(fact: dict[str, Any]) -> str:
    """``was “I live in Da Nang” until 2026-02-14`` for a retired version; ``since …`` for a current one."""
    content = str(fact.get("content") or "")
    until, since = fact.get("valid_to"), fact.get("valid_from")
    if until:
        return f"was “{content}” until {str(until)[:10]}"
    return f"{content} since {str(since)[:10]}" if since else content


def group_facts(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group fact versions by slot (subject, predicate): the current one and its history."""
    slots: dict[tuple[str, str], dict[str, Any]] = {}
    for fact in records:  # newest first
        key = (str(fact.get("subject") or ""), str(fact.get("predicate") or ""))
        slot = slots.setdefault(key, {"subject": key[0], "predicate": key[1], "current": None, "history": []})
        line = {**fact, "summary": _history_line(fact)}
        if fact.get("valid_to") is None and slot["current"] is None:
            slot["current"] = line
        else:
            slot["history"].append(line)
    return list(slots.values())


async def facts_view(resources: Resources, learner_id: str) -> dict[str, Any]:
    """``{available, slots: [{subject, predicate, current, history}]}``."""
    store = _store("agent.memory.facts", "FactStore", resources)
    if store is None:
        return {"available": False, "slots": []}
    records = [r.to_dict() for r in await store.history(learner_id, limit=200)]
    return {"available": True, "slots": group_facts(records)}


async def reminders_view(resources: Resources, learner_id: str) -> dict[str, Any]:
    """``{available, pending: [...], triggered: [...], resolved: [...]}``."""
    store = _store("agent.memory.reminders", "ReminderStore", resources)
    if store is None:
        return {"available": False, "pending": [], "triggered": [], "resolved": []}
    records = [r.to_dict() for r in await store.list(learner_id)]
    view: dict[str, Any] = {"available": True, "pending": [], "triggered": [], "resolved": []}
    for record in records:
        view.setdefault(str(record.get("status") or "pending"), []).append(record)
    return view
