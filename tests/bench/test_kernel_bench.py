"""Every kernel bench part on a tiny configuration, against the real Neo4j and Redis.

Each test checks what the part's output says against what must be true of it: nothing
the producers logged is lost or doubled, misses are misses and hits are hits, the scores
are computed on the planted truth, every learner is erased afterwards.
"""

from __future__ import annotations

import re

import pytest

from agent.memory.erasure import owned_nodes
from agent.resources import Resources
from agent.settings import Settings
from bench.heartbeat import BASELINE, MESSAGES_PER_TURN, NO_TOOL, SCENARIOS, TOOL, measure, report
from bench.kernel.__main__ import main as kernel_main
from bench.kernel.consult_latency import run_consult
from bench.kernel.ingestion import EVENTS_PER_TURN, IngestConfig, run_ingestion
from bench.kernel.learning import load_set, run_learning, small_set
from bench.kernel.node_timer import node_times
from bench.kernel.rag import CONSULT, SYSTEMS, default_path, run_rag
from bench.kernel.turn_report import BASELINE_REDIS, HEARTBEAT_INMEMORY

pytestmark = pytest.mark.integration


async def _erased(resources: Resources, learners: list[str]) -> None:
    for learner in learners:
        assert await owned_nodes(resources, learner) == 0
        assert not [k async for k in resources.redis.scan_iter(match=f"*{{{learner}}}*", count=1000)]


async def test_heartbeat_rows_kernel_and_sync_in_one_run(settings: Settings):
    turns = 3
    series = await measure(settings, turns, 100_000, ("kernel", "sync"))
    assert [(s.scenario, s.graph == BASELINE) for s in series] == [
        (scenario, base) for scenario in SCENARIOS for base in (True, False, False)
    ]
    for s in series:
        assert len(s.times) == turns and all(t > 0 for t in s.times)
        assert len(s.cpu) == turns and all(0 < c <= t + 0.01 for c, t in zip(s.cpu, s.times, strict=True))
        if s.graph != BASELINE:  # everything the turns logged reached Neo4j, once
            assert s.stored == MESSAGES_PER_TURN[s.scenario] * turns
        if s.scenario == TOOL and s.graph != BASELINE:
            assert len(s.searches) == turns and all(
                0 < x < t for x, t in zip(s.searches, s.times, strict=True)
            )
    kernel = [s for s in series if "kernel" in s.graph]
    assert all(s.worker["applied"] > 0 and s.worker["dead_lettered"] == 0 for s in kernel)
    lines = report(series, warmup=1)
    assert sum(bool(re.match(rf"({NO_TOOL}|{TOOL})\s\s", ln)) for ln in lines) >= 6
    assert any(ln.startswith("no-tool turn, heartbeat, kernel logging: p95 ratio") for ln in lines)
    assert sum("overhead p50" in ln and ("PASS" in ln or "MISS" in ln) for ln in lines) == 2
    cpu = lines[lines.index(next(ln for ln in lines if ln.startswith("CPU of the event loop"))) :]
    assert sum(bool(re.match(rf"({NO_TOOL}|{TOOL})\s.*ms\s+\d+\.\dx$", ln)) for ln in cpu) == 6


async def test_decompose_runs_each_graph_on_the_other_checkpointer_and_judges_neither(settings: Settings):
    turns = 2
    series = await measure(settings, turns, 100_000, ("kernel",), decompose=True)
    assert [(s.scenario, s.graph, s.judged) for s in series] == [
        (scenario, graph, judged)
        for scenario in SCENARIOS
        for graph, judged in (
            (BASELINE, True),
            ("heartbeat, kernel logging", True),
            (BASELINE_REDIS, False),
            (HEARTBEAT_INMEMORY, False),
        )
    ]
    for s in series:
        assert len(s.times) == turns and all(t > 0 for t in s.times)
        if "heartbeat" in s.graph:  # the InMemorySaver heartbeat logs through the kernel too
            assert s.stored == MESSAGES_PER_TURN[s.scenario] * turns
    lines = report(series, warmup=0)
    for scenario in SCENARIOS:
        for graph in (BASELINE_REDIS, HEARTBEAT_INMEMORY):
            assert any(re.match(rf"{scenario}\s+{re.escape(graph)}\s+{turns}\s", ln) for ln in lines)
    targets = [ln for ln in lines if "p95 ratio" in ln and "(target" in ln]
    assert [ln.split(":")[0] for ln in targets] == ["no-tool turn, heartbeat, kernel logging"]
    overhead = [ln for ln in lines if "overhead p50" in ln]
    assert len(overhead) == 2
    assert "(target <= 20 ms p95:" in overhead[0] and overhead[1].endswith("(not judged: a --decompose row)")


def test_the_heartbeat_bench_drains_streams_of_its_own(settings: Settings):
    """No other worker drains the bench's learners, and the bench's worker drains no one else's."""
    from bench.kernel.turn_runs import settings_for

    own = settings_for(settings, "kernel")
    assert own.kernel_prefix != settings.kernel_prefix
    assert own.neo4j_database == settings.neo4j_database and own.ingest_mode == "kernel"


async def test_the_per_node_pass_times_every_node_the_real_heartbeat_runs(settings: Settings):
    turns = 2
    timed = await node_times(
        settings, turns, warmup=1, budgets={NO_TOOL: 100_000, TOOL: 100_000}, durability="exit"
    )
    plain = {"receive", "monitor", "compile", "think"}
    no_tool, _ = timed[NO_TOOL]
    assert {node: len(runs) for node, runs in no_tool.seconds.items()} == dict.fromkeys(plain, turns)
    tool, n = timed[TOOL]
    assert n == turns and set(tool.seconds) == plain | {"act"}
    assert len(tool.seconds["think"]) == 2 * turns  # think, act, then think again with the result
    assert all(0 < t < 5 for runs in tool.seconds.values() for t in runs)


async def test_ingestion_loses_nothing_and_reports_backlog_and_lag(settings: Settings, resources: Resources):
    config = IngestConfig(sessions=4, turns=2, interval=0.3, sample_every=0.2, flush_seconds=1.0)
    result = await run_ingestion(settings, config, progress=False)
    assert result.events == 4 * 2 * EVENTS_PER_TURN and result.messages == 4 * 2 * 4
    assert result.stored == result.messages  # nothing lost, nothing doubled
    assert result.samples and result.samples[-1][1] == 0  # drained at the end
    assert 0 <= result.max_backlog <= result.events
    assert len(result.enqueue_seconds) == result.events and result.pressured == 0
    assert result.flush_seconds == 1.0 and result.produced_per_s > 0
    text = "\n".join(result.lines())
    assert "all there, none doubled" in text and ("keeps up" in text) and ("PASS" in text or "MISS" in text)
    await _erased(resources, result.learners)


async def test_consultation_misses_then_hits(settings: Settings, resources: Resources):
    result = await run_consult(settings, memories=40, queries=4, progress=False)
    assert len(result.misses) == len(result.hits) == 4
    assert result.miss_cached == 0 and result.hit_uncached == 0 and result.same_payload
    assert sorted(result.hits)[1] < sorted(result.misses)[1]  # a hit reads one Redis key
    assert all(n > 0 for n in result.facts_per_miss)
    assert any("target p95 <= 150 ms" in ln for ln in result.lines())
    await _erased(resources, [result.learner])


async def test_system_learning_scores_the_planted_set(settings: Settings, resources: Resources):
    data = small_set(load_set(), 4)
    result = await run_learning(settings, data, progress=False)
    assert result.messages == sum(len(s["messages"]) for lr in data["learners"] for s in lr["sessions"])
    assert result.rounds >= 1 and set(result.patterns) == {lr["id"] for lr in data["learners"]}
    names = {s.name for s in result.scores}
    assert {
        "bottleneck detection (aggregate bottlenecks)",
        "pattern recognition (recurring error, concept)",
    } <= names
    patterns = result.score("pattern recognition (recurring error, concept)")
    assert patterns.planted == len(data["truth"]["recurring_errors"]) == 4
    assert patterns.found >= 1  # "I keep getting an off-by-one error in binary search" (x3) is one
    # the aggregate crosses learners as counts keyed by concept or error kind, never learner ids
    flat = repr(result.aggregate)
    assert all(lid not in flat for lid in result.learner_ids)
    await _erased(resources, result.learner_ids)


async def test_rag_against_the_kernel_on_one_contradiction(settings: Settings, resources: Resources):
    path = default_path()
    scenario = "dev-L5-city" if path.name == "cognitive_dev.json" else "kag-L5-os"
    result = await run_rag(settings, path, (scenario,), progress=False)
    assert not result.errors, result.errors
    assert len(result.rows) == 1 and result.rows[0].superseded  # the as_of probe is left out
    row = result.rows[0]
    assert set(row.outputs) == set(SYSTEMS)
    assert all(o.tokens > 0 and o.seconds > 0 for o in row.outputs.values())
    assert row.outputs[CONSULT].text.startswith('{"brief"')
    summary = {s["system"]: s for s in result.summary()}
    assert all(s["probes"] == 1 and s["contradictions"] == 1 for s in summary.values())
    assert all(s["resolved"] == int(bool(row.resolved(name))) for name, s in summary.items())
    assert any(ln.startswith("| kernel: consult_memory | 1 |") for ln in result.lines())
    await _erased(resources, result.learners)


def test_the_cli_refuses_an_unknown_part():
    with pytest.raises(SystemExit):
        kernel_main(["nope"])
