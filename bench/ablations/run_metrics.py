"""The design's evaluation metrics, computed from recorded runs (``RunRecord`` lists).

Pure functions: no I/O, no services. Rates are fractions in [0, 1]; a metric
that has nothing to measure (no archive attempt, no multi-tool chain, no notes)
is ``None``, never a made-up 0 or 1. Definitions (design §6):

- pressure trigger rate: sessions in which some turn's pressure passed the
  threshold, over sessions (a session is a ``(variant, session)`` pair);
- auto-archive success: successful evictions over eviction attempts;
- context utilisation: mean of every compiled prompt's tokens over ``max_tokens``;
- overflow: sessions in which some prompt held more than ``max_tokens`` tokens
  (a real model would reject it: the design's "sessions that crash on context");
- average steps: mean model calls per turn;
- max-steps rate: turns that used the whole step budget, over turns;
- tool-chain success: turns with at least two tool calls (a multi-tool chain)
  whose every call returned without error and that ended with an answer, over
  such turns;
- recall precision: over probe turns, retrieved hits that contain the expected
  fact, over retrieved hits;
- recall rate: probes whose answer contains the expected fact, over probes;
- recall in budget: probes recalled from prompts that all fit in ``max_tokens``,
  over probes. A model whose context window is ``max_tokens`` would reject an
  overflowing prompt; the offline policy reads no prompt and answers anyway, so
  recall rate alone cannot show what eviction buys;
- note atomicity and link density: from ``bench.note_metrics`` (concepts per
  note; distinct linked neighbours per note), ``None`` without notes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from statistics import fmean
from typing import Any

from bench.ablations.run_record import RunRecord

METRICS: tuple[str, ...] = (
    "pressure_trigger_rate",
    "auto_archive_success",
    "context_utilisation",
    "overflow_count",
    "average_steps",
    "max_steps_rate",
    "tool_chain_success",
    "note_atomicity",
    "link_density",
    "recall_precision",
    "recall_rate",
    "recall_in_budget",
)
TARGETS: dict[str, str] = {
    "pressure_trigger_rate": "<= 0.20",
    "auto_archive_success": ">= 0.99",
    "context_utilisation": "0.50-0.70",
    "overflow_count": "0",
    "average_steps": "2-3",
    "max_steps_rate": "<= 0.05",
    "tool_chain_success": ">= 0.95",
    "note_atomicity": "1-2",
    "link_density": ">= 2",
    "recall_precision": ">= 0.80",
    "recall_rate": "(higher is better)",
    "recall_in_budget": "(higher is better)",
}
TARGET_RANGES: dict[str, tuple[float | None, float | None]] = {
    "pressure_trigger_rate": (None, 0.20),
    "auto_archive_success": (0.99, None),
    "context_utilisation": (0.50, 0.70),
    "overflow_count": (None, 0),
    "average_steps": (2.0, 3.0),
    "max_steps_rate": (None, 0.05),
    "tool_chain_success": (0.95, None),
    "note_atomicity": (1.0, 2.0),
    "link_density": (2.0, None),
    "recall_precision": (0.80, None),
}
"""``TARGETS`` as ``(low, high)`` bounds, ``None`` for an open side; metrics without a target are absent."""


def meets_target(metric: str, value: float | None) -> bool | None:
    """Whether ``value`` meets ``metric``'s design target (``None``: no value or no target)."""
    bounds = TARGET_RANGES.get(metric)
    if value is None or bounds is None:
        return None
    low, high = bounds
    return (low is None or value >= low) and (high is None or value <= high)


def _ratio(hits: int, total: int) -> float | None:
    return hits / total if total else None


def _sessions(records: Iterable[RunRecord]) -> dict[tuple[str, str], list[RunRecord]]:
    grouped: dict[tuple[str, str], list[RunRecord]] = {}
    for record in records:
        grouped.setdefault((record.variant, record.session), []).append(record)
    return grouped


def pressure_trigger_rate(records: Sequence[RunRecord]) -> float | None:
    """Share of sessions in which pressure passed the threshold."""
    sessions = _sessions(records)
    return _ratio(sum(any(r.triggered for r in turns) for turns in sessions.values()), len(sessions))


def auto_archive_success(records: Sequence[RunRecord]) -> float | None:
    """Share of eviction attempts that wrote their summary (``None`` without attempts)."""
    events = [ok for r in records for ok in r.archive_events]
    return _ratio(sum(events), len(events))


def context_utilisation(records: Sequence[RunRecord]) -> float | None:
    """Mean prompt tokens over ``max_tokens`` across every model call."""
    values = [p for r in records for p in r.prompt_pressures]
    return fmean(values) if values else None


def overflow_count(records: Sequence[RunRecord]) -> int:
    """Sessions in which a prompt held more than ``max_tokens`` tokens."""
    return sum(any(r.overflowed for r in turns) for turns in _sessions(records).values())


def average_steps(records: Sequence[RunRecord]) -> float | None:
    """Mean model calls per turn."""
    return fmean(r.steps for r in records) if records else None


def max_steps_rate(records: Sequence[RunRecord]) -> float | None:
    """Share of turns that used their whole step budget."""
    return _ratio(sum(r.hit_max_steps for r in records), len(records))


def tool_chain_success(records: Sequence[RunRecord]) -> float | None:
    """Share of multi-tool turns (two calls or more) that completed without a tool error."""
    chains = [r for r in records if len(r.tool_results) >= 2]
    done = sum(all(t.ok for t in r.tool_results) and bool(r.response.strip()) for r in chains)
    return _ratio(done, len(chains))


def recall_precision(records: Sequence[RunRecord]) -> float | None:
    """Share of hits retrieved in probe turns that contain the probe's expected fact."""
    relevant = retrieved = 0
    for record in records:
        if record.expected is None:
            continue
        wanted = record.expected.lower()
        retrieved += len(record.retrieved)
        relevant += sum(wanted in hit.lower() for hit in record.retrieved)
    return _ratio(relevant, retrieved)


def recall_rate(records: Sequence[RunRecord]) -> float | None:
    """Share of probes whose answer contains the expected fact."""
    probes = [r for r in records if r.is_probe]
    return _ratio(sum(r.recalled for r in probes), len(probes))


def recall_in_budget(records: Sequence[RunRecord]) -> float | None:
    """Share of probes recalled from prompts that all fit in ``max_tokens``."""
    probes = [r for r in records if r.is_probe]
    return _ratio(sum(r.recalled_in_budget for r in probes), len(probes))


def recall_series(records: Sequence[RunRecord]) -> list[dict[str, Any]]:
    """Per probe, in turn order: ``{turn, distance, expected, recalled, in_budget}`` for plots."""
    probes = sorted((r for r in records if r.is_probe), key=lambda r: r.turn)
    return [
        {
            "turn": r.turn,
            "distance": r.distance,
            "expected": r.expected,
            "recalled": r.recalled,
            "in_budget": r.recalled_in_budget,
        }
        for r in probes
    ]


def pressure_series(records: Sequence[RunRecord]) -> list[dict[str, Any]]:
    """Per request, in turn order: ``{turn, session, peak, first, last, archived}`` for pressure plots.

    ``first`` is the monitor's reading as the request arrives (before any eviction),
    ``peak`` the highest reading of the request, ``last`` the last compiled prompt's.
    """
    return [
        {
            "turn": r.turn,
            "session": r.session,
            "first": r.monitor_pressures[0] if r.monitor_pressures else (r.prompt_pressures or (0.0,))[0],
            "peak": r.peak_pressure,
            "last": r.prompt_pressures[-1] if r.prompt_pressures else r.peak_pressure,
            "archived": sum(r.archive_events),
        }
        for r in sorted(records, key=lambda r: r.turn)
    ]


def note_atomicity(notes: Mapping[str, Any] | None) -> float | None:
    """Mean concepts per note from an ``bench.note_metrics`` summary (``None`` without notes)."""
    if not notes or not notes.get("note_count"):
        return None
    return float(notes["atomicity_mean_concepts"])


def link_density(notes: Mapping[str, Any] | None) -> float | None:
    """Distinct linked neighbours per note from an ``bench.note_metrics`` summary."""
    if not notes or not notes.get("note_count"):
        return None
    return float(notes["link_density"])


def summarise(records: Sequence[RunRecord], notes: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Every metric of ``METRICS`` for ``records`` (one variant's run), plus counts."""
    return {
        "turns": len(records),
        "sessions": len(_sessions(records)),
        "pressure_trigger_rate": pressure_trigger_rate(records),
        "auto_archive_success": auto_archive_success(records),
        "context_utilisation": context_utilisation(records),
        "overflow_count": overflow_count(records),
        "average_steps": average_steps(records),
        "max_steps_rate": max_steps_rate(records),
        "tool_chain_success": tool_chain_success(records),
        "note_atomicity": note_atomicity(notes),
        "link_density": link_density(notes),
        "recall_precision": recall_precision(records),
        "recall_rate": recall_rate(records),
        "recall_in_budget": recall_in_budget(records),
        "archive_attempts": sum(len(r.archive_events) for r in records),
        "tool_calls": sum(len(r.tool_results) for r in records),
        "notes_written": sum(r.notes_written for r in records),
    }
