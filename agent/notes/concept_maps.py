"""Mermaid ``flowchart`` concept maps: one per note, one per concept neighbourhood.

Node ids are generated (``n0``, ``n1``…), so no text ever lands in an id. Every
label is quoted and escaped with Mermaid entity codes (``#quot;``, ``#35;``…),
so quotes, brackets, pipes, ``-->`` and unicode inside text cannot break the
diagram. Tests validate the output with Mermaid's own parser
(``scripts/mermaid-validate``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.notes.models import DIRECTIONAL_RELATIONS, slugify

if TYPE_CHECKING:
    from agent.notes.store import NoteStore

MAX_LABEL = 80
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


def _node(node_id: str, label: object, shape: str = "box") -> str:
    text = escape_label(label)
    if shape == "round":
        return f'  {node_id}("{text}")'
    if shape == "stadium":
        return f'  {node_id}(["{text}"])'
    return f'  {node_id}["{text}"]'


def _edge(a: str, b: str, label: str, *, directional: bool, mirrored: bool = False) -> str:
    arrow = "-.->" if directional and label in {"refutes", "contradicts"} else "-->"
    if mirrored:
        arrow = "<-->"
    return f'  {a} {arrow}|"{escape_label(label, 40)}"| {b}'


def note_concept_map(note: dict[str, Any]) -> str:
    """A note's own map: concept, definition, example, insight and linked notes.

    ``note`` needs ``concept`` and may carry ``definition``, ``personal_example``,
    ``key_insight`` and ``links`` (``[{target, target_concept, relation, directional}]``).
    """
    lines = ["flowchart LR", _node("n0", note.get("concept") or "note", "stadium")]
    parts = [
        ("definition", "defined as"),
        ("personal_example", "example"),
        ("key_insight", "insight"),
    ]
    index = 1
    for key, label in parts:
        if note.get(key):
            lines += [
                _node(f"n{index}", note[key], "round"),
                _edge("n0", f"n{index}", label, directional=False),
            ]
            index += 1
    for link in note.get("links") or []:
        target = link.get("target_concept") or link.get("target")
        lines.append(_node(f"n{index}", target))
        lines.append(
            _edge(
                "n0",
                f"n{index}",
                str(link.get("relation", "related")),
                directional=bool(link.get("directional")),
            )
        )
        index += 1
    lines += ["  classDef focus stroke-width:3px", "  class n0 focus"]
    return "\n".join(lines)


def neighbourhood_map(nodes: list[dict[str, Any]]) -> str:
    """A map of several notes and the links among them (mirrored pairs drawn once, ``<-->``).

    ``nodes``: ``[{id, concept, seed?, links: [{target, relation, directional}]}]``.
    """
    ids = {n["id"]: f"n{i}" for i, n in enumerate(nodes)}
    lines = ["flowchart LR"]
    lines += [
        _node(ids[n["id"]], n.get("concept") or n["id"], "stadium" if n.get("seed") else "box") for n in nodes
    ]
    seen: set[tuple[str, str]] = set()
    pairs = {(n["id"], link["target"], link.get("relation")) for n in nodes for link in n.get("links") or []}
    for n in nodes:
        for link in n.get("links") or []:
            a, b, relation = n["id"], link["target"], str(link.get("relation", "related"))
            if b not in ids or (a, b) in seen:
                continue
            directional = bool(link.get("directional")) or relation in DIRECTIONAL_RELATIONS
            mirrored = not directional and (b, a, relation) in pairs
            seen.add((a, b))
            if mirrored:
                seen.add((b, a))
            lines.append(_edge(ids[a], ids[b], relation, directional=directional, mirrored=mirrored))
    seeds = [ids[n["id"]] for n in nodes if n.get("seed")]
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
