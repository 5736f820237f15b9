"""Reflection's offline rules, without services: signals, concepts, contradictions, bounds, decay."""

from __future__ import annotations

import math
from datetime import datetime

import pytest

from agent.errors import InvalidInputError
from agent.identity import is_bound
from agent.kernel.reflection.anticipation import bottlenecks, recurring_errors, time_patterns
from agent.kernel.reflection.maintenance import activation_of, hourly, negation_conflicts
from agent.kernel.reflection.reports import STEPS, StepReport, check_limit
from agent.kernel.reflection.rules import (
    Signal,
    canonical_concept,
    concept_key,
    contradicts,
    day_part,
    error_kind_of,
    extract_signals,
    polarity_key,
    stable_id,
)
from agent.kernel.reflection.synthesis import Evidence, by_concept, changes, insights_for, parse_signals
from agent.memory.activation import READ_BOOST


def kinds(text: str, **kw: object) -> list[tuple[str, str, str | None]]:
    return [(s.kind, s.concept, s.error_kind) for s in extract_signals(text, **kw)]  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm confused by recursion when the base case is missing.", [("struggle", "recursion", None)]),
        ("I don't understand closures in JavaScript", [("struggle", "closure", None)]),
        ("I'm struggling with big-O notation", [("struggle", "big-o notation", None)]),
        ("I think recursion is really hard", [("struggle", "recursion", None)]),
        ("I keep getting SQL joins wrong again", [("error", "sql join", "mistake")]),
        ("I failed the quiz on list comprehensions", [("error", "list comprehension", "mistake")]),
        ("I keep getting a KeyError in pandas merges", [("error", "panda merge", "KeyError")]),
        ("I made an off-by-one error in my loops again", [("error", "loop", "off-by-one")]),
        ("I keep getting a KeyError.", [("error", "", "KeyError")]),
        ("Closures just doesn't click for me yet.", [("struggle", "closure", None)]),
        ("Could you go over recursion once more? I'm lost.", [("struggle", "recursion", None)]),
        ("I'm stuck on closures, the exercise makes no sense to me.", [("struggle", "closure", None)]),
        ("Recursion still doesn't make sense", [("struggle", "recursion", None)]),
        ("I made an infinite loop in while loops again.", [("error", "while loop", "infinite loop")]),
        ("I keep getting for loops wrong", [("error", "for loop", "mistake")]),
        ("I'm confused by recursion while debugging", [("struggle", "recursion", None)]),
        ("Recursion finally makes sense", [("breakthrough", "recursion", None)]),
        ("I finally understand joins now", [("breakthrough", "join", None)]),
        ("I live in Hanoi and study in the evenings.", []),
        ("", []),
    ],
)
def test_signals_in_learner_statements(text: str, expected: list) -> None:
    assert kinds(text) == expected


def test_known_concepts_absorb_partial_names_and_a_fixed_concept_wins() -> None:
    known = {"sql join": "sql joins"}
    assert kinds("Joins are so confusing!", known=known) == [("struggle", "sql join", None)]
    assert kinds("I don't understand the difference between LEFT and INNER joins", known=known) == [
        ("struggle", "sql join", None)
    ]
    assert kinds("This is hard to remember", concept="Window functions") == [
        ("struggle", "window function", None)
    ]
    assert canonical_concept("join", {"sql join": "sql joins", "join order": "join order"}) == (
        "join order",
        "join order",
    )
    assert canonical_concept("", known) is None and canonical_concept("recursion", known) is None


def test_concept_keys_and_error_kinds() -> None:
    assert concept_key("The SQL Joins") == concept_key("sql join") == "sql join"
    assert concept_key("classes") == "classe" and concept_key("class") == "class"  # plural s only, never "ss"
    assert error_kind_of("a NullPointerException in Java") == "NullPointerException"
    assert error_kind_of("Infinite loops again") == "infinite loop"
    assert error_kind_of("nothing wrong here") is None


def test_day_parts_are_utc() -> None:
    assert day_part("2026-01-10T20:00:00+07:00") == "afternoon"  # 13:00 UTC
    assert [day_part(f"2026-01-10T{h:02d}:00:00+00:00") for h in (0, 6, 12, 18, 23)] == [
        "night",
        "morning",
        "afternoon",
        "evening",
        "evening",
    ]


def test_contradictions_by_negation() -> None:
    assert polarity_key("I don't like Python.") == ("i like python", True)
    assert contradicts("I like Python", "I do not like python")
    assert contradicts("I no longer use Vim", "I use Vim")
    assert not contradicts("I like Python", "I like Python.")
    assert not contradicts("I like Python", "I don't like Java")
    newest_first = [
        {"id": "f3", "text": "I don't enjoy pair programming"},
        {"id": "f2", "text": "I enjoy pair programming"},
        {"id": "f1", "text": "I enjoy pair programming!"},
        {"id": "f0", "text": "I live in Hue"},
    ]
    assert negation_conflicts(newest_first) == [(newest_first[0], ["f2", "f1"])]


def test_ids_are_deterministic_and_learner_scoped() -> None:
    assert stable_id("insight", "a", "recursion", "struggle") == stable_id(
        "insight", "a", "recursion", "struggle"
    )
    assert stable_id("insight", "a", "recursion", "struggle") != stable_id(
        "insight", "b", "recursion", "struggle"
    )


@pytest.mark.parametrize("bad", [9, 101, 0, -5, True, 50.0, "50", None])
def test_batch_bounds(bad: object) -> None:
    with pytest.raises(InvalidInputError):
        check_limit(bad)


def test_batch_bounds_accept_10_to_100() -> None:
    assert [check_limit(n) for n in (10, 50, 100)] == [10, 50, 100]


def ev(
    item: str, kind: str, concept: str, at: str, session: str = "s1", error: str | None = None
) -> Evidence:
    return Evidence(item, "message", at, session, Signal(kind, concept, concept, error))


def test_insights_need_two_items_and_breakthroughs_follow_struggles() -> None:
    one = by_concept([ev("m1", "struggle", "recursion", "2026-03-01T10:00:00+00:00")])
    assert insights_for("a", one["recursion"]) == []
    groups = by_concept(
        [
            ev("m1", "struggle", "recursion", "2026-03-01T10:00:00+00:00"),
            ev("m2", "error", "recursion", "2026-03-02T10:00:00+00:00", "s2", "mistake"),
            ev("m3", "breakthrough", "recursion", "2026-03-03T10:00:00+00:00", "s3"),
        ]
    )
    struggle, breakthrough = insights_for("a", groups["recursion"])
    assert struggle["props"]["category"] == "struggle" and struggle["props"]["evidence_count"] == 2
    assert struggle["props"]["confidence"] == 0.667 and struggle["props"]["sessions"] == 2
    assert "1 of them mistakes" in struggle["props"]["text"]
    assert [r["id"] for r in struggle["evidence"]] == ["m1", "m2"]
    assert breakthrough["props"]["category"] == "breakthrough"
    assert {r["id"] for r in breakthrough["evidence"]} == {"m1", "m2", "m3"}
    [bottleneck] = bottlenecks("a", groups)
    assert bottleneck["props"]["status"] == "resolved"


def test_patterns_from_signals() -> None:
    evidence = [
        ev("m1", "error", "panda merge", "2026-03-01T19:00:00+00:00", "s1", "KeyError"),
        ev("m2", "error", "panda merge", "2026-03-02T19:00:00+00:00", "s2", "KeyError"),
        ev("m3", "error", "panda merge", "2026-03-02T19:05:00+00:00", "s2", "mistake"),
        ev("m4", "struggle", "recursion", "2026-03-02T08:00:00+00:00", "s2"),
    ]
    [error] = recurring_errors("a", evidence)
    assert error["props"]["error_kind"] == "KeyError" and error["props"]["count"] == 2
    [bottleneck] = bottlenecks("a", by_concept(evidence))  # 3 items on one concept
    assert bottleneck["props"]["concept"] == "panda merge" and bottleneck["props"]["status"] == "active"
    study = [{"id": f"m{i}", "source": "message"} for i in range(5)]
    patterns = time_patterns("a", {19: 5, 8: 1}, study, evidence)
    by_activity = {p["props"]["activity"]: p["props"] for p in patterns}
    assert by_activity["study"]["concept"] == "evening" and by_activity["study"]["share"] == 0.833
    assert by_activity["struggle"]["concept"] == "evening" and by_activity["struggle"]["count"] == 3
    assert time_patterns("a", {19: 3, 8: 2}, study, []) == []  # too few messages


def test_unchanged_nodes_are_not_written_and_writes_are_bounded() -> None:
    node = {
        "id": "i1",
        "props": {"text": "t", "evidence_count": 2},
        "evidence": [{"id": "m1", "source": "message"}],
    }
    stored = {"i1": {"props": {"text": "t", "evidence_count": 2, "activation": 1.0}, "evidence": {"m1"}}}
    assert changes([node], stored, 10) == ([], [], [])
    grown = {**node, "evidence": [*node["evidence"], {"id": "m2", "source": "message"}]}
    writes, created, updated = changes([grown], stored, 10)
    assert (
        updated == ["i1"] and created == [] and writes[0]["evidence"] == [{"id": "m2", "source": "message"}]
    )
    many = [{"id": f"n{i:03d}", "props": {}, "evidence": []} for i in range(30)]
    writes, created, _ = changes(many, {}, 10)
    assert len(writes) == 10 and created == [f"n{i:03d}" for i in range(10)]


def test_parse_signals_skips_malformed_entries() -> None:
    items = [
        {"id": "m1", "source": "message", "at": "2026-03-01T10:00:00+07:00", "signals": ["{", "[]", None]}
    ]
    assert parse_signals(items) == []
    good = '{"kind": "struggle", "concept": "x", "name": "x", "error_kind": null}'
    [found] = parse_signals([{**items[0], "signals": [good]}])
    assert found.at == "2026-03-01T03:00:00+00:00" and found.session == "day:2026-03-01"


def test_hourly_decay_uses_whole_hours_of_the_one_decay_law() -> None:
    at = "2026-03-02T19:00:00+00:00"
    assert hourly(2.0, at, datetime.fromisoformat("2026-03-02T19:59:59+00:00")) is None
    value, moved = hourly(2.0, at, datetime.fromisoformat("2026-03-02T21:30:00+00:00"))  # type: ignore[misc]
    assert value == pytest.approx(2.0 * math.exp(-0.1)) and moved == "2026-03-02T21:00:00+00:00"


def test_activation_from_recency_and_frequency() -> None:
    now = datetime.fromisoformat("2026-03-02T20:00:00+00:00")
    fresh = activation_of(0.0, None, ["2026-03-02T20:00:00+00:00", "2026-03-02T10:00:00+00:00", None], now)
    assert fresh == pytest.approx(READ_BOOST * (1 + math.exp(-0.5)), abs=1e-6)  # recency
    assert activation_of(0.0, None, [], now) == 0.0
    assert activation_of(0.0, None, ["2026-03-02T20:00:00+00:00"] * 3, now) == pytest.approx(3 * READ_BOOST)
    # What is stored (e.g. a consultation's read boost) decays from last_access and is kept.
    kept = activation_of(2.0, "2026-03-02T18:00:00+00:00", ["2026-03-02T20:00:00+00:00"], now)
    assert kept == pytest.approx(2.0 * math.exp(-0.1) + READ_BOOST)


def test_step_reports_say_what_changed() -> None:
    assert not StepReport("decay").changed and StepReport("decay", updated=["x"]).changed
    data = StepReport("curation", superseded=["f1"]).to_dict()
    assert data["changed"] and data["counts"] == {"created": 0, "updated": 0, "superseded": 1}


def test_the_graph_has_the_five_steps_in_order_all_bound() -> None:
    from graphs.reflection import make_builder

    builder = make_builder()
    assert list(builder.nodes) == list(STEPS)
    assert all(is_bound(spec.runnable.func or spec.runnable.afunc) for spec in builder.nodes.values())  # type: ignore[attr-defined]
    edges = sorted(builder.edges)
    assert ("__start__", "synthesis") in edges and ("decay", "__end__") in edges


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Why are closures so hard?", [("struggle", "closure", None)]),
        ("Honestly I'm not getting recursion.", [("struggle", "recursion", None)]),
        ("For me, SQL joins are still confusing.", [("struggle", "sql join", None)]),
        ("Recursion is not hard at all.", []),
        ("A KeyError again, this time in the pandas merge.", [("error", "panda merge", "KeyError")]),
        ("What is a KeyError?", []),
    ],
)
def test_cues_anywhere_in_the_statement_name_the_nearest_concept(text: str, expected: list) -> None:
    assert kinds(text) == expected


def test_error_events_of_one_kind_share_their_concept() -> None:
    def ev(i: int, concept: str, kind: str = "KeyError") -> Evidence:
        return Evidence(
            f"m{i}",
            "message",
            f"2026-03-0{i}T09:00:00+00:00",
            f"s{i}",
            Signal("error", concept, concept, kind),
        )

    evidence = [
        ev(1, "panda merge"),
        ev(2, "panda merge failed"),
        ev(3, "dict lookup"),
        ev(4, "panda merge", "IndexError"),
    ]
    patterns = {p["props"]["concept"]: p["props"] for p in recurring_errors("l1", evidence)}
    assert set(patterns) == {"panda merge"}  # the one-off KeyError and the single IndexError stay out
    assert patterns["panda merge"]["count"] == 2 and patterns["panda merge"]["error_kind"] == "KeyError"
