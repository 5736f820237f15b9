"""The checkpoint-growth bench on a tiny configuration, against the real services."""

from __future__ import annotations

import pytest
import redis

from agent.settings import Settings
from bench.checkpoint_growth import measure

pytestmark = pytest.mark.integration


async def test_the_bounded_thread_stays_at_keep_and_the_other_grows(settings: Settings) -> None:
    # keep 5 (slack 10): 4 turns make ~24 checkpoints a thread (about 6 a turn), past keep plus
    # its slack, so the bounded saver has trimmed by then (12 turns at keep 20 checked the same).
    lines = await measure(settings, turns=4, keep=5, every=2, warmup=1)
    sizes = {}  # (scenario, saver, turns) -> (checkpoints, KiB)
    for line in lines:
        words = line.split()
        if len(words) == 8 and words[2] == "keep":  # "no-tool turn  keep all  12  163  1576  78.8"
            sizes[(words[0], words[3], int(words[4]))] = (int(words[5]), int(words[6]))
    assert set(sizes) == {(s, k, n) for s in ("no-tool", "tool") for k in ("all", "5") for n in (2, 4)}
    for scenario in ("no-tool", "tool"):
        every_checkpoint, bounded = sizes[(scenario, "all", 4)], sizes[(scenario, "5", 4)]
        assert every_checkpoint[0] > 15 and 5 <= bounded[0] <= 15  # keep plus a slack of 10 at most
        assert bounded[1] < every_checkpoint[1]
    assert sum(line.endswith("x") for line in lines) == 4  # p50/p95: both savers, both scenarios
    client = redis.Redis.from_url(settings.redis_url)
    try:
        assert not list(client.scan_iter(match="kag-bench-growth-*", count=1000))
    finally:
        client.close()
