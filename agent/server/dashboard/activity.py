"""What a learner cares about over time: what was learned when, what is due, what came back.

The memory page's chart and lists, read from Neo4j for one learner:

- **learned**: per day, the notes written and the facts told (``Note.created_at``,
  ``Fact.recorded_at``), and the memories that came back (``last_access`` of a recalled
  memory: a fact, procedure or insight a later turn read);
- **due**: the pending reminders, in words (``cognitive.reminders_view``);
- **sessions**: every session the learner held, from the recall messages grouped by
  ``session_id`` (CLI sessions too: they run the same graph), named by date and topic.

No internal id reaches the page: days are "12 May", sessions carry no thread id.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from agent.graphdb.store import Neo4jStore, fetch
from agent.resources import Resources
from agent.server.dashboard.cognitive import reminders_view
from agent.server.dashboard.queries import LEARNED_BY_DAY, RECALLED, SESSION_NOTES, SESSIONS
from agent.server.dashboard.words import day_words, session_name, topic_words

DAYS = 30
MAX_SESSIONS = 20
MAX_RECALLED = 8
KINDS = ("notes", "facts", "recalled")


def day_series(rows: list[dict[str, Any]], now: datetime, days: int = DAYS) -> list[dict[str, Any]]:
    """One entry per day with activity (oldest first): ``{day, label, notes, facts, recalled}``."""
    by_day: dict[str, dict[str, Any]] = {}
    for row in rows:
        day = str(row["day"])
        entry = by_day.setdefault(day, {"day": day, "label": day_words(day, now), **dict.fromkeys(KINDS, 0)})
        if row["kind"] in KINDS:
            entry[row["kind"]] += int(row["n"])
    first = (now - timedelta(days=days)).date().isoformat()
    return [by_day[d] for d in sorted(by_day) if d >= first]


def name_sessions(
    rows: list[dict[str, Any]], concepts: dict[str, list[str]], now: datetime
) -> list[dict[str, Any]]:
    """Sessions in words: ``{name, day, turns, notes, topic}``; no session id."""
    out = []
    for row in rows:
        notes = concepts.get(row["session_id"], [])
        topic = notes[0] if notes else topic_words(row.get("first_words") or "")
        out.append(
            {
                "name": session_name(row["started"], topic, None, now),
                "day": day_words(row["started"], now),
                "topic": topic,
                "turns": int(row.get("turns") or 0),
                "notes": notes,
            }
        )
    return out


class ActivityReads(Neo4jStore):
    """The activity views of one learner at a time (every query filters by ``$learner_id``)."""

    async def sessions(self, learner_id: str, limit: int = MAX_SESSIONS) -> list[dict[str, Any]]:
        """The learner's sessions, newest first, named by date and topic."""
        rows = await self.read(lambda tx: fetch(tx, SESSIONS, learner_id=learner_id, limit=limit))
        ids = [r["session_id"] for r in rows]
        notes = await self.read(lambda tx: fetch(tx, SESSION_NOTES, learner_id=learner_id, sessions=ids))
        concepts = {r["session_id"]: [c for c in r["concepts"] if c] for r in notes}
        return name_sessions(rows, concepts, self.clock())

    async def learned(self, learner_id: str, days: int = DAYS) -> list[dict[str, Any]]:
        """Per day: notes written, facts told, memories that came back."""
        now = self.clock()
        since = (now - timedelta(days=days)).date().isoformat()
        rows = await self.read(lambda tx: fetch(tx, LEARNED_BY_DAY, learner_id=learner_id, since=since))
        return day_series(rows, now, days)

    async def recalled(self, learner_id: str, limit: int = MAX_RECALLED) -> list[dict[str, Any]]:
        """What came back most recently: ``{text, day, times}``."""
        rows = await self.read(lambda tx: fetch(tx, RECALLED, learner_id=learner_id, limit=limit))
        now = self.clock()
        return [
            {"text": topic_words(r["text"], 16), "day": day_words(r["last_access"], now), "times": r["times"]}
            for r in rows
            if r["text"]
        ]


async def activity_view(resources: Resources, learner_id: str) -> dict[str, Any]:
    """``{days, due, sessions, recalled}`` for the memory page's chart and lists."""
    reads = ActivityReads.for_resources(resources)
    reminders = await reminders_view(resources, learner_id)
    return {
        "days": await reads.learned(learner_id),
        "due": reminders["pending"],
        "sessions": await reads.sessions(learner_id),
        "recalled": await reads.recalled(learner_id),
    }
