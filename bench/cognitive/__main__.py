"""Cognitive memory suite: scripted multi-session learners, probes scored on KAG and the baseline.

    .venv/bin/python -m bench.cognitive [PATH] [--dataset PATH] [--scenarios ID ...]
        [--no-baseline] [--model auto|offline|gemini] [--out DIR] [--keep]

Same as ``kag eval cognitive``; the logic lives in ``bench/cognitive/``. PATH (or
``--dataset``) is a ``kag-cognitive-v1`` file; the default is the dev set
``../shared/bench/cognitive_dev.json`` (or ``$KAG_COGNITIVE_PATH``). Needs the services
(``scripts/services.sh up``). The default model is the offline policy (no LLM); with
``GOOGLE_API_KEY`` set, ``--model auto`` also runs the same scenarios end to end with
Gemini. Results go to ``bench/results/`` by default.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys

from agent.errors import KAGError
from bench.cognitive.dataset import default_dataset_path, load_cognitive
from bench.cognitive.report import DEFAULT_OUT, run_and_report
from bench.cognitive.runner import CognitiveConfig


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``python -m bench.cognitive`` and ``kag eval cognitive``."""
    parser.add_argument("path", nargs="?", default=None, help="scenario file (default: the dev set)")
    parser.add_argument("--dataset", default=None, metavar="PATH", help="same as PATH")
    parser.add_argument("--scenarios", nargs="+", default=None, metavar="ID", help="run only these scenarios")
    parser.add_argument("--no-baseline", action="store_true", help="skip the archival-search baseline")
    parser.add_argument(
        "--model",
        choices=("auto", "offline", "gemini"),
        default="auto",
        help="offline policy (no LLM), Gemini end to end, or auto: offline, plus Gemini with GOOGLE_API_KEY",
    )
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="directory for the JSON and markdown results")
    parser.add_argument("--keep", action="store_true", help="keep the learners' data (default: erase it)")
    parser.add_argument(
        "--no-drain",
        action="store_true",
        help="never drain the kernel worker between sessions: probes see the Redis tail (reads-your-writes)",
    )


def models_for(choice: str) -> list[str]:
    """The chat models to run: ``auto`` adds Gemini to the offline run when a key is set."""
    if choice == "auto":
        return ["offline", "gemini"] if os.environ.get("GOOGLE_API_KEY") else ["offline"]
    return [choice]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.cognitive", description=__doc__.splitlines()[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.path and args.dataset and args.path != args.dataset:
        parser.error("give the scenario file once: PATH or --dataset")
    path = str(args.path or args.dataset or default_dataset_path())
    try:
        dataset = load_cognitive(path)
        for model in models_for(args.model):
            config = CognitiveConfig(
                path=path,
                scenarios=tuple(args.scenarios or ()),
                baseline=not args.no_baseline,
                model=model,
                keep=args.keep,
                drain=not args.no_drain,
            )
            print(f"== cognitive suite, model {model} ==", flush=True)
            asyncio.run(run_and_report(config, args.out, dataset=dataset, echo=_echo))
    except KAGError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def _echo(line: str) -> None:
    print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
