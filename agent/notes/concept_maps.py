"""Mermaid ``flowchart`` concept maps: one per note.

Node ids are generated (``n0``, ``n1``…), so no text ever lands in an id. Every
label is quoted and escaped with Mermaid entity codes (``#quot;``, ``#35;``…),
so quotes, brackets, pipes, ``-->`` and unicode inside text cannot break the
diagram. Tests validate the output with Mermaid's own parser
(``scripts/mermaid-validate``).
"""

from __future__ import annotations

import textwrap
from typing import Any

from agent.notes.text import normalise_concept

MAX_LABEL = 600  # a note field's own limit: labels are whole, wrapped, never cut short
WRAP_WIDTH = 36  # characters per label line, so a long definition makes a tall node, not a wide one
LINE_BREAK = "<br/>"  # Mermaid's line break inside a quoted label
# Order matters: '#' first, since every other code contains one.
_ESCAPES = (
    ("#", "#35;"),
    ('"', "#quot;"),
    ("<", "#lt;"),
    (">", "#gt;"),
    ("&", "#amp;"),
    ("`", "#96;"),
    ("|", "#124;"),
    ("[", "#91;"),
    ("]", "#93;"),
    ("{", "#123;"),
    ("}", "#125;"),
)


def escape_label(text: object, limit: int = MAX_LABEL) -> str:
    """Quote-safe Mermaid label text: one line, entity-escaped, at most ``limit`` chars."""
    flat = " ".join(str(text).split())
    if len(flat) > limit:
        flat = flat[: limit - 1].rstrip() + "…"
    for raw, code in _ESCAPES:
        flat = flat.replace(raw, code)
    return flat or " "


def wrapped_label(text: object, width: int = WRAP_WIDTH) -> str:
    """The whole label, escaped line by line and wrapped at ``width`` characters with ``<br/>``.

    The break is added after escaping, so it is the only markup a label carries.
    """
    flat = " ".join(str(text).split())
    lines = textwrap.wrap(flat, width, break_long_words=False, break_on_hyphens=False) or [""]
    return LINE_BREAK.join(escape_label(line) for line in lines)


def label_text(label: str) -> str:
    """A label as a reader sees it: entity codes decoded, line breaks as spaces."""
    text = label.replace(LINE_BREAK, " ")
    for raw, code in reversed(_ESCAPES):
        text = text.replace(code, raw)
    return text


def _node(node_id: str, label: object, shape: str = "box") -> str:
    text = wrapped_label(label)
    if shape == "round":
        return f'  {node_id}("{text}")'
    if shape == "stadium":
        return f'  {node_id}(["{text}"])'
    return f'  {node_id}["{text}"]'


def _edge(a: str, b: str, label: str, *, directional: bool) -> str:
    arrow = "-.->" if directional and label in {"refutes", "contradicts"} else "-->"
    return f'  {a} {arrow}|"{escape_label(label.replace("_", " "), 40)}"| {b}'


def note_concept_map(note: dict[str, Any]) -> str:
    """A note's own map: concept, definition, example, insight and linked notes.

    ``note`` needs ``concept`` and may carry ``definition``, ``personal_example``,
    ``key_insight``, ``open_question`` and ``links`` (``[{target, target_concept, relation, directional}]``).
    One node per concept: links to notes of the note's own concept (revisits) are not
    drawn as self-loops, and several notes of one other concept share one node, its
    edge labelled with their relations.
    """
    concept = note.get("concept") or "note"
    own = _concept_key(concept)
    lines = ["flowchart LR", _node("n0", concept, "stadium")]
    parts = [
        ("definition", "defined as"),
        ("personal_example", "example"),
        ("key_insight", "insight"),
        ("open_question", "to revisit"),
    ]
    index = 1
    for key, label in parts:
        if note.get(key):
            lines += [
                _node(f"n{index}", note[key], "round"),
                _edge("n0", f"n{index}", label, directional=False),
            ]
            index += 1
    groups: dict[str, dict[str, Any]] = {}
    for link in note.get("links") or []:
        target = str(link.get("target_concept") or link.get("target") or "")
        key = _concept_key(target) or target
        if not target or key == own:
            continue  # a revisit of the same concept: no second node, no self-loop
        group = groups.setdefault(key, {"label": target, "relations": [], "directional": True})
        relation = str(link.get("relation", "related"))
        if relation not in group["relations"]:
            group["relations"].append(relation)
        group["directional"] = group["directional"] and bool(link.get("directional"))
    for group in groups.values():
        lines.append(_node(f"n{index}", group["label"]))
        lines.append(
            _edge("n0", f"n{index}", ", ".join(group["relations"]), directional=group["directional"])
        )
        index += 1
    lines += ["  classDef focus stroke-width:3px", "  class n0 focus"]
    return "\n".join(lines)


def _concept_key(concept: object) -> str:
    text = str(concept or "")
    return normalise_concept(text) or text.strip().lower()
