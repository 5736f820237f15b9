"""Quantiles and summaries of latency samples, as every kernel bench part prints them."""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence


def percentile(values: Sequence[float], q: float) -> float:
    """The q-quantile (nearest rank, as ``bench.heartbeat.pct``) of ``values``; NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(values: Sequence[float]) -> str:
    """``p50 1.2 ms, p95 3.4 ms`` of seconds ``values``."""
    return f"p50 {percentile(values, 0.5) * 1e3:.1f} ms, p95 {percentile(values, 0.95) * 1e3:.1f} ms"


def verdict(ok: bool) -> str:
    """PASS or MISS."""
    return "PASS" if ok else "MISS"


def show_progress(progress: bool | None = None) -> bool:
    """Whether to draw tqdm bars: ``progress`` when given, else only on a TTY without ``TQDM_DISABLE``.

    The same rule as ``bench.ablations.runner.show_progress``: bars on a terminal, none in
    notebooks or CI logs.
    """
    if progress is not None:
        return progress
    disabled = os.environ.get("TQDM_DISABLE", "").strip().lower() not in ("", "0", "false")
    return not disabled and sys.stderr.isatty()
