"""Anticipation: the learner's behaviour and error patterns, as ``:Memory:Pattern`` nodes.

Offline rules over the signals synthesis stored on scanned items and the learner's
message times (no model):

- ``recurring_error``: at least ``MIN_ERRORS`` items with an error signal of one error
  kind about one concept; the concept is aggregated over the kind's events
  (``error_groups``), so one statement's wider phrase ("pandas merge failed") still counts.
- ``bottleneck``: a concept with at least ``BOTTLENECK_MIN`` struggle/error items, or 2 in
  2 or more sessions; ``resolved`` once a breakthrough came after the last struggle.
- ``time_of_day``: the day part (UTC) holding most of the learner's messages
  (``activity: 'study'``) or of their struggles (``activity: 'struggle'``), once there are
  enough of them; one pattern per activity, updated when the day part moves.

Ids hash (learner, kind, concept[, error kind]) or, for time of day, (learner, kind,
activity): reruns MERGE. Patterns are written only when they differ from the stored
ones, at most ``limit`` per run, so a rerun with nothing new writes nothing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from agent.kernel.reflection.reports import StepReport
from agent.kernel.reflection.rules import ERROR, day_part, stable_id
from agent.kernel.reflection.store import ReflectionStore
from agent.kernel.reflection.synthesis import (
    SIGNAL_CAP,
    ConceptSignals,
    Evidence,
    by_concept,
    changes,
    distinct_items,
    evidence_rows,
    parse_signals,
)

MIN_ERRORS = 2
BOTTLENECK_MIN = 3
MIN_MESSAGES = 6
STUDY_SHARE = 0.5
MIN_STRUGGLES_TIMED = 3
STRUGGLE_SHARE = 0.6
TIME_EVIDENCE = 20
DAY_PARTS = {
    "night": range(0, 6),
    "morning": range(6, 12),
    "afternoon": range(12, 18),
    "evening": range(18, 24),
}


def _pattern(learner_id: str, kind: str, key: tuple[str, ...], props: dict[str, Any], evidence: list) -> dict:
    node_id = stable_id("pattern", learner_id, kind, *key)
    rows = evidence if evidence and isinstance(evidence[0], dict) else evidence_rows(evidence)
    return {"id": node_id, "props": {"kind": kind, "source": "rules", **props}, "evidence": rows}


def _grams(words: tuple[str, ...]) -> set[tuple[str, ...]]:
    return {words[i:j] for i in range(len(words)) for j in range(i + 1, len(words) + 1)}


def error_groups(evidence: list[Evidence]) -> dict[tuple[str, str], list[Evidence]]:
    """A learner's error events grouped by (concept, error kind), the concept aggregated across events.

    Events of one kind are clustered by the longest run of concept words that at least
    ``MIN_ERRORS`` of them share ("pandas merge" in "panda merge" and "panda merge
    failed"): the most shared run first (ties: the longest, then alphabetical), then the
    rest again. Events no run gathers keep their own concept.
    """
    by_kind: dict[str, list[Evidence]] = {}
    for ev in evidence:
        if ev.signal.kind == ERROR and ev.signal.error_kind:
            by_kind.setdefault(ev.signal.error_kind, []).append(ev)
    groups: dict[tuple[str, str], list[Evidence]] = {}
    for kind, events in by_kind.items():
        left = list(events)
        while True:
            support: dict[tuple[str, ...], set[str]] = {}
            for ev in left:
                for gram in _grams(tuple(ev.signal.concept.split())):
                    support.setdefault(gram, set()).add(ev.id)
            shared = [(len(ids), len(g), g) for g, ids in support.items() if len(ids) >= MIN_ERRORS]
            if not shared:
                break
            gram = min(shared, key=lambda t: (-t[0], -t[1], t[2]))[2]
            hit = [ev for ev in left if ev.id in support[gram]]
            groups.setdefault((" ".join(gram), kind), []).extend(hit)
            left = [ev for ev in left if ev.id not in support[gram]]
        for ev in left:
            groups.setdefault((ev.signal.concept, kind), []).append(ev)
    return groups


def recurring_errors(learner_id: str, evidence: list[Evidence]) -> list[dict[str, Any]]:
    """``recurring_error`` patterns: one per aggregated (concept, error kind) seen in 2+ items."""
    out = []
    for (concept, kind), items in sorted(error_groups(evidence).items()):
        count = distinct_items(items)
        if count < MIN_ERRORS:
            continue
        names = [e.signal.name for e in items if e.signal.concept == concept]
        name = Counter(names).most_common(1)[0][0] if names else concept
        sessions = len({e.session for e in items})
        what = "mistakes" if kind == "mistake" else kind
        description = f"Recurring {what}" + (f" with {name}" if name else "")
        description += f": {count} times in {sessions} session(s)."
        props = {
            "concept": concept,
            "concept_name": name,
            "error_kind": kind,
            "count": count,
            "sessions": sessions,
            "status": "active",
            "description": description,
            "last_evidence_at": max(e.at for e in items),
        }
        out.append(_pattern(learner_id, "recurring_error", (concept, kind), props, items))
    return out


def bottlenecks(learner_id: str, groups: dict[str, ConceptSignals]) -> list[dict[str, Any]]:
    """``bottleneck`` patterns: concepts the learner keeps struggling with."""
    out = []
    for key, group in sorted(groups.items()):
        count = distinct_items(group.struggles)
        sessions = len({e.session for e in group.struggles})
        if not (count >= BOTTLENECK_MIN or (count >= 2 and sessions >= 2)):
            continue
        last = max(e.at for e in group.struggles)
        resolved = any(b.at > last for b in group.breakthroughs)
        description = f"Bottleneck: {group.name}, {count} struggles across {sessions} session(s)"
        description += ", resolved by a later breakthrough." if resolved else ", not resolved yet."
        props = {
            "concept": key,
            "concept_name": group.name,
            "count": count,
            "sessions": sessions,
            "status": "resolved" if resolved else "active",
            "description": description,
            "last_evidence_at": last,
        }
        out.append(_pattern(learner_id, "bottleneck", (key,), props, group.struggles))
    return out


def dominant(counts: Counter[str], total: int, share: float) -> tuple[str, int] | None:
    """The day part holding at least ``share`` of ``total`` (ties: alphabetical)."""
    if total <= 0 or not counts:
        return None
    part, count = min(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return (part, count) if count / total >= share else None


def _study_part(hours: dict[int, int]) -> tuple[str, int] | None:
    # The part of the day holding STUDY_SHARE of the learner's messages (per UTC hour), and its count.
    total = sum(hours.values())
    parts: Counter[str] = Counter()
    for hour, count in hours.items():
        parts[day_part(f"2000-01-01T{int(hour):02d}:00:00+00:00")] += count
    return dominant(parts, total, STUDY_SHARE) if total >= MIN_MESSAGES else None


def time_patterns(
    learner_id: str, hours: dict[int, int], study: list[dict[str, Any]] | None, evidence: list[Evidence]
) -> list[dict[str, Any]]:
    """``time_of_day`` patterns (study and struggle); ``study`` is the chosen part's evidence."""
    out = []
    total = sum(hours.values())
    chosen = _study_part(hours)
    if chosen and study is not None:
        part, count = chosen
        props = {
            "concept": part,
            "activity": "study",
            "count": count,
            "total": total,
            "share": round(count / total, 3),
            "status": "active",
            "description": f"Studies mostly in the {part} (UTC): {count} of {total} messages.",
        }
        out.append(_pattern(learner_id, "time_of_day", ("study",), props, study))
    struggles = [e for e in evidence if e.signal.kind in ("struggle", "error") and e.at]
    items = {e.id: e for e in struggles}
    when: Counter[str] = Counter(day_part(e.at) for e in items.values())
    picked = dominant(when, len(items), STRUGGLE_SHARE) if len(items) >= MIN_STRUGGLES_TIMED else None
    if picked:
        part, count = picked
        chosen_items = sorted((e for e in items.values() if day_part(e.at) == part), key=lambda e: e.at)
        props = {
            "concept": part,
            "activity": "struggle",
            "count": count,
            "total": len(items),
            "share": round(count / len(items), 3),
            "status": "active",
            "description": f"Struggles mostly in the {part} (UTC): {count} of {len(items)} signs of struggle",
        }
        out.append(_pattern(learner_id, "time_of_day", ("struggle",), props, chosen_items[-TIME_EVIDENCE:]))
    return out


async def anticipation(store: ReflectionStore, learner_id: str, *, limit: int) -> StepReport:
    """Create or update the learner's patterns (module docstring)."""
    report = StepReport("anticipation")
    evidence = parse_signals(await store.signal_items(learner_id, SIGNAL_CAP))
    groups = by_concept(evidence)
    hours = await store.study_hours(learner_id)
    study = None
    if chosen := _study_part(hours):
        rows = await store.study_evidence(learner_id, list(DAY_PARTS[chosen[0]]), TIME_EVIDENCE)
        study = sorted(({"id": r["id"], "source": "message"} for r in rows), key=lambda r: r["id"])
    wanted = [
        *recurring_errors(learner_id, evidence),
        *bottlenecks(learner_id, groups),
        *time_patterns(learner_id, hours, study, evidence),
    ]
    writes, report.created, report.updated = changes(
        wanted, await store.existing(learner_id, "Pattern"), limit
    )
    await store.upsert(learner_id, "Pattern", writes)
    report.scanned = len(evidence) + sum(hours.values())
    report.details = {"patterns": len(wanted), "by_kind": dict(Counter(p["props"]["kind"] for p in wanted))}
    return report
