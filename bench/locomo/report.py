"""Present a LoCoMo run: markdown tables, JSON and markdown files, per-category bars, CLI output."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.locomo.dataset import CATEGORIES
from bench.locomo.loo import LooResult
from bench.locomo.retrieval import KAG, KAG_DEFAULT, RECALL
from bench.locomo.runner import LocomoConfig, LocomoResult, PresetResult, run_locomo
from bench.locomo.scoring import KS
from bench.markdown_table import markdown_table


def _pct(value: float) -> str:
    return "n/a" if math.isnan(value) else f"{value:.3f}"


def _rows(result: LocomoResult) -> list[tuple[str, PresetResult]]:
    """``(label, result)`` per preset, the agent's default first as "KAG default (<preset>)"."""
    default = result.default
    rows = [(f"{KAG_DEFAULT} ({default.preset.recipe})", default)] if default is not None else []
    return rows + [(r.preset.name, r) for r in result.presets if r is not default]


def preset_table(result: LocomoResult) -> str:
    """One row per preset (the KAG default first): recall@5/10/25/50, ingest and search cost."""
    rows = []
    ingest = f"{result.ingest_ms_per_turn:.1f}"
    for label, r in _rows(result):
        summary, latency = r.recall, r.latency_ms()
        tool = {RECALL: "recall", KAG: "kag"}.get(r.preset.tool, "archival")
        cells = [_pct(summary.overall[k]) for k in KS]
        rows.append([label, tool, *cells, ingest, str(latency["p50"]), str(latency["p95"])])
    header = ["preset", "tool", *(f"R@{k}" for k in KS), "ingest ms/turn", "p50 ms", "p95 ms"]
    return markdown_table(header, rows, numeric_from=2)


def category_table(result: LocomoResult, k: int = 10) -> str:
    """Recall@k per question category (with question counts) for every preset, the default first."""
    counts = result.presets[0].recall.counts if result.presets else {}
    cats = [c for c in CATEGORIES if c in counts]
    header = [f"R@{k} by category", *(f"{CATEGORIES[c]} (n={counts[c]})" for c in cats)]
    rows = [[label, *(_pct(r.recall.by_category[c][k]) for c in cats)] for label, r in _rows(result)]
    return markdown_table(header, rows, numeric_from=1)


CEILING_NOTE = (
    "R@50 bounds what re-ranking the first 50 hits can bring into the top 10: "
    "evidence beyond rank 50 needs a better first stage."
)


def ceiling_table(result: LocomoResult) -> str:
    """Recall@50 per category with the note on what it bounds (the re-ranking ceiling)."""
    return f"{CEILING_NOTE}\n\n{category_table(result, k=50)}"


def loo_table(loo: LooResult, unconstrained: LooResult | None = None) -> str:
    """Leave-one-conversation-out: per held-out fold the preset chosen on the others and its score.

    ``unconstrained`` (the same choice without the latency budget) is summarised on a last line.
    """
    header = [
        "held out",
        "questions",
        "chosen on the other folds",
        "train R@10",
        "train p95 ms",
        "held-out R@10",
        "held-out multi-hop R@10",
    ]
    rows = [
        [
            f.held_out,
            str(f.questions),
            f.chosen if f.within_budget else f"{f.chosen} (none within budget: fastest)",
            _pct(f.train_r10),
            f"{f.train_p95_ms:.1f}",
            _pct(f.held_out_r10),
            _pct(f.held_out_multi_hop_r10),
        ]
        for f in loo.folds
    ]
    lines = [
        markdown_table(header, rows, numeric_from=3),
        "",
        _loo_line(loo, f"p95 <= {loo.budget_ms:.0f} ms"),
    ]
    if unconstrained is not None:
        lines.append(
            _loo_line(unconstrained, "any latency")
            + " ("
            + ", ".join(f"{f.held_out}: {f.chosen}" for f in unconstrained.folds)
            + ")"
        )
    return "\n".join(lines)


def _loo_line(loo: LooResult, among: str) -> str:
    worst = loo.worst
    return (
        f"Leave-one-out R@10, presets with {among}: mean over folds {_pct(loo.mean)}, "
        f"worst fold {_pct(worst.held_out_r10)} ({worst.held_out}), pooled {_pct(loo.pooled)}; "
        f"chosen most: {loo.most_chosen}"
    )


def summary_line(result: LocomoResult) -> str:
    """Questions, conversations, ingestion time and the best preset at R@10."""
    questions = len(result.presets[0].scores) if result.presets else 0
    best = result.best(10) if result.presets else None
    line = (
        f"{questions} questions over {len(result.ingests)} conversations; "
        f"ingest {result.ingest_seconds:.0f} s ({sum(i.turns for i in result.ingests)} turns, "
        f"{result.ingest_ms_per_turn:.1f} ms/turn); "
        f"embeddings {result.embeddings}, chat model {result.chat_model} (no LLM)"
    )
    if best is not None:
        line += f"; best R@10: {best.preset.name} = {_pct(best.recall.overall[10])}"
    return line


def markdown_report(result: LocomoResult) -> str:
    """The whole report as markdown."""
    presets = "\n".join(f"- `{r.preset.name}`: {r.preset.description}" for r in result.presets)
    warnings = "\n".join(f"- {w}" for w in result.dataset.warnings) or "- none"
    loo = result.leave_one_out()
    free = result.leave_one_out(budget_ms=math.inf)
    loo_part = f"## Leave one conversation out\n\n{loo_table(loo, free)}\n\n" if loo is not None else ""
    return (
        f"# LoCoMo retrieval benchmark ({result.created_at}, run {result.config.run_id})\n\n"
        f"Dataset: `{result.config.path}`. {summary_line(result)}.\n\n"
        f"Metric: evidence recall@k, honest turn budget (bench/locomo/scoring.py).\n\n"
        f"{preset_table(result)}\n\n{loo_part}{category_table(result)}\n\n{ceiling_table(result)}\n\n"
        f"## Presets\n{presets}\n\n"
        f"## Data warnings\n{warnings}\n"
    )


def write_results(result: LocomoResult, out_dir: str | Path) -> dict[str, Path]:
    """Write ``locomo_<run>.json`` and ``locomo_<run>.md`` into ``out_dir``; return their paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"locomo_{result.config.run_id}"
    paths = {"json": out / f"{stem}.json", "markdown": out / f"{stem}.md"}
    paths["json"].write_text(json.dumps(_finite(result.to_dict()), indent=2, allow_nan=False) + "\n")
    paths["markdown"].write_text(markdown_report(result))
    return paths


def _finite(value: Any) -> Any:
    """NaN (a mean over no questions) as null, so the file is strict JSON."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


async def run_and_report(
    config: LocomoConfig, out_dir: str | Path | None, *, echo: Callable[[str], object] = print
) -> LocomoResult:
    """Run, print the tables through ``echo`` and write the files (unless ``out_dir`` is None)."""
    result = await run_locomo(config)
    echo(summary_line(result))
    echo(preset_table(result))
    loo = result.leave_one_out()
    if loo is not None:
        echo(loo_table(loo, result.leave_one_out(budget_ms=math.inf)))
    echo(category_table(result))
    echo(ceiling_table(result))
    for warning in result.dataset.warnings:
        echo(f"data warning: {warning}")
    if out_dir is not None:
        paths = write_results(result, out_dir)
        echo(f"wrote {paths['json']} and {paths['markdown']}")
    return result


def plot_categories(result: LocomoResult, k: int = 10, ax: Any = None) -> Any:
    """Grouped bars: recall@k per category (groups) for every preset (bars); returns the axes."""
    import matplotlib.pyplot as plt  # optional dependency (dev extra)

    if ax is None:
        _, ax = plt.subplots(figsize=(12, 5))
    counts = result.presets[0].recall.counts if result.presets else {}
    cats = [c for c in CATEGORIES if c in counts]
    width = 0.8 / max(1, len(result.presets))
    colours = plt.get_cmap("tab20")
    for i, r in enumerate(result.presets):
        values = [r.recall.by_category[c][k] for c in cats]
        positions = [j + i * width for j in range(len(cats))]
        ax.bar(positions, values, width, label=r.preset.name, color=colours(i % 20))
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(cats))])
    ax.set_xticklabels([f"{CATEGORIES[c]}\n(n={counts[c]})" for c in cats])
    ax.set_ylim(0, 1)
    ax.set_ylabel(f"evidence recall@{k}")
    ax.set_title(f"LoCoMo evidence recall@{k} by question category")
    ax.legend(fontsize="small", ncol=2, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return ax
