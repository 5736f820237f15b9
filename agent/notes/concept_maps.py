"""Mermaid ``flowchart`` concept maps: one per note, one per concept neighbourhood.

Node ids are generated (``n0``, ``n1``…), so no text ever lands in an id. Every
label is quoted and escaped with Mermaid entity codes (``#quot;``, ``#35;``…),
so quotes, brackets, pipes, ``-->`` and unicode inside text cannot break the
diagram. Tests validate the output with Mermaid's own parser
(``scripts/mermaid-validate``).
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

from agent.notes.models import DIRECTIONAL_RELATIONS, slugify
from agent.notes.text import normalise_concept

if TYPE_CHECKING:
    from agent.notes.store import NoteStore

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


def _edge(a: str, b: str, label: str, *, directional: bool, mirrored: bool = False) -> str:
    arrow = "-.->" if directional and label in {"refutes", "contradicts"} else "-->"
    if mirrored:
        arrow = "<-->"
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


def neighbourhood_map(nodes: list[dict[str, Any]]) -> str:
    """A map of several notes and the links among them, one node per concept.

    ``nodes``: ``[{id, concept, seed?, links: [{target, relation, directional}]}]``.
    Notes of the same concept share a node (a seed if any of them is one); links
    between them are not drawn (no self-loops); mirrored pairs are drawn once, ``<-->``.
    """
    node_of: dict[str, str] = {}  # note id -> mermaid node id
    concept_node: dict[str, str] = {}
    labels: dict[str, str] = {}
    seeds: list[str] = []
    for n in nodes:
        key = _concept_key(n.get("concept")) or n["id"]
        if key not in concept_node:
            concept_node[key] = f"n{len(concept_node)}"
            labels[concept_node[key]] = n.get("concept") or n["id"]
        node_of[n["id"]] = concept_node[key]
        if n.get("seed") and concept_node[key] not in seeds:
            seeds.append(concept_node[key])
    lines = ["flowchart LR"]
    lines += [_node(mid, label, "stadium" if mid in seeds else "box") for mid, label in labels.items()]
    pairs = {
        (node_of[n["id"]], node_of.get(link["target"]), link.get("relation"))
        for n in nodes
        for link in n.get("links") or []
    }
    seen: set[tuple[str, str]] = set()
    for n in nodes:
        for link in n.get("links") or []:
            a, b = node_of[n["id"]], node_of.get(link["target"])
            relation = str(link.get("relation", "related"))
            if b is None or a == b or (a, b) in seen:
                continue
            directional = bool(link.get("directional")) or relation in DIRECTIONAL_RELATIONS
            mirrored = not directional and (b, a, relation) in pairs
            seen.add((a, b))
            if mirrored:
                seen.add((b, a))
            lines.append(_edge(a, b, relation, directional=directional, mirrored=mirrored))
    if seeds:
        lines += ["  classDef focus stroke-width:3px", f"  class {','.join(seeds)} focus"]
    return "\n".join(lines)


async def concept_neighbourhood_map(
    store: NoteStore, learner_id: str, concept: str, *, per_seed: int = 12
) -> str:
    """The learner's map around ``concept``: its notes and their heaviest neighbours."""
    nodes = await store.neighbourhood_rows(learner_id, concept, slugify(concept), per_seed)
    nodes.sort(key=lambda n: (not n["seed"], n["concept"] or ""))
    return neighbourhood_map(nodes)
