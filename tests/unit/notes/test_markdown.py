"""Exported notes (``agent.notes.markdown``): named by concept, each thing said once, links that resolve."""

from __future__ import annotations

import pytest

from agent.notes.markdown import note_filenames, note_markdown
from agent.notes.offline import offline_extract
from bench.note_checks import prose_of, repeated_sentences

NOTE = {
    "id": "note_abc123",
    "concept": 'SQL "joins"',
    "text": "SQL joins: A join combines rows of two tables. Example: orders and customers.",
    "definition": "A join combines rows of two tables.",
    "personal_example": "My orders table joins the customers table on customer_id.",
    "key_insight": "",
    "open_question": "I am not sure when a join duplicates rows.",
    "tags": ["sql", "data modelling"],
    "keywords": ["join", "inner-join"],
    "description": "A join combines rows of two tables.",
    "created_at": "2026-01-02T03:04:05+00:00",
    "links": [
        {"target": "note_def456", "target_concept": "foreign keys", "relation": "depends_on"},
        {"target": "note_gone", "target_concept": "indexes", "relation": "related"},
    ],
}


def test_front_matter_holds_the_id_and_parses_as_yaml() -> None:
    yaml = pytest.importorskip("yaml")
    text = note_markdown(NOTE)
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["id"] == "note_abc123" and front["concept"] == 'SQL "joins"'
    assert front["tags"] == ["sql", "data-modelling"]


def test_each_thing_is_said_once_under_its_label() -> None:
    text = note_markdown(NOTE)
    prose = prose_of(text)
    assert prose.count("A join combines rows of two tables.") == 1  # not again as a quote
    assert "**Example:** My orders table joins" in text
    assert "**To revisit:** I am not sure when a join duplicates rows." in text
    assert "Insight" not in text
    assert repeated_sentences([prose]) == []
    assert "```mermaid\nflowchart LR" in text


def test_a_description_that_adds_words_is_shown() -> None:
    note = {**NOTE, "description": "Joins are how normalised tables are read back together."}
    assert "> Joins are how normalised tables" in note_markdown(note)


def test_files_are_named_by_concept_and_unique() -> None:
    notes = [
        {"id": "a", "concept": "window function"},
        {"id": "b", "concept": "sql.joins"},
        {"id": "c", "concept": "Window Function"},
        {"id": "d", "concept": "window function"},
        {"id": "e", "concept": "?!"},
    ]
    assert note_filenames(notes) == {
        "a": "window-function.md",
        "b": "joins.md",
        "c": "window-function-2.md",
        "d": "window-function-3.md",
        "e": "note.md",
    }


def test_links_resolve_to_the_exported_files() -> None:
    names = note_filenames([NOTE, {"id": "note_def456", "concept": "foreign key"}])
    text = note_markdown(NOTE, names)
    assert "- depends on: [[foreign-key|foreign keys]]" in text
    assert "- related: indexes" in text  # a note outside the export: its concept, no dead link
    assert "note_def456" not in text.split("## Links")[1]


def test_a_first_session_gives_notes_with_examples_and_questions() -> None:
    said = [
        "A window function computes a value over a set of rows related to the current row.",
        "For example, I used ROW_NUMBER() over each customer's orders to rank them by date.",
        "I am confused about how a window function differs from GROUP BY.",
        "A primary key uniquely identifies each row in a table.",
        "For example, my orders table uses order_id as its primary key.",
    ]
    drafts = {d.concept: d for d in offline_extract([{"role": "user", "content": t} for t in said], None)}
    window = drafts["window function"]
    assert window.personal_example == "I used ROW_NUMBER() over each customer's orders to rank them by date."
    assert window.open_question.startswith("I am confused") and window.key_insight == ""
    assert drafts["primary key"].personal_example == "My orders table uses order_id as its primary key."


def test_sentences_that_share_a_tail_after_a_code_name_are_not_a_repeat() -> None:
    pandas = "I keep rows in pandas.DataFrame objects for the report."
    prose = f"{pandas}\nI keep rows in polars.DataFrame objects for the report."
    assert repeated_sentences([prose]) == []
    assert repeated_sentences([prose, pandas]) != []
