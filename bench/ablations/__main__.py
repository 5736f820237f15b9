"""Ablation study: every variant and baseline runs the same learner script; prints the metrics.

Variants (``bench/ablations/variants.py``): the full system; without auto-archive,
without the heartbeat loop, without the Zettelkasten; the fixed-window,
sliding-window and RAG-only baselines. All run in this process, one after another,
over the real Neo4j and Redis, with the offline policy (Gemini with
``GOOGLE_API_KEY``). Times are reported only as ratios against the full system.
Writes JSON to ``bench/results/``.

    .venv/bin/python -m bench.ablations [--small] [--variants full,sliding_window]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path

from bench.ablations.runner import FULL_FILLER, SMALL_FILLER, render_report, run_ablations  # noqa: E402
from bench.ablations.target_report import explain_archiving, explain_targets  # noqa: E402
from bench.ablations.variants import ALL_VARIANTS  # noqa: E402

RESULTS = Path(__file__).resolve().parents[1] / "results"
"""``bench/results/`` (gitignored), next to the LoCoMo results."""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--small", action="store_true", help=f"{SMALL_FILLER} filler turns between probes")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS), help="comma-separated names")
    parser.add_argument("--max-tokens", type=int, default=None, help="working-memory budget (default 1600)")
    args = parser.parse_args()
    # The heartbeat WARNs on every pressure crossing (the design's log level); keep the table readable.
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    options = {"filler": SMALL_FILLER if args.small else FULL_FILLER}
    if args.max_tokens:
        options["max_tokens"] = args.max_tokens
    result = asyncio.run(run_ablations([v for v in args.variants.split(",") if v], **options))
    print(render_report(result))
    if "full" in result.runs:
        print("\n" + explain_targets(result))
    if {"full", "no_auto_archive"} <= set(result.runs):
        print("\n" + explain_archiving(result))
    RESULTS.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    out = RESULTS / f"ablations-{stamp}.json"
    payload = {
        "config": result.config,
        "table": result.table(),
        "ratios": result.ratios(),
        "recall_series": result.recall_series(),
        "pressure_series": result.pressure_series(),
        "records": {name: [asdict(r) for r in run.records] for name, run in result.runs.items()},
    }
    out.write_text(json.dumps(payload, indent=2, default=str))
    print(f"\nresults written to {out}")


if __name__ == "__main__":
    main()
