"""Ablations against real Neo4j and Redis with the offline policy: full, no auto-archive, two baselines.

The small script (31 turns, ``max_tokens`` 1600) creates memory pressure. The
checks are falsifiable: the sliding window must recall the *recent* fact (so its
search works and its misses come from what it dropped), the full system must
recall an early fact that was evicted by auto-archive and that the window lost,
and without auto-archive every probe's prompt outgrows ``max_tokens`` while the
full system answers early facts from prompts that fit. Retrieval alone (``rag_only``)
answers the superseded fact with the old value, which the full system's fact store has retired.
"""

from __future__ import annotations

import pytest

from agent.memory.erasure import erase_learner, owned_nodes
from agent.resources import Resources
from bench.ablations.learner_script import MOVED
from bench.ablations.run_metrics import METRICS
from bench.ablations.runner import SMALL_FILLER, AblationResult, run_ablations, show_progress
from bench.ablations.target_report import explain_archiving, explain_rag_only, explain_targets, target_misses

COUNT_SUMMARIES = "MATCH (s:SessionSummary {learner_id: $l}) RETURN count(s) AS n"
RATES = (
    "pressure_trigger_rate",
    "auto_archive_success",
    "max_steps_rate",
    "tool_chain_success",
    "recall_precision",
    "recall_rate",
)


@pytest.fixture(scope="module")
async def result(resources: Resources):
    outcome = await run_ablations(
        ["full", "no_auto_archive", "sliding_window", "rag_only"],
        filler=SMALL_FILLER,
        resources=resources,
        progress=False,
        cleanup=False,
    )
    summaries = {}
    try:
        for name, run in outcome.runs.items():
            records, _, _ = await resources.neo4j.execute_query(
                COUNT_SUMMARIES, l=run.learner_id, database_=resources.database
            )
            summaries[name] = records[0]["n"]
        yield outcome, summaries
    finally:
        for run in outcome.runs.values():
            await erase_learner(resources, run.learner_id)


async def test_full_recalls_an_evicted_early_fact_the_sliding_window_lost(result):
    outcome, _ = result
    full = {r.turn: r for r in outcome.runs["full"].records}
    window = {r.turn: r for r in outcome.runs["sliding_window"].records}
    probes = [t for t, r in full.items() if r.is_probe]
    recent = probes[-1]
    assert window[recent].recalled, "the sliding window must recall the fact it still holds"
    # the full system evicted part of its queue between the fact and its probe, and still recalled it
    evicted = [
        t
        for t in probes[:-1]
        if full[t].recalled and any(any(full[u].archive_events) for u in range(full[t].fact_turn, t + 1))
    ]
    won = [t for t in evicted if not window[t].recalled]
    assert won, "the full system should recall an early fact after eviction that the window lost"
    # evicted facts come back from recall storage. (The offline replies are short, so in this small run
    # the 1600-token window may still hold the plain early facts; the superseded one it cannot answer.)
    assert any("conversation_search" in [c.name for c in full[t].tool_results] for t in evicted)


def test_full_knows_the_current_fact_that_retrieval_alone_gets_wrong(result):
    outcome, _ = result

    def home(variant: str):
        return next(r for r in outcome.runs[variant].records if r.is_probe and r.expected == MOVED.expected)

    full, rag = home("full"), home("rag_only")
    assert full.recalled and "Da Nang" not in full.response, full.response
    assert "search_facts" in [c.name for c in full.tool_results]
    assert not rag.recalled and "Da Nang" in rag.response, "retrieval finds the old home, not the move"


def test_the_report_says_what_rag_only_does_as_well_and_what_it_cannot(result):
    text = explain_rag_only(result[0])
    assert "`full` recalled it" in text and "`rag_only` missed it" in text and "Da Nang" in text, text
    assert "agree" in text and "precision" in text


async def test_metrics_are_valid_and_match_the_recorded_run(result):
    outcome, summaries = result
    rows = {row["variant"]: row for row in outcome.table()}
    for row in rows.values():
        assert set(METRICS) <= set(row)
        for key in RATES:
            assert row[key] is None or 0.0 <= row[key] <= 1.0, (row["variant"], key, row[key])
        assert row["turns"] == outcome.config["turns"] and row["sessions"] == 3
        assert 1.0 <= row["average_steps"] <= 5.0
        assert row["context_utilisation"] > 0.0

    full, window = rows["full"], rows["sliding_window"]
    records = outcome.runs["full"].records
    events = [ok for r in records for ok in r.archive_events]
    assert full["pressure_trigger_rate"] > 0 and events, "max_tokens=1600 must create pressure"
    assert full["auto_archive_success"] == pytest.approx(sum(events) / len(events))
    # every successful eviction wrote one SessionSummary in Neo4j
    assert summaries["full"] == sum(events) and summaries["sliding_window"] == 0
    assert summaries["no_auto_archive"] == 0
    assert full["tool_chain_success"] == 1.0  # the two-fact turns of session 1 ran two tools each
    assert full["tool_calls"] == sum(len(r.tool_results) for r in records)
    assert full["note_atomicity"] is not None and full["note_atomicity"] >= 1.0
    assert full["notes_written"] > 0
    assert full["recall_rate"] > window["recall_rate"]

    assert window["auto_archive_success"] is None and window["archive_attempts"] == 0
    assert window["overflow_count"] == 0 and window["note_atomicity"] is None
    assert window["pressure_trigger_rate"] > 0  # the window fills its budget too


async def test_runs_use_their_own_learners_and_are_erased(resources: Resources, result):
    outcome, _ = result
    ids = [run.learner_id for run in outcome.runs.values()]
    assert len(set(ids)) == len(ids)
    full = outcome.runs["full"].learner_id
    assert await owned_nodes(resources, full) > 0  # still there (cleanup=False) until erased
    await erase_learner(resources, full)
    assert await owned_nodes(resources, full) == 0
    assert await resources.redis.exists(f"kag:core:{full}") == 0


def test_report_table_shape(result):
    outcome: AblationResult = result[0]
    ratios = {r["variant"]: r for r in outcome.ratios()}
    assert ratios["full"]["recall_vs_full"] == 1.0 and ratios["full"]["time_vs_full"] == 1.0
    series = outcome.recall_series()
    assert [p["turn"] for p in series["full"]] == [p["turn"] for p in series["sliding_window"]]


async def test_without_auto_archive_the_prompt_outgrows_the_budget_and_early_recall_is_lost(result):
    outcome, _ = result
    rows = {row["variant"]: row for row in outcome.table()}
    full = [r for r in outcome.runs["full"].records if r.is_probe][:-1]  # the early facts
    bare = {r.turn: r for r in outcome.runs["no_auto_archive"].records}
    assert rows["no_auto_archive"]["archive_attempts"] == 0
    # Without eviction the queue only grows: every early probe runs on a prompt over max_tokens ...
    assert all(bare[r.turn].overflowed for r in full)
    assert max(r.peak_pressure for r in bare.values()) > 2.0
    assert rows["no_auto_archive"]["overflow_count"] >= 2
    # ... so a model with that context window answers none of them, while the full system
    # answers most early facts from prompts that fit, after evicting them from its queue.
    assert rows["no_auto_archive"]["recall_in_budget"] == 0.0
    in_budget = [r for r in full if r.recalled_in_budget]
    assert len(in_budget) >= len(full) // 2
    assert all(
        any(any(u.archive_events) for u in outcome.runs["full"].records[r.fact_turn : r.turn])
        for r in in_budget
    )
    assert rows["full"]["recall_in_budget"] > rows["no_auto_archive"]["recall_in_budget"]
    # The offline policy reads no prompt, so raw recall cannot tell them apart; that is why
    # recall_in_budget exists.
    assert rows["no_auto_archive"]["recall_rate"] == rows["full"]["recall_rate"]


def test_target_report_is_computed_from_the_run(result):
    outcome, _ = result
    row = next(r for r in outcome.table() if r["variant"] == "full")
    text = explain_targets(outcome, "full")
    for metric in target_misses(row):
        assert f"`{metric}` = " in text
    if "pressure_trigger_rate" in target_misses(row):
        assert "built to create pressure" in text
    if "average_steps" in target_misses(row):
        steps = sum(1 for r in outcome.runs["full"].records if r.steps == 1)
        assert f"{steps} request(s) with 1 step(s)" in text
    archiving = explain_archiving(outcome)
    assert f"{row['recall_in_budget']:.2f} against 0.00" in archiving


def test_progress_bars_only_on_a_terminal(monkeypatch):
    assert show_progress(True) and not show_progress(False)
    monkeypatch.setenv("TQDM_DISABLE", "1")
    assert not show_progress(None)
    monkeypatch.delenv("TQDM_DISABLE")
    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    assert not show_progress(None)
