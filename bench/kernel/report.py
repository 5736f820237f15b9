"""Saved kernel-bench results: where they live, how the notebook loads and draws them.

``python -m bench.kernel`` writes ``bench/results/kernel_<run>.json``. ``load_results``
reads ``$KAG_KERNEL_RESULTS``, else the newest ``bench/results/kernel_*.json``, else the
committed snapshot ``bench/kernel/results_snapshot.json`` (a run of the small
configuration, so ``notebooks/04_kernel.ipynb`` runs on a clean clone and in CI without
the services).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results"
SNAPSHOT = Path(__file__).resolve().parent / "results_snapshot.json"
RESULTS_ENV = "KAG_KERNEL_RESULTS"


def load_results(path: str | Path | None = None) -> dict[str, Any]:
    """A saved results file (module docstring for the order of precedence)."""
    path = path or os.environ.get(RESULTS_ENV) or None
    if path is None:
        saved = sorted(DEFAULT_OUT.glob("kernel_*.json"), key=lambda p: p.stat().st_mtime)
        path = saved[-1] if saved else SNAPSHOT
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if "parts" not in data:
        raise ValueError(f"{path}: not a kernel results file")
    data["path"] = str(path)
    return data


def part_text(data: dict[str, Any], part: str) -> str:
    """The printed report of one part, or a note that the run did not include it."""
    saved = data["parts"].get(part)
    return "\n".join(saved["lines"]) if saved else f"({part}: not in this results file)"


def rag_table(data: dict[str, Any]) -> str:
    """The RAG-against-the-kernel summary as a markdown table."""
    rag = data["parts"].get("rag")
    if not rag:
        return "(rag: not in this results file)"
    lines = [ln for ln in rag["lines"] if ln.startswith("|")]
    return "\n".join([f"**{rag['path']}**, {len(rag['rows'])} probes", "", *lines])


def precision(score: dict[str, Any]) -> str:
    """A saved score's precision, ``-`` when nothing was detected."""
    return f"{score['precision']:.0%}" if score["detected"] else "-"


def learning_table(data: dict[str, Any]) -> str:
    """The system-learning scores as a markdown table."""
    learning = data["parts"].get("learning")
    if not learning:
        return "(learning: not in this results file)"
    rows = ["| set | metric | recall | precision | target |", "|---|---|---:|---:|---:|"]
    for name, result in learning["sets"].items():
        for s in result["scores"]:
            target = f"≥ {s['target']:.0%}" if s.get("target") is not None else ""
            rows.append(
                f"| {name} | {s['name']} | {s['recall']:.0%} ({s['found']}/{s['planted']}) | "
                f"{precision(s)} ({s['true_detected']}/{s['detected']}) | {target} |"
            )
    return "\n".join(rows)


def plot_ingestion(data: dict[str, Any]) -> Any:
    """Backlog and lag over time of the ingestion part (matplotlib figure), or None."""
    ingestion = data["parts"].get("ingestion")
    if not ingestion or not ingestion["samples"]:
        return None
    import matplotlib.pyplot as plt

    t, depth, lag = zip(*ingestion["samples"], strict=True)
    fig, left = plt.subplots(figsize=(8, 3))
    left.plot(t, depth, color="tab:blue", label="backlog (events)")
    left.set_xlabel("seconds since start")
    left.set_ylabel("backlog (events)")
    right = left.twinx()
    right.plot(t, lag, color="tab:red", label="lag (s)")
    right.axhline(ingestion["flush_seconds"], color="tab:red", linestyle="--", linewidth=0.8)
    right.set_ylabel("lag (s); dashed: flush interval")
    left.axvline(ingestion["production_seconds"], color="grey", linestyle=":", linewidth=0.8)
    left.set_title(f"{ingestion['config']['sessions']} sessions: backlog and lag (dotted: production ends)")
    fig.tight_layout()
    return fig


def plot_consult(data: dict[str, Any]) -> Any:
    """Consultation latency per query, miss and hit, with the targets (figure), or None."""
    consult = data["parts"].get("consult")
    if not consult or not consult["miss_ms"]:
        return None
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 3))
    ax.plot(consult["miss_ms"], "o-", label="miss")
    ax.plot(consult["hit_ms"], "o-", label="hit")
    ax.axhline(consult["miss_target_ms"], linestyle="--", color="tab:blue", linewidth=0.8)
    ax.axhline(consult["hit_target_ms"], linestyle="--", color="tab:orange", linewidth=0.8)
    ax.set_yscale("log")
    ax.set_xlabel("query")
    ax.set_ylabel("ms (log); dashed: p95 targets")
    ax.set_title(f"Consultation at {consult['memories']} memories")
    ax.legend()
    fig.tight_layout()
    return fig


def rag_probe_table(data: dict[str, Any]) -> str:
    """Every RAG probe on every system: answer found, contradiction resolved, tokens, latency."""
    rag = data["parts"].get("rag")
    if not rag:
        return "(rag: not in this results file)"
    rows = [
        "| scenario | query | superseded | system | answer in output | resolved | tokens | ms |",
        "|---|---|---|---|---|---|---:|---:|",
    ]
    for probe in rag["rows"]:
        for system, out in probe["systems"].items():
            resolved = {None: "", True: "yes", False: "no"}[out["resolved"]]
            rows.append(
                f"| {probe['scenario']} | {probe['query']} | {probe['superseded'] or ''} | {system} | "
                f"{'yes' if out['found'] else 'no'} | {resolved} | {out['tokens']} | {out['ms']:.0f} |"
            )
    return "\n".join(rows)
