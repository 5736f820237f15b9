"""Run the memory-kernel benches and save their results for ``notebooks/04_kernel.ipynb``.

    .venv/bin/python -m bench.kernel [PART ...] [--small] [--out DIR]
        [--sessions 50] [--interval 2.0] [--memories 10000] [--rag-set PATH]

PART is any of ``ingestion``, ``consult``, ``learning``, ``rag`` (default: all four, in that
order). ``--small`` is the CI-sized configuration the tests use. Needs the services
(``scripts/services.sh up``). Prints every part's report and writes
``bench/results/kernel_<run>.json``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from agent.settings import Settings
from bench.kernel.report import DEFAULT_OUT

PARTS = ("ingestion", "consult", "learning", "rag")
SMALL_RAG = {
    "cognitive_dev.json": ("dev-L5-city", "dev-L6-goal"),
    "cognitive_kag.json": ("kag-L5-os", "kag-L6-deadline"),
}
"""The scenarios ``--small`` runs, per scenario file (one L5 and one L6 contradiction)."""


async def run_part(part: str, settings: Settings, args: argparse.Namespace) -> Any:
    """Run one part at the default or the small size (``args``: the CLI options); returns its result."""
    small = args.small
    if part == "ingestion":
        from bench.kernel.ingestion import IngestConfig, run_ingestion

        if small:
            config = IngestConfig(sessions=5, turns=3, interval=0.5, flush_seconds=2.0)
        else:
            config = IngestConfig(sessions=args.sessions, interval=args.interval)
        return await run_ingestion(settings, config)
    if part == "consult":
        from bench.kernel.consult_latency import run_consult

        if small:
            return await run_consult(settings, memories=300, queries=10)
        return await run_consult(settings, memories=args.memories)
    if part == "learning":
        from bench.kernel.learning import run_learning_sets

        return await run_learning_sets(settings, learners=6 if small else None)
    from bench.kernel.rag import default_path, run_rag

    path = Path(args.rag_set) if args.rag_set else default_path()
    return await run_rag(settings, path, SMALL_RAG.get(path.name, ()) if small else ())


def main(argv: list[str] | None = None) -> int:
    """Run the chosen parts, print them, save the JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.kernel", description=__doc__.splitlines()[0])
    parser.add_argument("parts", nargs="*", metavar="PART", help=f"any of {', '.join(PARTS)} (default: all)")
    parser.add_argument("--small", action="store_true", help="the CI-sized configuration")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="directory for the JSON results")
    parser.add_argument("--sessions", type=int, default=50, help="ingestion: concurrent sessions")
    parser.add_argument(
        "--interval", type=float, default=2.0, help="ingestion: seconds between a session's turns"
    )
    parser.add_argument("--memories", type=int, default=10_000, help="consult: memories seeded")
    parser.add_argument("--rag-set", default=None, metavar="PATH", help="rag: a kag-cognitive-v1 file")
    args = parser.parse_args(argv)
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    logging.basicConfig(level=logging.ERROR, format="%(levelname)s %(name)s: %(message)s")
    settings = Settings.from_env()
    saved: dict[str, Any] = {
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "small": args.small,
        "parts": {},
    }
    for part in args.parts or PARTS:
        print(f"== {part} ==", flush=True)
        result = asyncio.run(run_part(part, settings, args))
        print("\n".join(result.lines()), flush=True)
        saved["parts"][part] = result.to_dict()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"kernel_{uuid.uuid4().hex[:8]}.json"
    path.write_text(json.dumps(saved, indent=1, default=str) + "\n", encoding="utf-8")
    print(f"saved {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
