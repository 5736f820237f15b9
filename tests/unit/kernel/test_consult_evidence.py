"""The pure half of consultation: topic filters, core knowledge, matching, alerts, confidence, brief."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import RunnableLambda

from agent.clock import ManualClock
from agent.identity import is_bound
from agent.kernel.consult import evidence as ev
from agent.kernel.consult.brief import Brief, confidence_label, synthesise, template_brief
from agent.kernel.consult.models import parse_request
from agent.kernel.consult.service import enrich
from agent.models.offline_policy import OfflinePolicyModel
from agent.search.results import SearchHit

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def hit(i: str, text: str, store: str = "facts", concept: str | None = None, kind: str = "fact") -> SearchHit:
    meta: dict[str, Any] = {"store": store}
    if concept:
        meta["concept"] = concept
    return SearchHit(id=i, text=text, score=0.5, created_at=None, kind=kind, metadata=meta)


def test_topic_filters_match_a_concept_or_its_children() -> None:
    assert ev.concept_matches("sql.joins", [])
    assert ev.concept_matches("SQL.Joins", ["sql"]) and ev.concept_matches("sql.joins", ["sql.joins"])
    assert not ev.concept_matches("sqlite", ["sql"]) and not ev.concept_matches(None, ["sql"])
    hits = [hit("a", "x", concept="sql.joins"), hit("b", "y", concept="python"), hit("c", "z")]
    assert [h.id for h in ev.filter_hits(hits, ["sql"])] == ["a", "c"]  # untagged hits stay


def test_core_knowledge_is_the_most_active_current_facts_not_already_found() -> None:
    rows = [
        {"id": "f1", "text": "lives in Hanoi", "activation": 3.0, "last_access": NOW.isoformat()},
        {"id": "f2", "text": "uses VS Code", "activation": 2.0, "last_access": NOW.isoformat()},
        {"id": "f3", "text": "old", "activation": 3.0, "last_access": (NOW - timedelta(days=5)).isoformat()},
        {"id": "f4", "text": "found", "activation": 9.0, "last_access": NOW.isoformat()},
    ]
    core = ev.core_knowledge(rows, ["f4"], NOW)
    assert [c["id"] for c in core] == ["f1", "f2"]  # f3 decayed below the floor, f4 already a hit
    assert core[0]["origin"] == "core" and core[0]["activation"] == 3.0


def test_reflections_match_by_words_or_concept_and_rank_by_overlap_then_activation() -> None:
    rows = [
        {"id": "i1", "text": "Struggles with LEFT JOIN null rows", "concept": "sql.joins", "activation": 1.0},
        {"id": "i2", "text": "Enjoys window functions", "concept": "sql.windows", "activation": 5.0},
        {"id": "i3", "text": "Prefers evening study", "concept": None, "activation": 9.0},
        {"id": "i4", "text": "Mixes up join kinds", "concept": "sql.joins", "activation": 4.0},
    ]
    got = ev.match_reflections(rows, "text", "How do left joins handle nulls?", [], [], NOW)
    assert [g["id"] for g in got] == ["i1", "i4"]
    assert got[0]["shared_words"] == 3 and "last_access" not in got[0]
    by_concept = ev.match_reflections(rows, "text", "anything", ["sql.windows"], [], NOW)
    assert [g["id"] for g in by_concept] == ["i2"]


def test_alerts_peek_due_reminders_and_recurring_errors() -> None:
    reminders = [
        {"id": "r-time", "description": "review joins", "trigger_kind": "time",
         "due_at": (NOW - timedelta(hours=1)).isoformat(), "priority": 2},
        {"id": "r-later", "description": "later", "trigger_kind": "time",
         "due_at": (NOW + timedelta(hours=1)).isoformat(), "priority": 1},
        {"id": "r-word", "description": "ask about HAVING", "trigger_kind": "keywords",
         "keywords": ["window functions"], "priority": 1},
        {"id": "r-concept", "description": "quiz", "trigger_kind": "concept", "concept": "sql.joins",
         "priority": 3},
    ]  # fmt: skip
    patterns = [
        {"id": "p1", "kind": "recurring_error", "description": "no GROUP BY", "concept": "sql", "count": 4},
        {"id": "p2", "kind": "time_of_day", "description": "studies at night", "concept": None},
    ]
    got = ev.alerts(reminders, patterns, "what about window functions?", ["sql.joins"], NOW)
    assert [(a["kind"], a["id"]) for a in got] == [
        ("reminder", "r-word"),
        ("reminder", "r-time"),
        ("reminder", "r-concept"),
        ("recurring_error", "p1"),
    ]


def test_confidence_is_zero_without_evidence_and_grows_with_coverage_agreement_volume() -> None:
    assert ev.confidence("Where do I live?", [], [], []) == (
        0.0,
        {"coverage": 0.0, "sources": [], "items": 0, "missing": ["live"]},
    )
    unrelated, basis = ev.confidence("Where do I live?", [hit("a", "I like tea")], [], [])
    assert unrelated == 0.0 and basis["coverage"] == 0.0  # a nearest neighbour is not evidence
    one, _ = ev.confidence("Where do I live?", [hit("a", "I live in Hanoi")], [], [])
    assert one == pytest.approx(0.567, abs=1e-3)
    stores = ["facts", "archival", "recall"] * 2
    many = [hit(str(i), "I live in Hanoi", store=s) for i, s in enumerate(stores)]
    full, basis = ev.confidence("Where do I live?", many, [], [])
    assert full == 1.0 and basis["sources"] == ["archival", "facts", "recall"] and basis["items"] == 6
    half, _ = ev.confidence("joins and windows", [hit("a", "joins")], [], [])
    assert 0 < half < one


def test_template_brief_is_deterministic_and_says_when_nothing_matches() -> None:
    evidence = {
        "facts": [{"text": "I live in Hanoi"}, {"text": "I use VS Code"}],
        "core": [{"text": "Goal: pass the SQL exam"}],
        "insights": [{"text": "Struggles with LEFT JOIN"}],
        "patterns": [{"description": "forgets GROUP BY", "concept": "sql"}],
        "alerts": [{"kind": "recurring_error", "text": "no GROUP BY"}, {"kind": "reminder", "text": "quiz"}],
    }
    brief = template_brief("What should I know?", evidence, 0.62)
    assert brief == template_brief("What should I know?", dict(evidence), 0.62)
    assert brief.splitlines() == [
        'Consultation on "What should I know?": 4 memories found (confidence 0.62, medium).',
        "Facts: I live in Hanoi | I use VS Code",
        "Core knowledge: Goal: pass the SQL exam",
        "Insights: Struggles with LEFT JOIN",
        "Patterns: forgets GROUP BY (sql)",
        "Alerts: recurring error: no GROUP BY | reminder: quiz",
    ]
    assert template_brief("Where?", {}, 0.0) == (
        'Consultation on "Where?": nothing in memory matches yet (confidence 0.00, none).'
    )
    assert [confidence_label(v) for v in (0, 0.2, 0.5, 0.9)] == ["none", "low", "medium", "high"]


class Boom(OfflinePolicyModel):
    """The offline policy, wired to fail the test if the brief ever asks it."""

    async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover - must not run
        raise AssertionError("the offline policy model must not be asked for a brief")

    def with_structured_output(self, *args: Any, **kwargs: Any) -> Any:  # pragma: no cover
        raise AssertionError("the offline policy model must not be asked for a brief")


class StructuredModel(BaseChatModel):
    """A chat model with structured output (not a LangChain fake: has_structured_output is true)."""

    reply: str = "The learner lives in Hanoi."

    @property
    def _llm_type(self) -> str:
        return "structured-test"

    def _generate(self, messages: Any, stop: Any = None, run_manager: Any = None, **kw: Any) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=self.reply))])

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        return RunnableLambda(lambda _: Brief(brief=self.reply))


async def test_offline_brief_is_the_template_and_never_asks_the_policy() -> None:
    evidence = {"facts": [{"text": "I live in Hanoi"}]}
    brief, method = await synthesise(Boom(), "learner-a", "Where do I live?", "", evidence, 0.5)
    assert method == "template" and brief == template_brief("Where do I live?", evidence, 0.5)
    assert await synthesise(None, "learner-a", "Where?", "", evidence, 0.5) == (
        template_brief("Where?", evidence, 0.5),
        "template",
    )


async def test_a_model_with_structured_output_writes_the_brief_and_failures_fall_back() -> None:
    brief, method = await synthesise(StructuredModel(), "learner-a", "Where?", "ctx", {"facts": []}, 0.0)
    assert (brief, method) == ("The learner lives in Hanoi.", "model")
    empty = StructuredModel(reply="  ")
    assert (await synthesise(empty, "learner-a", "Where?", "", {}, 0.0))[1] == "template"


def test_enrich_keeps_insights_out_when_not_asked_but_still_alerts_on_recurring_errors() -> None:
    found = {
        "hits": [hit("f1", "I keep mixing up left joins", concept="sql.joins").to_dict()],
        "layer": {
            "insights": [{"id": "i1", "text": "left joins confuse them", "concept": "sql.joins"}],
            "patterns": [{"id": "p1", "kind": "recurring_error", "description": "left joins", "count": 3}],
            "core": [],
        },
        "reminders": [],
    }
    clock = ManualClock(NOW)
    shown = enrich(parse_request({"query": "left joins"}), found, clock)["evidence"]
    assert [i["id"] for i in shown["insights"]] == ["i1"] and [p["id"] for p in shown["patterns"]] == ["p1"]
    assert {b["id"] for b in shown["boost"]} == {"i1", "p1"}
    plain = parse_request({"query": "left joins", "include_insights": False})
    hidden = enrich(plain, found, clock)["evidence"]
    assert hidden["insights"] == [] and hidden["patterns"] == [] and hidden["boost"] == []
    assert [a["id"] for a in hidden["alerts"]] == ["p1"]
    assert hidden["basis"]["sources"] == ["facts"] and shown["basis"]["sources"] == [
        "facts",
        "insights",
        "patterns",
    ]


def test_graph_nodes_are_bound_to_the_authenticated_learner() -> None:
    from graphs.consult import make_builder

    builder = make_builder()
    assert set(builder.nodes) == {"check_cache", "search", "enrich", "synthesise", "boost"}
    for spec in builder.nodes.values():
        assert is_bound(spec.runnable.func or spec.runnable.afunc)  # type: ignore[attr-defined]
