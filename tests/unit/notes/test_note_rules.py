"""Pure rules: edge symmetry, weights and freshness, offline linker, metadata lint."""

from __future__ import annotations

import math

import pytest

from agent.notes.evolution import lint_metadata, offline_metadata
from agent.notes.linking import OFFLINE_MAX_LINKS, build_edges, freshness, link_weight, offline_decisions
from agent.notes.models import LinkDecision, NoteMetadata
from bench.note_metrics import summarise

NEW = {"id": "new", "concept": "left join", "text": "left join keeps rows", "keywords": ["join"]}


def cand(i: str, cosine: float = 0.8, days: float = 0.0, **extra: object) -> dict:
    return {"id": i, "cosine": cosine, "days": days, "concept": i, "keywords": [], **extra}


@pytest.mark.parametrize(
    ("relation", "mirrored"),
    [
        ("elaborates", True),
        ("supports", True),
        ("contradicts", True),
        ("depends_on", True),
        ("example_of", True),
        ("refutes", False),
        ("predecessor", False),
        ("successor", False),
    ],
)
def test_mirrored_unless_directional(relation: str, mirrored: bool) -> None:
    decision = LinkDecision(id="c", relation=relation, rationale="r", confidence=0.9)
    edges = build_edges(NEW, {"c": cand("c")}, [decision], min_confidence=0.65, now="t")
    pairs = {(e["source"], e["target"]) for e in edges}
    assert ("new", "c") in pairs
    assert (("c", "new") in pairs) is mirrored
    assert all(e["directional"] is (not mirrored) for e in edges)


def test_low_confidence_and_unknown_ids_are_dropped() -> None:
    decisions = [
        LinkDecision(id="c", relation="supports", confidence=0.64),
        LinkDecision(id="ghost", relation="supports", confidence=0.99),
    ]
    assert build_edges(NEW, {"c": cand("c")}, decisions, min_confidence=0.65, now="t") == []


def test_weight_is_cosine_times_confidence_times_freshness() -> None:
    assert freshness(0) == 1.0
    assert freshness(60) == pytest.approx(math.exp(-1))
    decision = LinkDecision(id="c", relation="supports", confidence=0.8)
    (edge, _) = build_edges(NEW, {"c": cand("c", 0.7, 30)}, [decision], min_confidence=0.65, now="t")
    assert edge["weight"] == pytest.approx(0.7 * 0.8 * math.exp(-0.5), abs=1e-6)
    assert link_weight(-0.3, 0.9, 1.0) == 0.0


def test_offline_linker_needs_evidence() -> None:
    decisions = offline_decisions(
        NEW,
        [
            cand("very similar", 0.85),
            cand("similar alone", 0.65),  # similar, but nothing shared: no link
            cand("weak-shared", 0.45, keywords=["join", "left"]),
            cand("weak-one-keyword", 0.45, keywords=["join"]),  # one shared word needs cosine ≥ 0.55
            cand("inner join", 0.5),
            cand("too far", 0.2, keywords=["join", "rows"]),
        ],
    )
    by_id = {d.id: d for d in decisions}
    assert set(by_id) == {"inner join", "weak-shared", "very similar"}
    assert by_id["inner join"].relation == "elaborates"  # the concepts share "join"
    assert all(d.confidence >= 0.65 for d in decisions)


def test_offline_linker_chains_revisits_and_caps_new_links() -> None:
    new = {**NEW, "text": "left join keeps rows of the table"}
    revisits = [
        cand(f"old-{i}", 0.5, concept="Left Joins", created_at=f"2026-01-0{i}T00:00:00+00:00")
        for i in (1, 2, 3)
    ]
    others = [cand(f"table-{i}", 0.7 + i / 100, concept="table") for i in range(5)]
    decisions = offline_decisions(new, [*revisits, *others, cand("new", 0.99, concept="left join")])
    assert [d.id for d in decisions][0] == "old-3"  # only the latest revisit, as successor
    assert decisions[0].relation == "successor"
    assert "new" not in {d.id for d in decisions}  # never a self-link
    assert len(decisions) == OFFLINE_MAX_LINKS
    assert [d.id for d in decisions][1:] == ["table-4", "table-3"]  # named by the note: depends_on


PAYLOAD = "left join: A left join keeps every row of the left table. Example: my customers."


def test_lint_accepts_metadata_drawn_from_the_payload() -> None:
    meta = NoteMetadata(
        keywords=["left-join", "rows", "customers"],
        tags=["sql", "example"],
        description="A left join keeps every row of the left table (links: supports).",
    )
    assert lint_metadata(meta, PAYLOAD) == []


def test_lint_rejects_invented_entities() -> None:
    meta = NoteMetadata(
        keywords=["left-join", "postgresql"],
        tags=["sql", "databases-101"],
        description="As Codd showed in 1970, a left join in PostgreSQL keeps rows.",
    )
    violations = lint_metadata(meta, PAYLOAD)
    text = " ".join(violations)
    for invented in ("postgresql", "databases-101", "Codd", "1970", "PostgreSQL"):
        assert invented in text


def test_offline_metadata_passes_its_own_lint() -> None:
    note = {
        "concept": "left join",
        "definition": "A left join keeps every row of the left table.",
        "personal_example": "my customers",
        "keywords": ["left-join"],
        "tags": ["sql"],
        "links": [{"relation": "depends_on", "target": "x"}],
    }
    neighbour = {"id": "x", "keywords": ["table", "inner-join"], "tags": ["sql", "python"]}
    meta = offline_metadata(note, [neighbour])
    assert "table" in meta.keywords and "inner-join" not in meta.keywords
    assert "python" not in meta.tags
    assert lint_metadata(meta, PAYLOAD) == []


def test_metrics_summary() -> None:
    rows = [{"id": str(i), "audit_json": '{"concept_count": 1}', "degree": i % 3} for i in range(20)]
    metrics = summarise(rows)
    assert metrics["note_count"] == 20 and metrics["orphan_count"] == 7
    assert metrics["atomicity_share"] == 1.0
    assert metrics["meets_density_target"] is False
    assert metrics["degree_distribution"] == {"0": 7, "1": 7, "2": 6}
