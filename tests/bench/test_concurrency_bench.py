"""bench.concurrency at a tiny size against the real services, and its knee rule.

Speed is measured by ``python -m bench.concurrency``, never asserted here: a timed
comparison on a shared machine fails for reasons that are not the code's. The tests check
what must hold at any speed: every turn is answered, nothing fails, the report carries its
fields, the level's keys are gone afterwards, and the knee rule on fixed numbers.
"""

from __future__ import annotations

import argparse

import redis.asyncio as aioredis

from bench.concurrency import TURNS, LevelResult, baseline_level, heartbeat_level, knee, print_table


def _level(sessions: int, throughput: float, errors: int = 0) -> LevelResult:
    result = LevelResult(sessions, wall=1.0, latencies=[0.1] * int(throughput))
    if errors:
        result.errors["StoreUnavailableError: x"] = errors
    return result


def test_the_knee_is_the_last_level_that_still_gained_throughput() -> None:
    # Fixed, made-up numbers: this checks the rule, not a measurement.
    assert knee([_level(50, 20), _level(200, 30), _level(500, 31), _level(2000, 40)]) == 200
    assert knee([_level(50, 20), _level(200, 40, errors=1)]) == 50
    assert knee([]) is None


async def _bench_keys(redis_url: str) -> set[bytes]:
    """The bench's Redis keys (checkpoints and learner keys of ``bench-conc-`` learners)."""
    client = aioredis.from_url(redis_url)
    try:
        return {k async for k in client.scan_iter(match="*bench-conc-*", count=1000)}
    finally:
        await client.aclose()


async def test_a_small_level_answers_every_turn_with_a_tool_call_and_cleans_up(settings, capsys) -> None:
    args = argparse.Namespace(model_ms=50.0, progress=60.0)
    before = await _bench_keys(settings.redis_url)
    beat = await heartbeat_level(settings, 3, args)
    base = await baseline_level(3, args)
    assert not beat.errors and beat.turns == 3 * TURNS, beat.errors
    assert beat.tool_calls >= 3 * TURNS  # at least one search call per turn
    assert not base.errors and base.turns == 3 * TURNS, base.errors
    assert beat.wall > 0 and base.wall > 0 and beat.py_rss > 0
    assert beat.backlog >= 0 and beat.drain >= 0
    assert await _bench_keys(settings.redis_url) <= before, "the level left Redis keys behind"
    print_table([beat], [base])
    out = capsys.readouterr().out
    for column in ("sessions", "turns", "errors", "degraded", "turns/s", "p95 s", "base t/s", "backlog"):
        assert column in out, column
    row = next(line for line in out.splitlines() if line.startswith(f"{3:>8}{3 * TURNS:>7}"))
    assert row.split()[2] == "0", row  # the errors column
    assert "knee: 3 sessions" in out
