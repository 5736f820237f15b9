"""The cognitive report on a hand-built run: levels side by side, baseline reminders, files, plot, CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.cognitive.dataset import parse_cognitive
from bench.cognitive.metacognition import metacognition
from bench.cognitive.probes import BASELINE, KAG, SearchOutcome
from bench.cognitive.report import (
    level_table,
    load_results,
    markdown_report,
    plot_levels,
    probe_table,
    results_dict,
    write_results,
)
from bench.cognitive.runner import (
    CognitiveConfig,
    CognitiveResult,
    ProbeResult,
    ScenarioResult,
    TurnRecord,
    firing_ids,
)
from bench.cognitive.scoring import Hit, score_probe, score_reminders

pytestmark = pytest.mark.unit

DOC = {
    "format": "kag-cognitive-v1",
    "scenarios": [
        {
            "id": "u-L5",
            "level": "L5",
            "sessions": [
                {"id": "s1", "date": "2026-01-10T08:00:00+07:00", "learner": ["I live in Hue."]},
                {"id": "s2", "date": "2026-02-10T08:00:00+07:00", "learner": ["Actually, I moved to Vinh."]},
            ],
            "probes": [
                {
                    "after": "s2",
                    "query": "Where does the learner live?",
                    "expect": [{"all": ["vinh"]}],
                    "first": True,
                }
            ],
        },
        {
            "id": "u-R",
            "level": "R",
            "sessions": [
                {
                    "id": "s1",
                    "date": "2026-01-10T08:00:00+07:00",
                    "learner": ["Remind me at HAVING.", "ORDER BY"],
                },
                {"id": "s2", "date": "2026-01-12T08:00:00+07:00", "learner": ["HAVING now"]},
            ],
            "reminders": [
                {"session": "s1", "turn": 1, "fires": False},
                {"session": "s2", "turn": 0, "fires": True},
            ],
        },
    ],
}


def effort(intent: str, **kw) -> dict:
    return {"memory_state": {"effort": {"intent": intent, **kw}}}


def build() -> CognitiveResult:
    dataset = parse_cognitive(DOC, "unit.json")
    l5, rem = dataset.scenarios
    dates = {s.id: s.date for s in l5.sessions}
    probe = l5.probes[0]
    kag_hits = [Hit("I moved to Vinh", kind="fact"), Hit("I live in Hue", kind="fact")]
    base_hits = [Hit("I live in Hue", kind="fact"), Hit("I moved to Vinh", kind="fact")]
    pr = ProbeResult(0, probe)
    pr.outcomes = {
        KAG: SearchOutcome(
            KAG, "blended_search(plan=contradiction_resolution)", kag_hits, 0.01, "contradiction_resolution"
        ),
        BASELINE: SearchOutcome(BASELINE, "archival.search(hybrid_rrf)", base_hits, 0.01),
    }
    pr.verdicts = {s: score_probe(probe, o.hits, dates) for s, o in pr.outcomes.items()}
    first = ScenarioResult(l5, "learner-a", probes=[pr])
    first.turns = [
        TurnRecord("s1", 0, "I live in Hue.", **effort("simple_recall", budget=5, steps_used=2)),
        TurnRecord(
            "s2",
            0,
            "Actually, I moved to Vinh.",
            **effort(
                "contradiction_resolution",
                budget=4,
                steps_used=4,
                evaluations=2,
                sufficient=True,
                self_corrections=1,
                retrieved=["a", "b"],
                used=["a"],
            ),
        ),
    ]
    second = ScenarioResult(rem, "learner-b")
    second.turns = [
        TurnRecord("s1", 0, "Remind me at HAVING."),
        TurnRecord("s1", 1, "ORDER BY"),
        TurnRecord("s2", 0, "HAVING now", fired=["r1"]),
    ]
    second.reminders = score_reminders(rem.reminders, second.firings())
    config = CognitiveConfig(path="unit.json", run_id="unit")
    return CognitiveResult(config, dataset, [first, second], chat_model="offline-policy", embeddings="minilm")


def test_results_put_kag_and_the_baseline_side_by_side():
    data = results_dict(build())
    assert data["levels"]["L5"][KAG] == {"passed": 1, "rate": 1.0, "meets": True}
    assert data["levels"]["L5"][BASELINE] == {"passed": 0, "rate": 0.0, "meets": False}
    kag, base = data["reminders"][KAG], data["reminders"][BASELINE]
    assert (kag["fire_once"], kag["fire_checks"], kag["false_fires"]) == (1, 1, 0)
    assert kag["unrelated_turns"] == 4  # every turn of both scenarios but the one that must fire
    assert (base["fire_once"], base["false_fire_rate"]) == (0, 0.0)
    table = level_table(data)
    assert "| L5 | contradiction and as_of | 1 | 100% (1/1) | 0% (0/1) | 90% | yes |" in table
    assert "fires exactly once" in table and "false fires" in table
    probes = probe_table(data)
    assert "contradiction_resolution" in probes and "[fact] I moved to Vinh" in probes
    assert "first: the top fact does not match" not in probes  # KAG passed: no reason column text


def test_metacognition_from_the_effort_records():
    meta = metacognition(results_dict(build())["scenarios"])
    cal = meta["effort_calibration"]
    assert cal["probe_intent_agreement"] == 1.0
    assert cal["steps_by_intent"]["contradiction_resolution"]["exhausted"] == 1.0
    assert cal["steps_by_intent"]["simple_recall"]["used_share"] == 0.4
    assert meta["sufficiency"]["evaluated_requests"] == 1
    assert meta["sufficiency"]["agreement_with_probes"] == 1.0  # sufficient, and the s2 probe passed
    assert meta["search_quality"]["used_share"] == 0.5
    assert meta["self_correction"]["corrected_requests"] == 1
    assert meta["self_correction"]["recovered_share"] == 1.0
    empty = metacognition([])
    assert empty["search_quality"]["used_share"] is None and empty["sufficiency"]["sufficient_share"] is None


def test_files_round_trip_and_the_plot_draws(tmp_path: Path):
    data = results_dict(build())
    paths = write_results(data, tmp_path)
    assert paths["json"].name == "cognitive_unit.json"
    loaded = load_results(paths["json"])
    assert loaded["levels"] == json.loads(json.dumps(data["levels"]))
    assert "# Cognitive memory suite" in markdown_report(loaded)
    with pytest.raises(ValueError, match="not a cognitive results file"):
        other = tmp_path / "x.json"
        other.write_text('{"benchmark": "locomo"}')
        load_results(other)
    import matplotlib

    matplotlib.use("Agg")
    ax = plot_levels(loaded)
    assert len(ax.patches) == 4  # L5 and R (fires once), for KAG and the baseline


def test_firing_ids_from_reminder_events():
    assert firing_ids({"phase": "reminder", "reminders": [{"id": "r1"}, {"id": "r2"}]}, "t") == ["r1", "r2"]
    assert firing_ids({"phase": "reminder", "id": "r3"}, "t") == ["r3"]
    assert firing_ids({"phase": "reminder", "description": "review GROUP BY"}, "t") == ["review GROUP BY"]
    assert firing_ids({"phase": "reminder"}, "t") == ["t#0"]


def test_cli_knows_the_cognitive_evaluation():
    from graphs.cli import EVALUATIONS

    assert EVALUATIONS["cognitive"][0] == "bench.cognitive"


def test_model_choice_and_bad_dataset_exit_code(monkeypatch, tmp_path: Path, capsys):
    from bench.cognitive.__main__ import main, models_for

    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    assert models_for("auto") == ["offline"]
    monkeypatch.setenv("GOOGLE_API_KEY", "set")
    assert models_for("auto") == ["offline", "gemini"] and models_for("offline") == ["offline"]
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "kag-cognitive-v1", "scenarios": []}')
    assert main([str(bad)]) == 2
    assert "bad.json: scenarios: expected a non-empty list" in capsys.readouterr().err
