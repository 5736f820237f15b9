"""bench.concurrency at a tiny size against the real services, and its knee rule."""

from __future__ import annotations

import argparse

from bench.concurrency import TURNS, LevelResult, baseline_level, heartbeat_level, knee, print_table


def _level(sessions: int, throughput: float, errors: int = 0) -> LevelResult:
    result = LevelResult(sessions, wall=1.0, latencies=[0.1] * int(throughput))
    if errors:
        result.errors["StoreUnavailableError: x"] = errors
    return result


def test_the_knee_is_the_last_level_that_still_gained_throughput() -> None:
    assert knee([_level(50, 20), _level(200, 30), _level(500, 31), _level(2000, 40)]) == 200
    assert knee([_level(50, 20), _level(200, 40, errors=1)]) == 50
    assert knee([]) is None


async def test_a_small_level_runs_every_turn_with_a_tool_call_and_cleans_up(settings, capsys) -> None:
    args = argparse.Namespace(model_ms=50.0, progress=60.0)
    beat = await heartbeat_level(settings, 3, args)
    base = await baseline_level(3, args)
    assert not beat.errors and beat.turns == 3 * TURNS
    assert beat.tool_calls >= 3 * TURNS  # at least one search call per turn
    assert base.turns == 3 * TURNS and base.throughput > beat.throughput
    assert beat.py_rss > 0
    print_table([beat], [base])
    out = capsys.readouterr().out
    assert "knee: 3 sessions" in out and f"{3 * TURNS:>7}" in out
