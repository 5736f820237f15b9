"""The checkpoint-growth bench on a tiny configuration, against the real services."""

from __future__ import annotations

import pytest
import redis

from agent.settings import Settings
from bench.checkpoint_growth import measure

pytestmark = pytest.mark.integration


async def test_the_bounded_thread_stays_at_keep_and_the_other_grows(settings: Settings) -> None:
    lines = await measure(settings, turns=12, keep=20, every=6, warmup=1)
    sizes = {}  # (scenario, saver, turns) -> (checkpoints, KiB)
    for line in lines:
        words = line.split()
        if len(words) == 8 and words[2] == "keep":  # "no-tool turn  keep all  12  163  1576  78.8"
            sizes[(words[0], words[3], int(words[4]))] = (int(words[5]), int(words[6]))
    assert set(sizes) == {(s, k, n) for s in ("no-tool", "tool") for k in ("all", "20") for n in (6, 12)}
    for scenario in ("no-tool", "tool"):
        every_checkpoint, bounded = sizes[(scenario, "all", 12)], sizes[(scenario, "20", 12)]
        assert every_checkpoint[0] > 30 and 20 <= bounded[0] <= 30  # keep plus a slack of 10 at most
        assert bounded[1] < every_checkpoint[1]
    assert sum(line.endswith("x") for line in lines) == 4  # p50/p95: both savers, both scenarios
    client = redis.Redis.from_url(settings.redis_url)
    try:
        assert not list(client.scan_iter(match="kag-bench-growth-*", count=1000))
    finally:
        client.close()
