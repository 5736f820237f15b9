"""The heartbeat bench's rows and report: one ``Series`` per scenario and graph, printed as ratios.

``bench/heartbeat.py`` measures; this module holds what a measurement is and how it is
judged against issue 14's targets (no-tool turn <= 2x the baseline's p95; a tool turn's
overhead beyond its search <= 20 ms p95). Kept apart so the rules are testable without a run.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

NO_TOOL, TOOL = "no-tool turn", "tool turn"
SCENARIOS = (NO_TOOL, TOOL)
BASELINE = "baseline ReAct (InMemorySaver)"
KERNEL, SYNC = "kernel", "sync"
GRAPH_LABELS = {KERNEL: "heartbeat, kernel logging", SYNC: "heartbeat, --sync-logging (old)"}
BASELINE_REDIS = "baseline ReAct on the KAG Redis saver"
HEARTBEAT_INMEMORY = "heartbeat on InMemorySaver"
"""The ``--decompose`` rows: each graph on the other one's checkpointer, so the table shows how
much of the ratio the durable checkpointer makes and how much the heartbeat's own steps do."""
NO_TOOL_TARGET = 2.0
"""A no-tool turn's p95 may be at most this multiple of the baseline's."""
OVERHEAD_TARGET_MS = 20.0
"""A tool turn's p95 overhead beyond its search, in milliseconds."""
MESSAGES_PER_TURN = {NO_TOOL: 2, TOOL: 4}
"""Recall messages one turn logs: request + answer, plus the call and its result on a tool turn."""


def pct(values: list[float], q: float) -> float:
    """The q-quantile (nearest rank) of ``values``."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


@dataclass
class Series:
    """One scenario on one graph: seconds per turn, and what the run checked on the side."""

    scenario: str
    graph: str
    times: list[float] = field(default_factory=list)
    archived: list[bool] = field(default_factory=list)
    """Per turn: auto-archive ran (heartbeat only)."""
    searches: list[float] = field(default_factory=list)
    """Per tool turn: seconds of the same archival search, timed directly after the turn."""
    cpu: list[float] = field(default_factory=list)
    """Per turn: CPU seconds of the event loop's thread (``time.thread_time``) during the turn."""
    calls: list[int] = field(default_factory=list)
    """Per turn: chat model calls (think steps, summaries, structured output: every call)."""
    tokens: list[int] = field(default_factory=list)
    """Per turn: tokens the model was sent and answered, by the product's own count."""
    stored: int | None = None
    """Recall messages of the learner in Neo4j once the run (and the kernel worker) finished."""
    worker: dict[str, Any] = field(default_factory=dict)
    """The kernel worker's ``stats()`` after the final drain (kernel logging only)."""
    left: int = 0
    """Stream entries still pending when the bench gave up waiting for them (kernel logging only)."""
    judged: bool = True
    """False for the ``--decompose`` rows: printed beside the others, never judged against a target."""

    def trimmed(self, warmup: int) -> Series:
        """The series without its first ``warmup`` turns (schema setup, model load)."""
        return dataclasses.replace(
            self,
            times=self.times[warmup:],
            archived=self.archived[warmup:],
            searches=self.searches[warmup:],
            cpu=self.cpu[warmup:],
            calls=self.calls[warmup:],
            tokens=self.tokens[warmup:],
        )

    def plain(self) -> list[float]:
        """Seconds of the turns without auto-archive."""
        return [t for t, a in zip(self.times, self.archived, strict=True) if not a]

    def archive_turns(self) -> list[float]:
        """Seconds of the turns on which auto-archive ran."""
        return [t for t, a in zip(self.times, self.archived, strict=True) if a]

    def plain_cpu(self) -> list[float]:
        """Loop-thread CPU seconds of the turns without auto-archive."""
        return [c for c, a in zip(self.cpu, self.archived, strict=False) if not a]

    def overhead(self) -> list[float]:
        """Per non-archive tool turn: turn seconds minus its directly timed search."""
        pairs = zip(self.times, self.archived, self.searches, strict=False)
        return [t - s for t, a, s in pairs if not a]


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


W = 50
"""Width of the graph column."""
GROWTH_WINDOW = 50
"""Turns at each end of a run compared by the thread-growth lines (runs of at least 100 turns)."""


def model_call_lines(runs: list[Series]) -> list[str]:
    """Model calls and tokens per turn of each judged heartbeat, beside the baseline's (design § 10).

    Turns on which auto-archive ran are counted apart, as in the timing table: their summary
    is the design's one extra call ("with auto-archive: +1").
    """

    def mean(values: list[int]) -> float:
        return sum(values) / len(values) if values else 0.0

    def plain(s: Series, values: list[int], archived: bool = False) -> list[int]:
        flags = s.archived if len(s.archived) == len(values) else [False] * len(values)
        return [v for v, a in zip(values, flags, strict=True) if a == archived]

    def per_turn(graph: str, field_name: str, archived: bool = False) -> dict[str, float]:
        return {
            s.scenario: mean(plain(s, getattr(s, field_name), archived))
            for s in runs
            if s.graph == graph and s.judged
        }

    base, base_tokens = per_turn(BASELINE, "calls"), per_turn(BASELINE, "tokens")
    lines = []
    for graph in dict.fromkeys(s.graph for s in runs if s.judged and s.graph != BASELINE and s.calls):
        calls, tokens = per_turn(graph, "calls"), per_turn(graph, "tokens")
        lines += [
            "",
            f"{graph}: model calls per turn: no-tool {calls.get(NO_TOOL, 0):.1f}, tool "
            f"{calls.get(TOOL, 0):.1f} (baseline ReAct: no-tool {base.get(NO_TOOL, 0):.1f}, tool "
            f"{base.get(TOOL, 0):.1f}); tokens per turn: no-tool {tokens.get(NO_TOOL, 0):.0f}, tool "
            f"{tokens.get(TOOL, 0):.0f} (baseline: {base_tokens.get(NO_TOOL, 0):.0f}, "
            f"{base_tokens.get(TOOL, 0):.0f})",
        ]
        archive = {
            s.scenario: plain(s, s.calls, archived=True) for s in runs if s.graph == graph and s.judged
        }
        lines += [
            f"  {scenario}, archive turns: {mean(found):.1f} model calls ({len(found)} turns; the summary "
            "is the design's +1)"
            for scenario, found in archive.items()
            if found
        ]
    return lines


def report(series: list[Series], warmup: int) -> list[str]:
    """The turn-cost table, the overhead beyond the search, the targets and the checks, as lines."""
    runs = [s.trimmed(warmup) for s in series]
    n = len(runs[0].times) if runs else 0
    lines = [
        f"Turn cost, {n} turns per graph after {warmup} warm-up, turns interleaved across graphs, "
        "scripted model, real Neo4j and Redis",
        f"{'scenario':<14}{'graph':<{W}}{'turns':>6}{'p50 ms':>9}{'p95 ms':>9}"
        f"{'p50 ratio':>11}{'p95 ratio':>11}",
    ]
    baselines = {s.scenario: s.times for s in runs if s.graph == BASELINE}
    ratios: dict[tuple[str, str], float] = {}
    for s in runs:
        base = baselines[s.scenario]
        b50, b95 = pct(base, 0.5), pct(base, 0.95)
        rows = [(s.graph, s.plain())]
        if s.archive_turns():
            rows.append((f"{s.graph}, archive turns", s.archive_turns()))
        for label, vals in rows:
            if not vals:
                continue
            p50, p95 = pct(vals, 0.5), pct(vals, 0.95)
            ratios[(s.scenario, label)] = p95 / b95
            lines.append(
                f"{s.scenario:<14}{label:<{W}}{len(vals):>6}{p50 * 1e3:>9.1f}{p95 * 1e3:>9.1f}"
                f"{p50 / b50:>10.1f}x{p95 / b95:>10.1f}x"
            )
    lines += [
        "",
        "Tool turn: overhead beyond the search (per turn: turn minus the same archival search, timed)",
    ]
    for s in runs:
        if s.scenario != TOOL or not s.searches:
            continue
        over = s.overhead()
        met = pct(over, 0.95) * 1e3 <= OVERHEAD_TARGET_MS
        judged = (
            f"target <= {OVERHEAD_TARGET_MS:.0f} ms p95: {verdict(met)}"
            if s.judged
            else "not judged: a --decompose row"
        )
        lines.append(
            f"{s.graph:<{W - 14}} search p50 {pct(s.searches, 0.5) * 1e3:.1f} / p95 "
            f"{pct(s.searches, 0.95) * 1e3:.1f} ms; overhead p50 {pct(over, 0.5) * 1e3:.1f} / p95 "
            f"{pct(over, 0.95) * 1e3:.1f} ms ({judged})"
        )
    if TOOL in baselines and any(s.scenario == TOOL and s.searches for s in runs):
        # What the framework alone costs here: the target is read against it.
        floor = baselines[TOOL]
        lines.append(
            f"{'for reference: ' + BASELINE:<{W - 14}} (a no-op tool, no search) p50 "
            f"{pct(floor, 0.5) * 1e3:.1f} / p95 {pct(floor, 0.95) * 1e3:.1f} ms per whole turn"
        )
    lines += cpu_lines(runs)
    lines += model_call_lines(runs)
    lines += growth_lines(runs)
    lines += ["", "Targets (issue 14)"]
    for s in runs:
        if s.scenario == NO_TOOL and s.graph != BASELINE and s.judged:
            r = ratios[(NO_TOOL, s.graph)]
            lines.append(
                f"no-tool turn, {s.graph}: p95 ratio {r:.1f}x (target <= {NO_TOOL_TARGET:.0f}x): "
                f"{verdict(r <= NO_TOOL_TARGET)}"
            )
    lines += ["", "Checks (warm-up turns included)"]
    for s in runs:
        if s.stored is not None:
            expected = MESSAGES_PER_TURN[s.scenario] * len(series[runs.index(s)].times)
            lines.append(
                f"{s.scenario}, {s.graph}: {s.stored} of {expected} recall messages in Neo4j after the run"
                + (f" ({s.left} events still pending after 120 s of draining)" if s.left else "")
                + (f"; worker {_worker_line(s.worker)}" if s.worker else "")
            )
    return lines


def growth_lines(runs: list[Series]) -> list[str]:
    """p50 of the first and the last ``GROWTH_WINDOW`` turns per graph, or why there are none."""
    head = f"Thread growth: p50 ms of the first and the last {GROWTH_WINDOW} turns (archive turns left out)"
    rows = []
    for s in runs:
        turns = list(zip(s.times, s.archived, strict=True))
        if len(turns) >= 2 * GROWTH_WINDOW:
            first, last = (
                pct([t for t, archived in part if not archived], 0.5)
                for part in (turns[:GROWTH_WINDOW], turns[-GROWTH_WINDOW:])
            )
            rows.append(f"{s.scenario:<14}{s.graph:<{W}}{first * 1e3:>9.1f}{last * 1e3:>9.1f}")
    if not rows:
        most = max((len(s.times) for s in runs), default=0)
        needs = 2 * GROWTH_WINDOW
        rows.append(f"not shown: it needs {needs} measured turns per graph, this run measured {most}")
    return ["", head, *rows]


def cpu_lines(runs: list[Series]) -> list[str]:
    """Loop-thread CPU per non-archive turn, p50 and its ratio to the baseline's (nothing without samples).

    Wall time minus this is time the loop waited (replies, other threads holding the GIL);
    the CPU counts whatever the loop ran during the turn, the kernel worker's tasks included.
    """
    base = {s.scenario: s.plain_cpu() for s in runs if s.graph == BASELINE and s.cpu}
    rows = [s for s in runs if s.cpu and s.scenario in base and base[s.scenario]]
    if not rows:
        return []
    lines = ["", "CPU of the event loop's thread per turn (time.thread_time; archive turns left out)"]
    for s in rows:
        own, b50 = pct(s.plain_cpu(), 0.5), pct(base[s.scenario], 0.5)
        lines.append(f"{s.scenario:<14}{s.graph:<{W}}{own * 1e3:>9.1f} ms{own / b50:>10.1f}x")
    return lines


def _worker_line(stats: dict[str, Any]) -> str:
    """``applied 40, batches 3, dead_lettered 0, max_lag_seconds 10.2`` from a worker's stats."""
    keys = ("applied", "batches", "dead_lettered", "stalls", "max_lag_seconds")
    return ", ".join(f"{k} {stats[k]}" for k in keys if k in stats)
