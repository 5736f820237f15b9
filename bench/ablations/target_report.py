"""Explain, from a run's own records, where a variant misses the design targets and why.

The notebook shows this as a markdown cell, so the explanation always matches the
numbers of the run that produced it: each reason is computed from the
``RunRecord`` list, the note metrics and the run's configuration, never typed in.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from statistics import fmean
from typing import TYPE_CHECKING, Any

from bench.ablations.learner_script import MOVED
from bench.ablations.run_metrics import METRICS, TARGETS, meets_target
from bench.ablations.run_record import RunRecord
from bench.note_metrics import DENSITY_MIN_NOTES

if TYPE_CHECKING:
    from bench.ablations.runner import AblationResult, VariantRun


def _fmt(value: Any) -> str:
    if value is None:
        return "n/a"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def _growth_per_request(records: Sequence[RunRecord]) -> float | None:
    """Mean rise of pressure from the end of one request to the arrival of the next (same session)."""
    rises = []
    for cur, nxt in zip(records, records[1:], strict=False):
        if cur.session == nxt.session and cur.prompt_pressures and nxt.monitor_pressures:
            rises.append(nxt.monitor_pressures[0] - cur.prompt_pressures[-1])
    return fmean(rises) if rises else None


def _pressure(run: VariantRun, value: float) -> str:
    records = run.records
    budget, threshold = records[0].max_tokens, records[0].pressure_threshold
    sessions: dict[str, list[RunRecord]] = {}
    for r in records:
        sessions.setdefault(r.session, []).append(r)
    crossed = [s for s, turns in sessions.items() if any(r.triggered for r in turns)]
    parts = [f"{len(crossed)} of {len(sessions)} sessions crossed the threshold {threshold:.2f}."]
    base = records[0].monitor_pressures[0] if records[0].monitor_pressures else None
    first = next((r for r in records if r.triggered), None)
    if base is not None and first is not None and first.turn > records[0].turn:
        reading = first.monitor_pressures[0] if first.monitor_pressures else first.peak_pressure
        per_request = (reading - base) / (first.turn - records[0].turn)
        parts.append(
            f"The system prompt and core memory alone take {base:.2f} of max_tokens = {budget}; the dialogue "
            f"then adds about {per_request * budget:.0f} tokens per request (filler turns are long on "
            f"purpose), so the first crossing came at request {first.turn - records[0].turn + 1}."
        )
    arrivals = [
        f"{name} arrives at {turns[0].monitor_pressures[0]:.2f}"
        for name, turns in list(sessions.items())[1:]
        if turns[0].monitor_pressures
    ]
    if arrivals:
        parts.append(
            "The sessions are one conversation thread, so each session starts with the queue the previous "
            "one left (" + ", ".join(arrivals) + ") and crosses again within a request or two."
        )
    parts.append(
        "The ablation script is built to create pressure at a small budget so that eviction is exercised "
        "in every session; the target describes a realistic budget (default max_tokens 8192) in which most "
        "sessions fit."
    )
    return " ".join(parts)


def _steps(run: VariantRun, value: float) -> str:
    records = run.records
    by_steps = Counter(r.steps for r in records)
    silent = sum(1 for r in records if not r.tool_results)
    probes = [r for r in records if r.is_probe]
    parts = [
        "Steps per request: "
        + ", ".join(f"{n} request(s) with {k} step(s)" for k, n in sorted(by_steps.items()))
        + ".",
        f"{silent} of {len(records)} requests called no tool and were answered in one step",
    ]
    if any(not r.tool_results and not r.is_probe and not r.request.rstrip().endswith("?") for r in records):
        parts[-1] += (
            " (filler turns state no fact, goal or question, so the offline policy has nothing to do)"
        )
    parts[-1] += "."
    if probes:
        calls = fmean(len(r.tool_results) for r in probes)
        parts.append(
            f"Probes made {calls:.1f} tool call(s) on average and answered on the next step: "
            "the offline policy answers after one search by quoting its hits, where the design's "
            "2–3 steps assume a model that searches, reads and sometimes searches again."
        )
    return " ".join(parts)


def _links(run: VariantRun, value: float) -> str:
    notes = run.notes or {}
    count = int(notes.get("note_count") or 0)
    orphans = notes.get("orphan_count")
    parts = [f"The run wrote {count} notes ({orphans} without any link)."]
    if count < DENSITY_MIN_NOTES:
        parts.append(
            f"The density target applies from {DENSITY_MIN_NOTES} notes (`bench/note_metrics.py`); with "
            f"{count} notes about one short SQL dialogue each new note has few candidates to link to, so "
            "this figure is not yet a test of the target."
        )
    return " ".join(parts)


def _precision(run: VariantRun, value: float) -> str:
    probes = [r for r in run.records if r.is_probe and r.retrieved and r.expected]
    if not probes:
        return "No probe retrieved anything."
    hits = sum(len(r.retrieved) for r in probes)
    relevant = sum(r.expected.lower() in h.lower() for r in probes for h in r.retrieved)  # type: ignore[union-attr]
    echoes = sum(h.strip() == r.request.strip() for r in probes for h in r.retrieved)
    echoed = sum(any(h.strip() == r.request.strip() for h in r.retrieved) for r in probes)
    other = hits - relevant - echoes
    return (
        f"Probe searches returned {hits} hits, {relevant} containing the fact. {echoes} of the misses are "
        f"the probe's own question ({echoed} of {len(probes)} probes found themselves: recall storage "
        "holds the request before the search runs, and it shares every query word); the other "
        f"{other} are earlier probes, answers and statements that share words such as 'mention' or "
        "'called'. The search always fills its page (5 hits) and the script states each fact once, so "
        "precision stays low even when the fact ranks first; recall rate says whether it was found."
    )


def _overflow(run: VariantRun, value: float) -> str:
    over = [r for r in run.records if r.overflowed]
    if not over:
        return ""
    parts = []
    for r in over:
        before = r.prompt_pressures[0]
        tools = ", ".join(t.name for t in r.tool_results) or "no tool"
        parts.append(
            f"turn {r.turn} ({tools}): prompt {before:.2f} → {max(r.prompt_pressures):.2f} of max_tokens"
        )
    return (
        "Overflowing requests: " + "; ".join(parts) + ". The prompt fitted when the request arrived and grew "
        "past max_tokens within the request, after the tool results were added: eviction takes only older "
        "messages, and the current request's own messages and search hits cannot be evicted."
    )


def _threshold(run: VariantRun) -> float:
    return run.records[0].pressure_threshold if run.records else 0.7


def _utilisation(run: VariantRun, value: float) -> str:
    prompts = [p for r in run.records for p in r.prompt_pressures]
    over = sum(p > _threshold(run) for p in prompts)
    return (
        f"{over} of {len(prompts)} prompts were above the pressure threshold: the script keeps "
        "the queue near the threshold on purpose, and the answer after a search carries the search hits."
    )


EXPLAIN = {
    "pressure_trigger_rate": _pressure,
    "average_steps": _steps,
    "link_density": _links,
    "recall_precision": _precision,
    "overflow_count": _overflow,
    "context_utilisation": _utilisation,
}


def target_misses(row: dict[str, Any]) -> list[str]:
    """Metrics of one table row that have a target and miss it."""
    return [m for m in METRICS if meets_target(m, row.get(m)) is False]


def explain_targets(result: AblationResult, variant: str = "full") -> str:
    """Markdown: which design targets ``variant`` meets and misses in this run, and why it misses them."""
    run = result.runs.get(variant)
    if run is None:
        return f"`{variant}` was not run."
    row = next(r for r in result.table() if r["variant"] == variant)
    met = [m for m in METRICS if meets_target(m, row.get(m)) is True]
    missed = target_misses(row)
    untested = [
        m for m in METRICS if m in TARGETS and meets_target(m, row.get(m)) is None and row.get(m) is None
    ]
    lines = [
        f"### Design targets of `{variant}` in this run ({result.config.get('turns')} turns per variant, "
        f"max_tokens {result.config.get('max_tokens')}, model `{result.config.get('model')}`)",
        "",
    ]
    lines.append(
        "**Met:** " + (", ".join(f"`{m}` {_fmt(row[m])} ({TARGETS[m]})" for m in met) or "none") + "."
    )
    if untested:
        lines.append("")
        lines.append("**Nothing to measure:** " + ", ".join(f"`{m}`" for m in untested) + ".")
    lines.append("")
    if not missed:
        lines.append("**Missed:** none.")
        return "\n".join(lines)
    lines.append("**Missed** — and why, from this run's records:")
    lines.append("")
    for metric in missed:
        reason = EXPLAIN.get(metric)
        why = reason(run, row[metric]) if reason else "No specific cause is computed for this metric."
        lines.append(f"- `{metric}` = {_fmt(row[metric])} against {TARGETS[metric]}. {why}")
    return "\n".join(lines)


def explain_archiving(result: AblationResult, with_: str = "full", without: str = "no_auto_archive") -> str:
    """Markdown: what auto-archive buys in this run (pressure, overflow, recall within the budget)."""
    if with_ not in result.runs or without not in result.runs:
        return f"Run both `{with_}` and `{without}` to compare them."
    rows = {r["variant"]: r for r in result.table()}
    a, b = result.runs[with_].records, result.runs[without].records
    peak_a, peak_b = max(r.peak_pressure for r in a), max(r.peak_pressure for r in b)
    first_over = next((r.turn for r in b if r.overflowed), None)
    probes_b = [r for r in b if r.is_probe]
    over_probes = sum(r.overflowed for r in probes_b)
    return "\n".join(
        [
            f"### What auto-archive buys in this run (`{with_}` against `{without}`)",
            "",
            f"- Peak pressure {peak_a:.2f} against {peak_b:.2f} of max_tokens; overflowing sessions "
            f"{rows[with_]['overflow_count']} against {rows[without]['overflow_count']}"
            + (f" (`{without}` first overflowed at turn {first_over})." if first_over is not None else "."),
            f"- Recall rate {_fmt(rows[with_]['recall_rate'])} against {_fmt(rows[without]['recall_rate'])}: "
            "the offline policy answers probes from `conversation_search` over recall storage, which keeps "
            "every message whether or not the queue is evicted, and it reads no prompt, so an oversized "
            "prompt does not stop it.",
            f"- Recall within max_tokens {_fmt(rows[with_]['recall_in_budget'])} against "
            f"{_fmt(rows[without]['recall_in_budget'])}: {over_probes} of {len(probes_b)} probes of "
            f"`{without}` were answered from a prompt larger than max_tokens, which a model with that "
            "context window would have rejected. This is the ablation's measure of what eviction buys.",
        ]
    )


def explain_rag_only(result: AblationResult, full: str = "full", rag: str = "rag_only") -> str:
    """Markdown: what ``rag`` does as well as ``full`` in this run, and what only ``full`` answers.

    The script's superseded fact (``learner_script.MOVED``) is the probe retrieval alone
    cannot answer: the home the learner left shares the question's words, the move does not.
    """
    if full not in result.runs or rag not in result.runs:
        return f"Run both `{full}` and `{rag}` to compare them."
    rows = {r["variant"]: r for r in result.table()}
    probes = {name: [r for r in result.runs[name].records if r.is_probe] for name in (full, rag)}
    moved = {
        name: next((r for r in found if r.request == MOVED.probe), None) for name, found in probes.items()
    }
    others = [(a, b) for a, b in zip(probes[full], probes[rag], strict=False) if a.request != MOVED.probe]
    same = sum(a.recalled == b.recalled for a, b in others)
    lines = [
        f"### What `{rag}` does as well as `{full}`, and what it cannot",
        "",
        f"- On the other probes the two agree {same} times out of {len(others)} (recall rate "
        f"{_fmt(rows[full]['recall_rate'])} against {_fmt(rows[rag]['recall_rate'])}): each asks for a fact "
        "stated once, in words the question shares, and recall storage keeps every message verbatim, so "
        f"retrieving by those words finds it with or without a heartbeat. `{rag}`'s precision "
        f"({_fmt(rows[rag]['recall_precision'])} against {_fmt(rows[full]['recall_precision'])}) is higher "
        "because it ranks single messages, while the full system's searches rank turns with their context "
        "and fill their page with neighbours that do not hold the fact.",
    ]
    answered = [(name, r) for name, r in moved.items() if r is not None]
    if answered:
        lines.append(
            f'- The superseded fact ("{MOVED.probe}", expected {MOVED.expected!r}): '
            + "; ".join(
                f"`{n}` {'recalled it' if r.recalled else 'missed it'} ({_said(r)})" for n, r in answered
            )
            + ". Retrieval finds the statement that shares the question's words, the home the learner "
            f"left; only `{full}`'s fact store knows the move retired it, and answers with the current value."
        )
    return "\n".join(lines)


def _said(record: RunRecord) -> str:
    text = " ".join(record.response.split())
    return f'"{text[:140]}…"' if len(text) > 140 else f'"{text}"'
