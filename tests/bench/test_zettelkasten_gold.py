"""The gold note metric: offline notes whose concept and definition are right (target ≥ 90%).

The pure part (extraction + scoring) needs no services; the last test ingests the gold
transcripts through the real pipeline (MiniLM, Neo4j, Redis) and scores what was stored.
"""

from __future__ import annotations

import re
import uuid

from agent.notes.artifacts import delete_stream
from agent.notes.models import NoteDraft
from agent.notes.offline import offline_extract
from agent.notes.pipeline import ingest_session
from agent.notes.store import NoteStore
from agent.resources import Resources
from bench.zettelkasten import (
    GOLD_TARGET,
    definition_ok,
    gold_metric,
    keeping_checks,
    load_gold,
    score_notes,
)

FIELDS = ("concept", "definition", "personal_example", "key_insight", "open_question")


def test_gold_set_shape() -> None:
    items = load_gold()
    assert 10 <= len(items) <= 30
    assert len({i["id"] for i in items}) == len(items)
    for item in items:
        assert item["turns"] and all({"role", "content"} <= set(t) for t in item["turns"])
        assert item["gold"] and all(g["concept"] and g["keywords"] for g in item["gold"])


def test_gold_metric_meets_its_target() -> None:
    metric = gold_metric()
    assert metric["notes"] >= len(load_gold()), "fewer notes than transcripts"
    assert metric["share"] >= GOLD_TARGET, metric["misses"]
    assert metric["coverage"] >= 0.8, metric


def test_definition_check_rejects_questions_boilerplate_and_renderings() -> None:
    keywords = ["row", "left table"]
    assert definition_ok("A left join keeps every row of the left table.", "left join", keywords)
    assert not definition_ok("What does a left join keep from the left table?", "left join", keywords)
    assert not definition_ok("Does a left join keep every row", "left join", keywords)
    assert not definition_ok(
        "[offline policy, not an LLM] A left join keeps every row.", "left join", keywords
    )
    assert not definition_ok(
        "[calls archival_memory_insert({'content': 'left join row'})]", "left join", keywords
    )
    assert not definition_ok("I can store facts about the left join row for you.", "left join", keywords)
    assert not definition_ok("A left join keeps data.", "left join", keywords)  # no gold keyword
    assert not definition_ok("An inner join keeps every row of both tables.", "left join", keywords)


def test_scoring_matches_concepts_after_normalisation() -> None:
    gold = [{"concept": "left join", "keywords": ["row"]}]
    drafts = [
        NoteDraft(concept="sql.left_joins", definition="A left join keeps every row of the left table."),
        NoteDraft(concept="LEFT JOIN", definition="What is a left join row?"),
        NoteDraft(concept="find confusing", definition="I find confusing the left join row."),
    ]
    assert [v["ok"] for v in score_notes(drafts, gold)] == [True, False, False]
    assert gold_metric([{"id": "x", "current_concept": None, "turns": [], "gold": gold}])["share"] == 0.0


def test_gold_set_holds_the_cases_of_a_note_worth_keeping() -> None:
    golds = [g for item in load_gold() for g in item["gold"]]
    assert any(g.get("example") for g in golds)
    assert any(g.get("question") for g in golds)
    assert any(g.get("filename") for g in golds)
    assert any(g.get("not_example") for g in golds)
    assert any(g["concept"].isupper() for g in golds)  # an acronym ("CTE") is a concept
    # A single common word the learner defines once is a concept ("A dictionary maps keys to values.").
    once = [
        g["concept"]
        for item in load_gold()
        for g in item["gold"]
        if " " not in g["concept"]
        and sum(g["concept"] in t["content"].lower() for t in item["turns"] if t["role"] == "user") == 1
    ]
    assert len(once) >= 3, once
    # A new learner's first session: who they are, two concepts, an example, a confusion.
    first = [item for item in load_gold() if item["id"].startswith("first-session-")]
    assert len(first) >= 5 and all(len(item["gold"]) >= 2 for item in first)


def test_each_case_is_scored_on_every_gold_note() -> None:
    verdicts = [
        v
        for item in load_gold()
        for v in score_notes(offline_extract(item["turns"], item.get("current_concept")), item["gold"])
    ]
    assert all(v["no_repeats"] for v in verdicts)
    assert sum("example_ok" in v for v in verdicts) >= 8
    assert sum("question_ok" in v for v in verdicts) >= 7
    assert sum("filename_ok" in v for v in verdicts) >= 15
    assert sum("not_example_ok" in v for v in verdicts) >= 8


GOLD = {
    "concept": "window function",
    "keywords": ["row"],
    "example": ["row_number"],
    "question": ["confused"],
    "filename": "window-function.md",
}
DEFINITION = "A window function computes a value over the rows related to the current row."


def test_a_dropped_example_a_kept_marker_or_a_confusion_as_insight_are_misses() -> None:
    kept = NoteDraft(
        concept="window function",
        definition=DEFINITION,
        personal_example="I used ROW_NUMBER() to rank orders.",
        open_question="I am confused about how it differs from GROUP BY.",
    )
    assert all(keeping_checks(kept, GOLD).values())
    dropped = kept.model_copy(update={"personal_example": ""})
    assert keeping_checks(dropped, GOLD)["example_ok"] is False
    marked = kept.model_copy(update={"personal_example": "For example, I used ROW_NUMBER()."})
    assert keeping_checks(marked, GOLD)["example_ok"] is False
    as_insight = kept.model_copy(
        update={"open_question": "", "key_insight": "I am confused about how it differs from GROUP BY."}
    )
    assert keeping_checks(as_insight, GOLD)["question_ok"] is False
    other = kept.model_copy(update={"concept": "window functions (SQL)"})
    assert keeping_checks(other, GOLD)["filename_ok"] is False
    goal = kept.model_copy(update={"personal_example": "My goal is to write the report by Friday."})
    assert keeping_checks(goal, {**GOLD, "not_example": ["goal", "friday"]})["not_example_ok"] is False
    assert keeping_checks(kept, {**GOLD, "not_example": ["goal", "friday"]})["not_example_ok"] is True


def test_a_note_saying_its_definition_twice_is_a_miss() -> None:
    twice = NoteDraft(concept="window function", definition=DEFINITION, key_insight=DEFINITION.upper())
    assert keeping_checks(twice, {})["no_repeats"] is False
    assert score_notes([twice], [GOLD])[0]["ok"] is False


_EDGE = re.compile(r'^\s*(n\d+) [-.<>]+\|"[^"]*"\| (n\d+)$')
_NODE = re.compile(r'^\s*(n\d+)[\[(]+"([^"]*)"')


async def test_gold_notes_survive_the_store(resources: Resources) -> None:
    learner = f"gold-{uuid.uuid4()}"
    store = NoteStore.for_resources(resources)
    try:
        right = total = 0
        for item in load_gold():
            out = await ingest_session(resources, learner, item["turns"], item["current_concept"], item["id"])
            assert out["failures"] == []
            notes = await store.get_notes(learner, [a["note_id"] for a in out["artifacts"]])
            drafts = [NoteDraft.model_validate({k: v for k, v in n.items() if k in FIELDS}) for n in notes]
            verdicts = score_notes(drafts, item["gold"])
            right += sum(v["ok"] for v in verdicts)
            total += len(verdicts)
            for artifact in out["artifacts"]:
                lines = artifact["concept_map"].splitlines()
                labels = {m.group(1): m.group(2) for m in map(_NODE.match, lines) if m}
                edges = [m.groups() for m in map(_EDGE.match, lines) if m]
                assert all(a != b for a, b in edges), "self-loop"
                concepts = [label for node, label in labels.items() if node != "n0" and len(label) < 60]
                assert labels["n0"] not in concepts, "a second node for the note's own concept"
        assert total and right / total >= GOLD_TARGET
    finally:
        await store.delete_learner(learner)
        await resources.neo4j.execute_query(
            "MATCH (l:Learner {id: $l}) WHERE NOT (l)--() DELETE l",
            {"l": learner},
            database_=resources.database,
        )
        await delete_stream(resources.redis, learner)
