"""Wall time of ``kag`` commands from a fresh process, with the machine's load beside it.

Each command runs ``--runs`` times as a new ``kag`` process (the console script next to
this interpreter), the commands interleaved so the load of a shared machine hits each one
alike; the line per command gives the median and the spread, and the load average
(1 minute) before and after the runs.

    .venv/bin/python -m bench.cli_start [--runs 5] [--learner local] [--query "SQL joins"]

Services must be up (``bash scripts/services.sh up``): both commands read them.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path


def kag_executable() -> str:
    """The ``kag`` console script of this interpreter's environment."""
    return str(Path(sys.executable).with_name("kag"))


def commands(learner: str, query: str) -> dict[str, list[str]]:
    """The measured commands by label: a search and a core-memory read for one learner."""
    kag = kag_executable()
    return {
        "kag search": [kag, "search", query, "--learner", learner],
        "kag memory show": [kag, "memory", "show", "--learner", learner],
    }


def wall_seconds(argv: list[str]) -> float:
    """Seconds from spawning ``argv`` to its exit; a failing command is an error, not a time."""
    began = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, timeout=600)
    return time.perf_counter() - began


def measure(runs: int, learner: str, query: str) -> dict[str, list[float]]:
    """``runs`` wall times per command, the commands taking turns."""
    argvs = commands(learner, query)
    times: dict[str, list[float]] = {label: [] for label in argvs}
    for _ in range(runs):
        for label, argv in argvs.items():
            times[label].append(wall_seconds(argv))
    return times


def report(times: dict[str, list[float]], load_before: float, load_after: float) -> list[str]:
    """One line per command: median, min-max, runs, the 1-minute load average before/after."""
    return [
        f"{label}: median {statistics.median(values):.2f} s (min {min(values):.2f}, max {max(values):.2f},"
        f" {len(values)} runs; load {load_before:.2f} -> {load_after:.2f})"
        for label, values in times.items()
    ]


def main(argv: list[str] | None = None) -> int:
    """Measure and print the report lines."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--learner", default="local")
    parser.add_argument("--query", default="SQL joins")
    args = parser.parse_args(argv)
    before = os.getloadavg()[0]
    times = measure(args.runs, args.learner, args.query)
    for line in report(times, before, os.getloadavg()[0]):
        print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
