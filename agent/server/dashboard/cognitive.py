"""Facts (what is true now, and what was true before) and reminders, in a learner's words.

Read through ``FactStore.history`` (every version, newest first) and
``ReminderStore.list``: a slot's versions are its history ("was “I live in Da Nang” from
3 Jan until 14 Feb"). Nothing here carries an internal id: the learner reads what the fact
is about (``agent.server.dashboard.words``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agent.memory.facts import FactStore
from agent.memory.reminders import ReminderStore
from agent.resources import Resources
from agent.server.dashboard.words import aspect_words, day_words


def _stores(resources: Resources) -> dict[str, Any]:
    return {"database": resources.database, "clock": resources.clock}


def _slot_of(records: list[dict[str, Any]]) -> dict[str, tuple[str, str]]:
    """Each fact id's slot; a fact another one superseded joins the newer one's slot."""
    slot = {f["id"]: (str(f.get("subject") or ""), str(f.get("predicate") or "")) for f in records}
    for fact in reversed(records):  # oldest first, so a chain of changes ends in the newest slot
        for old in fact.get("superseded") or []:
            if old in slot:
                slot[old] = slot[fact["id"]]
    return slot


def _version(fact: dict[str, Any], now: datetime) -> dict[str, Any]:
    """One version in words: ``text``, its dates, and a ``summary`` line."""
    text = str(fact.get("content") or "")
    since, until = day_words(fact.get("valid_from"), now), day_words(fact.get("valid_to"), now)
    if fact.get("valid_to"):
        summary = f"was “{text}”" + (f" from {since}" if since else "") + f" until {until}"
    else:
        summary = text + (f" (since {since})" if since else "")
    return {"text": text, "since": since, "until": until or None, "summary": summary}


def group_facts(records: list[dict[str, Any]], now: datetime) -> list[dict[str, Any]]:
    """Fact versions (newest first) by slot: ``{about, current, history}``, history newest first."""
    slot_of = _slot_of(records)
    slots: dict[tuple[str, str], dict[str, Any]] = {}
    for fact in records:
        key = slot_of[fact["id"]]
        about = aspect_words(key[0], key[1], fact.get("concept"))
        slot = slots.setdefault(key, {"about": about, "current": None, "history": []})
        version = _version(fact, now)
        if fact.get("valid_to") is None and slot["current"] is None:
            slot["current"] = version
        else:
            slot["history"].append(version)
    return list(slots.values())


async def facts_view(resources: Resources, learner_id: str) -> dict[str, Any]:
    """``{available, slots: [{about, current, history}]}``."""
    store = FactStore(resources.neo4j, resources.embeddings, **_stores(resources))
    records = [r.to_dict() for r in await store.history(learner_id, limit=200)]
    return {"available": True, "slots": group_facts(records, resources.clock())}


def reminder_words(record: dict[str, Any], now: datetime) -> dict[str, Any]:
    """A reminder without its id: what, when it comes back, and its status."""
    when = []
    if record.get("keywords"):
        when.append("when you mention " + ", ".join(record["keywords"]))
    if record.get("due_at"):
        when.append("on " + day_words(record["due_at"], now))
    summary = str(record.get("description") or "") + (" — " + " or ".join(when) if when else "")
    return {
        "description": record.get("description"),
        "when": " or ".join(when),
        "status": record.get("status") or "pending",
        "due_at": record.get("due_at"),
        "set_on": day_words(record.get("created_at"), now),
        "summary": summary,
    }


async def reminders_view(resources: Resources, learner_id: str) -> dict[str, Any]:
    """``{available, pending: [...], triggered: [...], resolved: [...]}``, each item in words."""
    store = ReminderStore(resources.neo4j, resources.embeddings, **_stores(resources))
    now = resources.clock()
    view: dict[str, Any] = {"available": True, "pending": [], "triggered": [], "resolved": []}
    for record in await store.list(learner_id):
        item = reminder_words(record.to_dict(), now)
        view.setdefault(item["status"], []).append(item)
    return view
