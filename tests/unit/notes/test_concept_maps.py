"""Concept maps parse with Mermaid's own parser (node + scripts/mermaid-validate)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from agent.notes.concept_maps import (
    LINE_BREAK,
    escape_label,
    label_text,
    note_concept_map,
    wrapped_label,
)

VALIDATOR = Path(__file__).resolve().parents[3] / "scripts" / "mermaid-validate"
ADVERSARIAL = [
    'He said "use LEFT JOIN" [not INNER]',
    "a --> b -.-> c ==> d",
    "pipes | and |label| inside",
    "brackets ]] [[ (( )) {{ }} and <script>alert(1)</script>",
    "hash #quot; and entity &amp; and `backticks`",
    "unicode: Fußgänger, 日本語, emoji 🧠, RTL שלום",
    "end",
    "semi; colon: percent %% comment",
    "newline\nin the middle",
    "",
]


def validate(diagrams: list[str]) -> list[dict]:
    """Run the real mermaid.parse over ``diagrams``."""
    node = shutil.which("node")
    if node is None or not (VALIDATOR / "node_modules" / "mermaid").is_dir():
        pytest.fail(
            "Mermaid validator not installed: run `npm ci --prefix scripts/mermaid-validate`",
            pytrace=False,
        )
    proc = subprocess.run(
        [node, str(VALIDATOR / "validate.mjs")],
        input=json.dumps(diagrams),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode in (0, 1), proc.stderr
    return json.loads(proc.stdout)


def test_validator_rejects_broken_diagrams() -> None:
    results = validate(['flowchart LR\n  n0["ok"] --> n1["ok"]', 'flowchart LR\n  n0["a" --> '])
    assert [r["ok"] for r in results] == [True, False]


def test_escape_label_removes_every_breaking_character() -> None:
    for label in ADVERSARIAL:
        escaped = escape_label(label)
        assert not set('"[]|<>`{}\n') & set(escaped)


def test_adversarial_labels_parse() -> None:
    notes = []
    for label in ADVERSARIAL:
        notes.append(
            {
                "concept": label,
                "definition": label,
                "personal_example": label,
                "key_insight": label,
                "links": [
                    {
                        "target": "x",
                        "target_concept": label,
                        "relation": "refutes",
                        "directional": True,
                    },
                    {"target": "y", "target_concept": label, "relation": label or "r"},
                ],
            }
        )
    maps = [note_concept_map(n) for n in notes]
    results = validate(maps)
    failures = [(m, r["error"]) for m, r in zip(maps, results, strict=True) if not r["ok"]]
    assert not failures, failures[0]
    assert all(r["diagramType"].startswith("flowchart") for r in results)


def test_note_map_has_one_node_per_concept_and_no_self_links() -> None:
    note = {
        "concept": "sql.joins",
        "definition": "A join combines rows of two tables.",
        "links": [
            {"target": "old", "target_concept": "SQL.Joins", "relation": "successor", "directional": True},
            {"target": "a", "target_concept": "left join", "relation": "elaborates"},
            {"target": "b", "target_concept": "left joins", "relation": "depends_on"},
        ],
    }
    text = note_concept_map(note)
    assert text.count("joins") == 1  # only the focus node names the note's own concept
    assert "successor" not in text
    assert text.count('["left join"]') == 1 and '"elaborates, depends on"' in text
    assert len(validate([text])) == 1 and validate([text])[0]["ok"]


LONG = (
    "A window function computes a value over a set of rows that are related to the current row, "
    "without collapsing them into one row the way GROUP BY does, so every row stays in the result."
)


def test_long_labels_are_whole_and_wrapped_not_cut() -> None:
    note = {"concept": "window function", "definition": LONG, "open_question": "How is it unlike GROUP BY?"}
    text = note_concept_map(note)
    label = next(line for line in text.splitlines() if "computes" in line)
    inner = label[label.index('("') + 2 : label.rindex('")')]
    assert "…" not in inner and label_text(inner) == LONG  # the whole definition, nothing cut
    assert inner.count(LINE_BREAK) >= 3  # wrapped over several lines
    assert all(len(label_text(part)) <= 40 for part in inner.split(LINE_BREAK))
    assert '"to revisit"' in text  # a confusion is drawn as a question, not an insight
    results = validate([text])
    assert results[0]["ok"], results[0]


def test_wrapping_escapes_each_line_and_adds_only_line_breaks() -> None:
    wrapped = wrapped_label('He said "use <LEFT JOIN>" [not INNER] | every row of the left table')
    assert not set('"[]|`{}') & set(wrapped.replace(LINE_BREAK, ""))
    assert "<" not in wrapped.replace(LINE_BREAK, "")
