"""The step-floor bench on a tiny configuration, against the real Redis."""

from __future__ import annotations

import pytest
import redis

from agent.settings import Settings
from bench.step_floor import CHAINS, SAVERS, Floor, chain, measure, report

pytestmark = pytest.mark.integration


async def test_every_chain_runs_on_every_checkpointer_and_leaves_no_keys(settings: Settings) -> None:
    floors = await measure(settings, turns=3)
    assert [(f.nodes, f.saver) for f in floors] == [(n, s) for n in CHAINS for s in SAVERS]
    assert all(0 < f.p50 <= f.p95 for f in floors)
    lines = report(floors)
    base = next(line for line in lines if line.split()[:2] == ["2", "memory"])
    assert base.split()[-2:] == ["1.0x", "1.0x"]  # every ratio is against this row
    client = redis.Redis.from_url(settings.redis_url)
    try:
        assert not list(client.scan_iter(match="kag-bench-floor-*", count=1000))
    finally:
        client.close()


async def test_a_chain_runs_its_nodes_in_order() -> None:
    graph = chain(6, None)
    out = await graph.ainvoke({"learner_id": "floor", "request": "hi"})
    assert out["step"] == 5  # the last of n0..n5 wrote last


def test_the_report_divides_by_the_two_node_in_memory_chain() -> None:
    floors = [Floor(2, "memory", 2.0, 4.0), Floor(6, "redis", 10.0, 10.0)]
    assert report(floors)[-1].split()[-2:] == ["5.0x", "2.5x"]
