"""What a consultation keeps from what it read, and how confident it is (pure functions).

**Topic filters** (``concept_matches``): a concept passes when no filter is given, or it
equals a filter or lies under one (``sql`` covers ``sql.joins``), case-insensitive.
Search hits tagged with another concept are dropped; untagged hits stay.

**Core knowledge** (``core_knowledge``): the learner's current facts with the highest
activation decayed to now (``agent.memory.activation.decayed``), at least
``CORE_MIN_ACTIVATION``, at most ``CORE_FACTS``, and not already among the search hits.

**Insights and patterns** (``match_reflections``) match the query when they share a
content word (light stems, ``agent.heartbeat.effort.content_stems``) with it, or when
their concept is a filter or the concept of a search hit. Matches rank by words shared,
then decayed activation.

**Proactive alerts** (``alerts``): pending reminders that would fire on the query (its
text, the topic filters as concepts, or a due time: ``reminder_rules.trigger_matches``;
only peeked, never fired), then matched patterns of kind ``recurring_error``.

**Confidence** (``confidence``) comes from retrieval evidence only::

    confidence = coverage * (0.4 + 0.35 * agreement + 0.25 * volume)

``coverage`` is the share of the query's content words found in the hits and matched
insights (0 when nothing was found, so an unrelated nearest neighbour is no evidence),
``agreement`` the distinct sources that found something (``min(1, sources / 3)``) and
``volume`` ``min(1, items / 5)``. Core knowledge is context, not evidence: it never raises it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from agent.heartbeat.effort import content_stems, evaluate
from agent.memory.activation import decayed
from agent.memory.reminder_rules import trigger_matches
from agent.search.results import SearchHit

CORE_FACTS = 3
"""Core facts added to a consultation at most."""
CORE_MIN_ACTIVATION = 0.5
"""Decayed activation a current fact needs to count as core knowledge (a new fact has 1.0)."""
REFLECTIONS = 5
"""Insights, and patterns, kept at most."""
AGREEMENT_SOURCES = 3
VOLUME_ITEMS = 5
RECURRING_ERROR = "recurring_error"
TEXT_CHARS = 400
"""Text kept per item of the response (as the tools' compact output)."""


def concept_matches(concept: object, topics: Sequence[str]) -> bool:
    """True when ``concept`` passes the topic filters (module docstring)."""
    if not topics:
        return True
    value = str(concept or "").strip().lower()
    return bool(value) and any(value == t or value.startswith(t + ".") for t in topics)


def _cut(text: object) -> str:
    value = str(text or "")
    return value if len(value) <= TEXT_CHARS else value[: TEXT_CHARS - 1] + "…"


def hit_row(hit: SearchHit) -> dict[str, Any]:
    """A search hit as a response row (``origin="search"``)."""
    meta = hit.metadata
    row: dict[str, Any] = {
        "id": hit.id,
        "text": _cut(hit.text),
        "kind": hit.kind,
        "store": meta.get("store"),
        "score": round(float(hit.score), 6),
        "created_at": hit.created_at,
        "origin": "search",
    }
    for key in ("concept", "current", "predicate", "session_id", "role"):
        if meta.get(key) is not None:
            row[key] = meta[key]
    return row


def filter_hits(hits: Iterable[SearchHit], topics: Sequence[str]) -> list[SearchHit]:
    """Hits that pass the topic filters: untagged ones, and tagged ones with a matching concept."""
    return [
        h for h in hits if not h.metadata.get("concept") or concept_matches(h.metadata["concept"], topics)
    ]


def _activation(row: Mapping[str, Any], now: datetime) -> float:
    return decayed(float(row.get("activation") or 0.0), row.get("last_access"), now)


def core_knowledge(
    rows: Iterable[Mapping[str, Any]], exclude: Iterable[str], now: datetime
) -> list[dict[str, Any]]:
    """The most active current facts not already found (module docstring), as response rows."""
    skip = set(exclude)
    ranked = []
    for row in rows:
        activation = _activation(row, now)
        if row["id"] in skip or activation < CORE_MIN_ACTIVATION:
            continue
        ranked.append((activation, row))
    ranked.sort(key=lambda pair: (-pair[0], pair[1]["id"]))
    return [
        {
            "id": row["id"],
            "text": _cut(row.get("text")),
            "kind": "fact",
            "store": "core",
            "activation": round(activation, 4),
            "created_at": row.get("valid_from"),
            "concept": row.get("concept"),
            "current": True,
            "origin": "core",
        }
        for activation, row in ranked[:CORE_FACTS]
    ]


def match_reflections(
    rows: Iterable[Mapping[str, Any]],
    text_key: str,
    query: str,
    concepts: Iterable[str],
    topics: Sequence[str],
    now: datetime,
) -> list[dict[str, Any]]:
    """Insights (``text_key="text"``) or patterns (``"description"``) matching the query, best first."""
    wanted = content_stems(query)
    related = {str(c).lower() for c in concepts if c} | set(topics)
    ranked = []
    for row in rows:
        concept = str(row.get("concept") or "").lower()
        shared = len(wanted & content_stems(f"{row.get(text_key) or ''} {concept.replace('.', ' ')}"))
        if not shared and not (concept and concept in related):
            continue
        ranked.append((shared, _activation(row, now), row))
    ranked.sort(key=lambda r: (-r[0], -r[1], str(r[2]["id"])))
    out = []
    for shared, activation, row in ranked[:REFLECTIONS]:
        item = {k: v for k, v in row.items() if k != "last_access" and v is not None}
        item[text_key] = _cut(row.get(text_key))
        item.update(activation=round(activation, 4), shared_words=shared)
        out.append(item)
    return out


def alerts(
    reminders: Iterable[Mapping[str, Any]],
    patterns: Iterable[Mapping[str, Any]],
    query: str,
    topics: Sequence[str],
    now: datetime,
) -> list[dict[str, Any]]:
    """Pending reminders the query would fire (peeked) and matched recurring-error patterns."""
    out: list[dict[str, Any]] = []
    for reminder in reminders:
        fires = trigger_matches(reminder, query, None, now) or any(
            trigger_matches(reminder, None, topic, now) for topic in topics
        )
        if fires:
            out.append(
                {
                    "kind": "reminder",
                    "id": reminder["id"],
                    "text": _cut(reminder.get("description")),
                    "trigger": reminder.get("trigger_kind"),
                    "due_at": reminder.get("due_at"),
                    "priority": reminder.get("priority", 2),
                }
            )
    out.sort(key=lambda a: (a["priority"], a["id"]))
    for pattern in patterns:
        if pattern.get("kind") == RECURRING_ERROR:
            out.append(
                {
                    "kind": RECURRING_ERROR,
                    "id": pattern["id"],
                    "text": _cut(pattern.get("description")),
                    "concept": pattern.get("concept"),
                    "count": pattern.get("count"),
                }
            )
    return out


def confidence(
    query: str,
    hits: Sequence[SearchHit],
    insights: Sequence[Mapping[str, Any]],
    patterns: Sequence[Mapping[str, Any]],
) -> tuple[float, dict[str, Any]]:
    """``(confidence, its inputs)`` from the retrieval evidence (module docstring)."""
    texts = [*hits, *(_as_hit(i, "text") for i in insights), *(_as_hit(p, "description") for p in patterns)]
    items = len(texts)
    sources = {str(h.metadata.get("store") or h.kind) for h in hits}
    sources |= {"insights"} if insights else set()
    sources |= {"patterns"} if patterns else set()
    if not items:
        return 0.0, {"coverage": 0.0, "sources": [], "items": 0, "missing": sorted(content_stems(query))}
    judged = evaluate(query, texts)
    agreement = min(1.0, len(sources) / AGREEMENT_SOURCES)
    volume = min(1.0, items / VOLUME_ITEMS)
    value = judged.coverage * (0.4 + 0.35 * agreement + 0.25 * volume)
    basis = {
        "coverage": judged.coverage,
        "sources": sorted(sources),
        "items": items,
        "missing": list(judged.missing),
    }
    return round(min(1.0, value), 3), basis


def _as_hit(row: Mapping[str, Any], text_key: str) -> SearchHit:
    text = f"{row.get(text_key) or ''} {str(row.get('concept') or '').replace('.', ' ')}"
    return SearchHit(id=str(row["id"]), text=text, score=0.0, created_at=None, kind="reflection")
