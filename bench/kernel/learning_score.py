"""Scoring system learning against a planted set's truth (rules in ``bench.kernel.learning``'s docstring).

Pure functions over what reflection stored and what ``system_learning`` aggregated, so the
rules are testable without a run: ``matches`` (concept aliases), ``score`` (every metric as a
``Score``: recall, precision, what was missed and what was extra).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bench.kernel.timing import verdict

BOTTLENECK_TARGET = 0.90
PATTERN_TARGET = 0.85
MIN_SHARE = 0.25
"""A concept is a system bottleneck when at least this share of the set's learners share it."""


def _words(text: str) -> list[str]:
    out = []
    for word in str(text).lower().replace("-", " ").split():
        word = word.strip(".,;:!?\"'()")
        if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            word = word[:-1]
        if word:
            out.append(word)
    return out


def matches(reported: str, aliases: list[str]) -> bool:
    """Whether a reported concept names a planted one (module docstring)."""
    got = set(_words(reported))
    if not got:
        return False
    for alias in aliases:
        want = set(_words(alias))
        if want and (got == want or got <= want or want <= got):
            return True
    return False


@dataclass
class Score:
    """Precision and recall of one detection."""

    name: str
    found: int
    planted: int
    detected: int
    true_detected: int
    target: float | None = None
    missed: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)

    @property
    def recall(self) -> float:
        """Planted items found / planted."""
        return self.found / self.planted if self.planted else 1.0

    @property
    def precision(self) -> float:
        """Detections that are planted / detections."""
        return self.true_detected / self.detected if self.detected else 1.0

    def line(self) -> str:
        """One printed row."""
        tail = ""
        if self.target is not None:
            tail = f"  target >= {self.target:.0%}: {verdict(self.recall >= self.target)}"
        precision = f"{self.precision:.0%}" if self.detected else "-"
        notes = []
        if self.missed:
            notes.append(f"missed {', '.join(self.missed[:6])}")
        if self.extra:
            notes.append(f"extra {', '.join(self.extra[:6])}")
        return (
            f"{self.name:<52}{self.recall:>7.0%} ({self.found}/{self.planted}){precision:>9} "
            f"({self.true_detected}/{self.detected}){tail}" + (f"  [{'; '.join(notes)}]" if notes else "")
        )


def _concept_score(
    name: str, reported: dict[str, int], truth: dict[str, Any], threshold: int, target: float | None
) -> Score:
    detected = sorted(c for c, n in reported.items() if n >= threshold)
    planted = truth["bottlenecks"]
    found = [
        p["concept"] for p in planted if any(matches(c, [p["concept"], *p["aliases"]]) for c in detected)
    ]
    true_detected = [c for c in detected if any(matches(c, [p["concept"], *p["aliases"]]) for p in planted)]
    return Score(
        name,
        len(found),
        len(planted),
        len(detected),
        len(true_detected),
        target,
        missed=[p["concept"] for p in planted if p["concept"] not in found],
        extra=[c for c in detected if c not in true_detected],
    )


def score(
    data: dict[str, Any], ids: dict[str, str], patterns: dict[str, list[dict]], agg: dict
) -> list[Score]:
    """Every score of the module docstring (``ids``: set id -> run learner id)."""
    truth = data["truth"]
    threshold = max(2, round(MIN_SHARE * len(ids)))
    scores = [
        _concept_score(
            "bottleneck detection (aggregate bottlenecks)", agg["bottlenecks"], truth, threshold, 0.9
        ),
        _concept_score(
            "bottleneck detection (aggregate struggles)", agg["struggles"], truth, threshold, None
        ),
    ]
    own: Counter[str] = Counter()  # per-set aggregation of the learners' own patterns, a cross-check
    for props in patterns.values():
        for concept in {
            p.get("concept") for p in props if p.get("kind") == "bottleneck" and p.get("concept")
        }:
            own[concept] += 1
    scores.append(
        _concept_score("bottleneck detection (set's own bottleneck patterns)", own, truth, threshold, None)
    )
    errors = {
        lid: [p for p in props if p.get("kind") == "recurring_error"] for lid, props in patterns.items()
    }
    planted = truth["recurring_errors"]
    loose, strict, matched_ids = [], [], set()
    for r in planted:
        aliases = [r["concept"], *r["aliases"]]
        hits = [p for p in errors.get(r["learner"], []) if matches(str(p.get("concept") or ""), aliases)]
        if hits:
            loose.append(r)
            matched_ids.update(id(p) for p in hits)
        if any(p.get("error_kind") == r["error_kind"] for p in hits):
            strict.append(r)
    all_errors = [p for ps in errors.values() for p in ps]
    true_detected = sum(id(p) in matched_ids for p in all_errors)
    extra = [
        f"{lid}:{p.get('concept')}/{p.get('error_kind')}"
        for lid, ps in errors.items()
        for p in ps
        if id(p) not in matched_ids
    ]
    missed = [f"{r['learner']}:{r['concept']}" for r in planted if r not in loose]
    scores.append(
        Score(
            "pattern recognition (recurring error, concept)",
            len(loose),
            len(planted),
            len(all_errors),
            true_detected,
            PATTERN_TARGET,
            missed,
            extra,
        )
    )
    scores.append(
        Score(
            "pattern recognition (concept and error kind)",
            len(strict),
            len(planted),
            len(all_errors),
            true_detected,
            None,
            [f"{r['learner']}:{r['concept']}" for r in planted if r not in strict],
        )
    )
    common = truth["common_errors"]
    kinds = agg["recurring_errors"]
    ok = [c for c in common if kinds.get(c["error_kind"], 0) >= len(c["learners"])]
    scores.append(
        Score(
            "common errors aggregated (kind, learner count)",
            len(ok),
            len(common),
            len(kinds),
            sum(k in {c["error_kind"] for c in common} for k in kinds),
            None,
            [
                f"{c['error_kind']} x{len(c['learners'])} (got {kinds.get(c['error_kind'], 0)})"
                for c in common
                if c not in ok
            ],
            [k for k in kinds if k not in {c["error_kind"] for c in common}],
        )
    )
    return scores
