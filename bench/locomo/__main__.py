"""LoCoMo retrieval benchmark: evidence recall@5/10/25/50 of every search preset.

    .venv/bin/python -m bench.locomo /work/shared/bench/locomo_dev.json [--presets ...]
        [--limit-conversations N] [--limit-sessions N] [--limit-questions N] [--out DIR] [--keep]
        [--reuse RUN_ID]

Same as ``kag eval locomo``; the logic lives in ``bench/locomo/``. Needs the
services (``scripts/services.sh up``). Results go to ``bench/results/`` by default.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from agent.errors import KAGError
from bench.locomo.report import run_and_report
from bench.locomo.runner import add_arguments, config_from_args


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.locomo", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    try:
        asyncio.run(run_and_report(config_from_args(args), args.out))
    except KAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
