"""Present a cognitive run: the results JSON, the per-level and per-probe tables, the plot.

Everything here after ``results_dict`` works on the JSON document, so the CLI and
``notebooks/03_cognitive.ipynb`` (which reads a saved results file) show the same thing.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from bench.cognitive.dataset import FORMAT, LEVEL_NAMES, LEVELS, CognitiveDataset, load_cognitive
from bench.cognitive.metacognition import metacognition
from bench.cognitive.probes import BASELINE, KAG
from bench.cognitive.runner import CognitiveConfig, CognitiveResult, run_cognitive
from bench.cognitive.scoring import (
    FALSE_FIRE_TARGET,
    FIRE_ONCE_TARGET,
    TARGETS,
    TurnFirings,
    level_scores,
    meets,
    score_reminders,
    summarise_reminders,
)
from bench.markdown_table import markdown_table

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results"
SNAPSHOT = Path(__file__).resolve().parents[1] / "data" / "cognitive_results_dev.json"
"""A saved dev-set run, so the notebook runs on a clean clone (results/ is not committed)."""
RESULTS_ENV = "KAG_COGNITIVE_RESULTS"
LABELS = {KAG: "KAG", BASELINE: "baseline (archival search)"}


def _reminders(result: CognitiveResult, system: str) -> dict[str, Any]:
    """Reminder figures of one system; the baseline has no reminders, so it never fires."""
    verdicts, turns = [], []
    for s in result.scenarios:
        firings = s.firings()
        if system != KAG:
            firings = [TurnFirings(t.session, t.turn, [], t.scenario) for t in firings]
            verdicts.extend(score_reminders(s.scenario.reminders, firings))
        else:
            verdicts.extend(s.reminders)
        turns.extend(firings)
    expected = [
        (s.scenario.id, c.session, c.turn) for s in result.scenarios for c in s.scenario.reminders if c.fires
    ]
    return summarise_reminders(verdicts, turns, expected).to_dict()


def results_dict(result: CognitiveResult) -> dict[str, Any]:
    """The JSON document of a run: summary per level and system, reminders, metacognition, details."""
    scenarios = [s.to_dict() for s in result.scenarios]
    levels: dict[str, Any] = {}
    for system in result.systems:
        pairs = [(s.scenario.level, p.passed(system)) for s in result.scenarios for p in s.probes]
        for level, (passed, total) in level_scores(pairs).items():
            entry = levels.setdefault(
                level, {"name": LEVEL_NAMES[level], "probes": total, "target": TARGETS.get(level)}
            )
            rate = passed / total
            entry[system] = {"passed": passed, "rate": round(rate, 4), "meets": meets(level, rate)}
    return {
        "benchmark": "cognitive",
        "format": FORMAT,
        "dataset": result.config.path,
        "run_id": result.config.run_id,
        "created_at": result.created_at,
        "chat_model": result.chat_model,
        "embeddings": result.embeddings,
        "systems": list(result.systems),
        "searches": {
            KAG: "classify_offline(query) -> PLANS[intent] -> blended_search(..., as_of)",
            BASELINE: "ArchivalStore.search(page_size=k, recipe hybrid_rrf); no as_of; reminders never fire",
        },
        "targets": {**TARGETS, "fire_once": FIRE_ONCE_TARGET, "false_fire": FALSE_FIRE_TARGET},
        "levels": levels,
        "reminders": {system: _reminders(result, system) for system in result.systems},
        "metacognition": metacognition(scenarios),
        "errors": [f"{s.scenario.id}: {s.error}" for s in result.scenarios if s.error],
        "warnings": list(result.dataset.warnings),
        "scenarios": scenarios,
    }


def _pct(value: float | None, digits: int = 0) -> str:
    return "n/a" if value is None else f"{100 * value:.{digits}f}%"


def _verdict(ok: bool | None) -> str:
    return "n/a" if ok is None else "yes" if ok else "NO"


def level_table(data: Mapping[str, Any]) -> str:
    """One row per level with KAG and the baseline side by side, then the two reminder rows."""
    systems = data["systems"]
    header = ["level", "probed", "n", *(LABELS.get(s, s) for s in systems), "target", "KAG meets"]
    rows = []
    for level in LEVELS:
        entry = data["levels"].get(level)
        if entry is None:
            continue
        cells = [f"{_pct(entry[s]['rate'])} ({entry[s]['passed']}/{entry['probes']})" for s in systems]
        target = f"{_pct(entry['target'])}" if entry["target"] is not None else "-"
        rows.append(
            [level, entry["name"], str(entry["probes"]), *cells, target, _verdict(entry[KAG]["meets"])]
        )
    reminders = data["reminders"]
    kag = reminders.get(KAG, {})
    if kag.get("fire_checks"):
        cells = [
            f"{_pct(r['fire_once_rate'])} ({r['fire_once']}/{r['fire_checks']})"
            for r in (reminders[s] for s in systems)
        ]
        ok = kag["fire_once_rate"] is not None and kag["fire_once_rate"] >= FIRE_ONCE_TARGET
        rows.append(["R", "fires exactly once", str(kag["fire_checks"]), *cells, "100%", _verdict(ok)])
    if kag.get("unrelated_turns"):
        cells = [
            f"{_pct(reminders[s]['false_fire_rate'], 1)} "
            f"({reminders[s]['false_fires']}/{reminders[s]['unrelated_turns']})"
            for s in systems
        ]
        ok = kag["false_fire_rate"] <= FALSE_FIRE_TARGET
        rows.append(
            ["R", "false fires (unrelated turns)", str(kag["unrelated_turns"]), *cells, "≤ 2%", _verdict(ok)]
        )
    return markdown_table(header, rows, numeric_from=2)


def _top(outcome: Mapping[str, Any]) -> str:
    top = outcome.get("top") or []
    if not top:
        return "(no hits)"
    hit = top[0]
    text = " ".join(str(hit["text"]).split())
    return f"[{hit['kind']}] {text[:70]}{'…' if len(text) > 70 else ''}"


def probe_table(data: Mapping[str, Any]) -> str:
    """Every probe: pass/fail per system, the intent and plan KAG used, the top hits and why it failed."""
    systems = data["systems"]
    header = ["scenario", "#", "query", "intent", *(f"{LABELS.get(s, s)}" for s in systems), "KAG top hit"]
    if BASELINE in systems:
        header.append("baseline top hit")
    header.append("why KAG failed")
    rows = []
    for scenario in data["scenarios"]:
        for probe in scenario["probes"]:
            outs = probe.get("systems", {})
            kag = outs.get(KAG, {})
            query = probe["query"] + (f" (as_of {probe['as_of'][:10]})" if probe.get("as_of") else "")
            marks = ["PASS" if outs.get(s, {}).get("passed") else "FAIL" for s in systems]
            row = [
                scenario["id"],
                str(probe["index"]),
                query,
                str(kag.get("intent") or "-"),
                *marks,
                _top(kag),
            ]
            if BASELINE in systems:
                row.append(_top(outs.get(BASELINE, {})))
            reason = probe.get("error") or ("" if kag.get("passed") else kag.get("reason", ""))
            rows.append([c.replace("|", "\\|") for c in [*row, reason]])
    return markdown_table(header, rows)


def reminder_table(data: Mapping[str, Any]) -> str:
    """Every reminder check of KAG (the baseline never fires)."""
    rows = []
    for scenario in data["scenarios"]:
        for v in scenario["reminders"]:
            rows.append(
                [
                    scenario["id"],
                    f"{v['session']}#{v['turn']}",
                    "fires" if v["fires"] else "silent",
                    str(v["fired"]),
                    "PASS" if v["passed"] else "FAIL",
                    v["reason"],
                ]
            )
    return markdown_table(["scenario", "turn", "expected", "fired", "KAG", "why"], rows)


def metacognition_lines(data: Mapping[str, Any]) -> list[str]:
    """The four metacognition figures, one line each, with what they mean."""
    meta = data["metacognition"]
    cal, suf, sq, sc = (
        meta["effort_calibration"],
        meta["sufficiency"],
        meta["search_quality"],
        meta["self_correction"],
    )
    steps = ", ".join(
        f"{i} {v['steps_used']}/{v['budget']} (exhausted {_pct(v['exhausted'])})"
        for i, v in cal["steps_by_intent"].items()
    )
    return [
        "- effort calibration: probe intents as their level calls for "
        f"{_pct(cal['probe_intent_agreement'])}; "
        f"mean steps used/budget per intent: {steps or 'no effort records'}",
        f"- sufficiency judgement: {suf['evaluated_requests']} evaluated requests, judged sufficient "
        f"{_pct(suf['sufficient_share'])}, agrees with the session's probes "
        f"{_pct(suf['agreement_with_probes'])} (n={suf['probes_compared']})",
        f"- search quality: the answer used {sq['used']}/{sq['retrieved']} retrieved facts "
        f"({_pct(sq['used_share'])})",
        f"- self-correction: {sc['corrected_requests']}/{sc['requests_with_effort']} requests re-queried "
        f"({sc['corrections']} re-queries); ended sufficient {_pct(sc['recovered_share'])}",
    ]


def summary_line(data: Mapping[str, Any]) -> str:
    """Scenarios, probes, model and embeddings of a run."""
    probes = sum(len(s["probes"]) for s in data["scenarios"])
    seconds = sum(s["seconds"] for s in data["scenarios"])
    return (
        f"{len(data['scenarios'])} scenarios, {probes} probes, {seconds:.0f} s; chat model "
        f"{data['chat_model']}, embeddings {data['embeddings']}; dataset {data['dataset']}"
    )


def markdown_report(data: Mapping[str, Any]) -> str:
    """The whole report as markdown."""
    meanings = "\n".join(f"- {k}: {v}" for k, v in data["metacognition"]["meanings"].items())
    searches = "\n".join(f"- {LABELS.get(k, k)}: `{v}`" for k, v in data["searches"].items())
    problems = "\n".join(f"- {e}" for e in [*data["errors"], *data["warnings"]]) or "- none"
    return (
        f"# Cognitive memory suite ({data['created_at']}, run {data['run_id']})\n\n{summary_line(data)}.\n\n"
        f"{level_table(data)}\n\n## Searches\n{searches}\n\n## Probes\n{probe_table(data)}\n\n"
        f"## Reminder checks\n{reminder_table(data)}\n\n## Metacognition\n"
        + "\n".join(metacognition_lines(data))
        + f"\n\nWhat they mean:\n{meanings}\n\n## Errors and data warnings\n{problems}\n"
    )


def write_results(data: Mapping[str, Any], out_dir: str | Path) -> dict[str, Path]:
    """Write ``cognitive_<run>.json`` and ``.md`` (``_<model>`` when not offline) into ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    suffix = "" if data["chat_model"] == "offline-policy" else "_" + data["chat_model"].split(":")[-1]
    stem = f"cognitive_{data['run_id']}{suffix}"
    paths = {"json": out / f"{stem}.json", "markdown": out / f"{stem}.md"}
    paths["json"].write_text(json.dumps(data, indent=2, allow_nan=False, default=str) + "\n")
    paths["markdown"].write_text(markdown_report(data))
    return paths


def load_results(path: str | Path | None = None) -> dict[str, Any]:
    """A saved results file.

    ``path``, else ``$KAG_COGNITIVE_RESULTS``, else the newest ``bench/results/cognitive_*.json``,
    else ``SNAPSHOT`` (a committed dev-set run).
    """
    path = path or os.environ.get(RESULTS_ENV) or None
    if path is None:
        saved = sorted(DEFAULT_OUT.glob("cognitive_*.json"), key=lambda p: p.stat().st_mtime)
        path = saved[-1] if saved else SNAPSHOT
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if data.get("benchmark") != "cognitive":
        raise ValueError(f"{path}: not a cognitive results file")
    data["path"] = str(path)
    return data


def save_snapshot(path: str | Path, target: str | Path = SNAPSHOT) -> Path:
    """Copy a results file to ``target`` without the per-turn stream events (the notebook's fallback)."""
    data = load_results(path)
    data.pop("path", None)
    for scenario in data["scenarios"]:
        for turn in scenario["turns"]:
            turn.pop("events", None)
    Path(target).write_text(json.dumps(data, indent=1, allow_nan=False) + "\n")
    return Path(target)


async def run_and_report(
    config: CognitiveConfig,
    out_dir: str | Path | None,
    *,
    dataset: CognitiveDataset | None = None,
    echo: Callable[[str], object] = print,
) -> dict[str, Any]:
    """Run, print the tables through ``echo``, write the files (unless ``out_dir`` is None); return them."""
    dataset = dataset or load_cognitive(config.path)
    for warning in dataset.warnings:
        echo(f"data warning: {warning}")
    result = await run_cognitive(config, dataset, echo=echo)
    data = results_dict(result)
    echo(summary_line(data))
    echo(level_table(data))
    echo("")
    echo(probe_table(data))
    if any(s["reminders"] for s in data["scenarios"]):
        echo("")
        echo(reminder_table(data))
    echo("")
    echo("Metacognition (from the recorded runs):")
    for line in metacognition_lines(data):
        echo(line)
    for error in data["errors"]:
        echo(f"scenario error: {error}")
    if out_dir is not None:
        paths = write_results(data, out_dir)
        echo(f"wrote {paths['json']} and {paths['markdown']}")
    return data


def plot_levels(data: Mapping[str, Any], ax: Any = None) -> Any:
    """Grouped bars per level (and the two reminder rates) for every system, with target ticks."""
    import matplotlib.pyplot as plt  # optional dependency (dev extra)

    from bench.plots import TARGET_LINE

    if ax is None:
        _, ax = plt.subplots(figsize=(11, 4.5), constrained_layout=True)
    systems = data["systems"]
    levels = [lv for lv in LEVELS if lv in data["levels"]]
    labels = [f"{lv}\n{data['levels'][lv]['name']}\n(n={data['levels'][lv]['probes']})" for lv in levels]
    values = {s: [data["levels"][lv][s]["rate"] for lv in levels] for s in systems}
    targets = [data["levels"][lv]["target"] for lv in levels]
    reminders = data["reminders"]
    if reminders.get(KAG, {}).get("fire_checks"):
        labels.append("R\nfires once")
        targets.append(FIRE_ONCE_TARGET)
        for s in systems:
            values[s].append(reminders[s]["fire_once_rate"] or 0.0)
    width = 0.8 / max(1, len(systems))
    colours = {KAG: "#2e8b57", BASELINE: "#9aa5b1"}
    for i, system in enumerate(systems):
        xs = [j - 0.4 + width * (i + 0.5) for j in range(len(labels))]
        ax.bar(xs, values[system], width, label=LABELS.get(system, system), color=colours.get(system))
        for x, v in zip(xs, values[system], strict=True):
            ax.text(x, v + 0.01, f"{100 * v:.0f}", ha="center", fontsize=7)
    for j, target in enumerate(targets):
        if target is not None:
            ax.hlines(target, j - 0.45, j + 0.45, colors=TARGET_LINE, linestyles="--", linewidth=1)
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylim(0, 1.25)
    ax.set_ylabel("share of probes passed")
    ax.set_title("Cognitive suite per level (dashed: the issue-13 target)")
    ax.legend(fontsize=8, loc="upper left", ncols=len(systems))
    return ax
