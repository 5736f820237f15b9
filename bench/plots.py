"""Plotting helpers shared by the notebooks: target lines, pass/fail colours, heatmaps, pressure.

Every function takes plain rows (``AblationResult.table()``, ``pressure_series()``,
``recall_series()``) and returns the matplotlib ``Figure``; nothing is computed here
that the package does not already report. Colours: green meets the design target,
red misses it, blue has no target, grey is n/a (nothing to measure).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
from matplotlib.colors import ListedColormap
from matplotlib.figure import Figure
from matplotlib.patches import Patch

PASS = "#2e8b57"
FAIL = "#d1495b"
NO_TARGET = "#4c72b0"
NOT_APPLICABLE = "#d9d9d9"
TARGET_LINE = "#222222"
LEGEND = [
    Patch(color=PASS, label="meets target"),
    Patch(color=FAIL, label="misses target"),
    Patch(color=NO_TARGET, label="no target"),
    Patch(color=NOT_APPLICABLE, label="n/a"),
]

Bounds = Mapping[str, tuple[float | None, float | None]]
Check = Callable[[str, float | None], bool | None]


def verdict_colour(metric: str, value: float | None, bounds: Bounds, check: Check) -> str:
    """The colour of one metric value: pass, fail, no target or n/a."""
    if value is None:
        return NOT_APPLICABLE
    if metric not in bounds:
        return NO_TARGET
    return PASS if check(metric, value) else FAIL


def _target_lines(ax: Any, bounds: tuple[float | None, float | None] | None) -> None:
    if bounds is None:
        return
    low, high = bounds
    if low is not None and high is not None and low != high:
        ax.axhspan(low, high, color=PASS, alpha=0.12, zorder=0)
    for edge in {b for b in (low, high) if b is not None}:
        ax.axhline(edge, color=TARGET_LINE, linestyle="--", linewidth=1, zorder=3)


def metric_bars(
    table: Sequence[Mapping[str, Any]],
    metrics: Sequence[str],
    targets: Mapping[str, str],
    bounds: Bounds,
    check: Check,
    *,
    columns: int = 4,
    title: str = "",
) -> Figure:
    """One bar panel per metric: variants on x, a dashed line (and band) at the target, pass/fail bars."""
    rows = -(-len(metrics) // columns)
    fig, axes = plt.subplots(rows, columns, figsize=(4.2 * columns, 3.4 * rows), constrained_layout=True)
    names = [str(row["variant"]) for row in table]
    flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    for ax, metric in zip(flat, metrics, strict=False):
        values = [row.get(metric) for row in table]
        colours = [verdict_colour(metric, v, bounds, check) for v in values]
        ax.bar(names, [0 if v is None else v for v in values], color=colours, zorder=2)
        _target_lines(ax, bounds.get(metric))
        for i, v in enumerate(values):
            label = "n/a" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))
            ax.text(i, 0 if v is None else v, label, ha="center", va="bottom", fontsize=7, zorder=4)
        ax.set_title(f"{metric}\ntarget {targets.get(metric, '-')}", fontsize=9)
        ax.tick_params(axis="x", labelrotation=60, labelsize=8)
        ax.margins(y=0.15)
    for ax in flat[len(metrics) :]:
        ax.axis("off")
    fig.legend(handles=LEGEND, loc="outside lower center", fontsize=8, ncols=4)
    if title:
        fig.suptitle(title)
    return fig


def metric_heatmap(
    table: Sequence[Mapping[str, Any]],
    metrics: Sequence[str],
    targets: Mapping[str, str],
    bounds: Bounds,
    check: Check,
    *,
    title: str = "",
) -> Figure:
    """Variants × metrics, each cell coloured pass/fail/no target/n/a and labelled with its value."""
    names = [str(row["variant"]) for row in table]
    order = [PASS, FAIL, NO_TARGET, NOT_APPLICABLE]
    codes = [[order.index(verdict_colour(m, row.get(m), bounds, check)) for m in metrics] for row in table]
    fig, ax = plt.subplots(
        figsize=(1.25 * len(metrics) + 2, 0.55 * len(names) + 2.2), constrained_layout=True
    )
    ax.imshow(codes, cmap=ListedColormap(order), vmin=-0.5, vmax=len(order) - 0.5, aspect="auto")
    for i, row in enumerate(table):
        for j, metric in enumerate(metrics):
            v = row.get(metric)
            label = "n/a" if v is None else (f"{v:.2f}" if isinstance(v, float) else str(v))
            dark = codes[i][j] in (0, 1, 2)
            ax.text(j, i, label, ha="center", va="center", fontsize=8, color="white" if dark else "#444444")
    ax.set_xticks(range(len(metrics)), [f"{m}\n{targets.get(m, '')}" for m in metrics], fontsize=7)
    ax.tick_params(axis="x", labelrotation=50)
    ax.set_yticks(range(len(names)), names, fontsize=9)
    fig.legend(handles=LEGEND, loc="outside lower center", ncols=4, fontsize=8)
    if title:
        ax.set_title(title)
    return fig


def pressure_over_time(
    series: Mapping[str, Sequence[Mapping[str, Any]]],
    *,
    threshold: float,
    title: str = "",
    columns: int = 2,
) -> Figure:
    """One panel per variant: pressure per request (on arrival and peak), threshold, overflow line.

    The shaded band runs from the reading as the request arrives to the request's
    peak; triangles mark requests that evicted part of the queue; vertical lines
    mark session starts.
    """
    names = list(series)
    rows = -(-len(names) // columns)
    fig, axes = plt.subplots(
        rows, columns, figsize=(7 * columns, 2.6 * rows), sharex=True, sharey=True, constrained_layout=True
    )
    flat = list(axes.flat) if hasattr(axes, "flat") else [axes]
    for ax, name in zip(flat, names, strict=False):
        points = list(series[name])
        turns = [p["turn"] for p in points]
        first = [p["first"] for p in points]
        peak = [p["peak"] for p in points]
        ax.fill_between(turns, first, peak, color=NO_TARGET, alpha=0.2, step="mid", linewidth=0)
        ax.plot(turns, peak, color=NO_TARGET, marker=".", linewidth=1.2, label="peak of the request")
        ax.plot(turns, first, color="#7f7f7f", linewidth=0.8, linestyle=":", label="on arrival")
        archived = [p for p in points if p.get("archived")]
        if archived:
            ax.scatter(
                [p["turn"] for p in archived],
                [p["peak"] for p in archived],
                marker="v",
                color=PASS,
                zorder=4,
                label="evicted (archived)",
            )
        ax.axhline(
            threshold, color="#e69f00", linestyle="--", linewidth=1, label=f"threshold {threshold:.2f}"
        )
        ax.axhline(1.0, color=FAIL, linestyle="-", linewidth=1, label="max_tokens (overflow above)")
        sessions: dict[str, int] = {}
        for p in points:
            sessions.setdefault(str(p["session"]), int(p["turn"]))
        for start in list(sessions.values())[1:]:
            ax.axvline(start - 0.5, color="#bbbbbb", linewidth=0.8)
        ax.set_title(name, fontsize=10)
        ax.set_ylabel("tokens / max_tokens", fontsize=8)
    for ax in flat[len(names) :]:
        ax.axis("off")
    flat[0].legend(fontsize=7, loc="upper left")
    for ax in flat[max(0, len(names) - columns) : len(names)]:
        ax.set_xlabel("request (turn of the script); grey lines: new session", fontsize=8)
    if title:
        fig.suptitle(title)
    return fig


def recall_grid(series: Mapping[str, Sequence[Mapping[str, Any]]], *, title: str = "") -> Figure:
    """Probes × variants: recalled within budget, recalled only past max_tokens, or missed."""
    names = list(series)
    probes = list(next(iter(series.values()), []))
    states = ["missed", "recalled, prompt over max_tokens", "recalled within max_tokens"]
    colours = [FAIL, "#e69f00", PASS]
    codes = [[2 if p.get("in_budget") else 1 if p["recalled"] else 0 for p in series[name]] for name in names]
    fig, ax = plt.subplots(figsize=(1.1 * len(probes) + 3, 0.5 * len(names) + 2), constrained_layout=True)
    ax.imshow(codes, cmap=ListedColormap(colours), vmin=-0.5, vmax=2.5, aspect="auto")
    ax.set_xticks(
        range(len(probes)),
        [f"turn {p['turn']}\n+{p['distance']}\n{p['expected']}" for p in probes],
        fontsize=8,
    )
    ax.set_yticks(range(len(names)), names, fontsize=9)
    ax.set_xlabel("probe: its turn, its distance from the fact (turns) and the expected word")
    fig.legend(
        handles=[Patch(color=c, label=s) for c, s in zip(colours, states, strict=True)],
        loc="outside lower center",
        ncols=3,
        fontsize=8,
    )
    if title:
        ax.set_title(title)
    return fig


def score_heatmap(
    rows: Sequence[str],
    columns: Sequence[str],
    values: Sequence[Sequence[float | None]],
    *,
    target: float,
    title: str = "",
    xlabel: str = "",
) -> Figure:
    """Rows × columns of scores, each cell green at or above ``target``, red below, grey when missing."""
    order = [PASS, FAIL, NOT_APPLICABLE]
    codes = [[2 if v is None else 0 if v >= target else 1 for v in row] for row in values]
    fig, ax = plt.subplots(figsize=(1.3 * len(columns) + 3, 0.42 * len(rows) + 1.8), constrained_layout=True)
    ax.imshow(codes, cmap=ListedColormap(order), vmin=-0.5, vmax=2.5, aspect="auto")
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            label = "n/a" if v is None else f"{v:.3f}"
            ax.text(
                j, i, label, ha="center", va="center", fontsize=8, color="white" if v is not None else "#444"
            )
    ax.set_xticks(range(len(columns)), columns, fontsize=8)
    ax.set_yticks(range(len(rows)), rows, fontsize=8)
    if xlabel:
        ax.set_xlabel(xlabel)
    fig.legend(
        handles=[Patch(color=PASS, label=f">= {target:.2f}"), Patch(color=FAIL, label=f"< {target:.2f}")],
        loc="outside lower center",
        ncols=2,
        fontsize=8,
    )
    if title:
        ax.set_title(title)
    return fig


def target_barh(
    labels: Sequence[str], values: Sequence[float], *, target: float, title: str = "", xlabel: str = ""
) -> Figure:
    """Horizontal bars, green at or above ``target`` and red below, with a dashed line at ``target``."""
    fig, ax = plt.subplots(figsize=(8, 0.32 * len(labels) + 1.6), constrained_layout=True)
    ys = list(range(len(labels)))[::-1]
    ax.barh(ys, values, color=[PASS if v >= target else FAIL for v in values], zorder=2)
    ax.axvline(target, color=TARGET_LINE, linestyle="--", linewidth=1, zorder=3, label=f"target {target:.2f}")
    for y, v in zip(ys, values, strict=True):
        ax.text(v, y, f" {v:.3f}", va="center", fontsize=8)
    ax.set_yticks(ys, labels, fontsize=8)
    ax.set_xlim(0, 1.08)
    ax.legend(loc="lower right", fontsize=8)
    if xlabel:
        ax.set_xlabel(xlabel)
    if title:
        ax.set_title(title)
    return fig
