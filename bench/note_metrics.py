"""Health of a learner's Zettelkasten against the design's note targets, computed from Neo4j (bench only).

- atomicity: concepts per note (``audit.concept_count``); the target is 1–2.
- link density: distinct linked neighbours per note; target ≥ 2 once the
  learner has 20 notes (``DENSITY_MIN_NOTES``).
- orphans: notes with no link; degree distribution: ``{degree: notes}``.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agent.notes.store import NoteStore

DENSITY_TARGET = 2.0
DENSITY_MIN_NOTES = 20


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Metrics from ``[{id, audit_json, degree}]`` rows."""
    total = len(rows)
    degrees = [int(r["degree"]) for r in rows]
    counts = []
    for row in rows:
        try:
            counts.append(int(json.loads(row.get("audit_json") or "{}").get("concept_count", 1)))
        except (TypeError, ValueError):
            counts.append(1)
    density = sum(degrees) / total if total else 0.0
    atomic = sum(1 for c in counts if 1 <= c <= 2)
    return {
        "note_count": total,
        "atomicity_mean_concepts": round(sum(counts) / total, 3) if total else 0.0,
        "atomicity_share": round(atomic / total, 3) if total else 1.0,
        "link_density": round(density, 3),
        "link_density_target": DENSITY_TARGET,
        # None until the learner has enough notes for the target to apply.
        "meets_density_target": None if total < DENSITY_MIN_NOTES else density >= DENSITY_TARGET,
        "orphan_count": sum(1 for d in degrees if d == 0),
        "degree_distribution": {str(k): v for k, v in sorted(Counter(degrees).items())},
        "max_degree": max(degrees, default=0),
    }


async def note_metrics(store: NoteStore, learner_id: str) -> dict[str, Any]:
    """Atomicity, link density, orphan count and degree distribution for one learner."""
    return summarise(await store.degree_rows(learner_id))
