"""Export a learner's notes as Markdown files in a zip (Obsidian/Zettelkasten shape).

One file per note, named after its concept (``join-types.md``; a numeric suffix
when two concepts slug alike). Each file: YAML front matter (id, concept,
aliases, tags, keywords, created; the alias makes ``[[left join]]`` resolve too),
the definition, example and insight, a ``## Links`` list of ``[[file-name]]``
wikilinks with their relation, and the concept map in a ``mermaid`` code block,
which Obsidian renders.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

from agent.notes.models import slugify

ZIP_ROOT = "kag-notes"


def file_names(notes: list[dict[str, Any]]) -> dict[str, str]:
    """Note id → unique file stem."""
    names: dict[str, str] = {}
    used: set[str] = set()
    for note in notes:
        base = slugify(str(note.get("concept") or "")) or "note"
        base = base[:80]
        stem, n = base, 2
        while stem in used:
            stem, n = f"{base}-{n}", n + 1
        used.add(stem)
        names[note["id"]] = stem
    return names


def _yaml_scalar(value: object) -> str:
    """A YAML scalar: JSON strings are valid YAML double-quoted scalars."""
    return json.dumps("" if value is None else str(value), ensure_ascii=False)


def _fence(text: str) -> str:
    """A code fence longer than any backtick run in ``text``."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def note_markdown(note: dict[str, Any], names: dict[str, str]) -> str:
    """The Markdown file of one note."""
    tags = [str(t) for t in note.get("tags") or []]
    keywords = [str(k) for k in note.get("keywords") or []]
    lines = [
        "---",
        f"id: {_yaml_scalar(note.get('id'))}",
        f"concept: {_yaml_scalar(note.get('concept'))}",
        f"aliases: [{_yaml_scalar(note.get('concept'))}]",
        f"tags: [{', '.join(_yaml_scalar(t) for t in tags)}]",
        f"keywords: [{', '.join(_yaml_scalar(k) for k in keywords)}]",
        f"created: {_yaml_scalar(note.get('created_at'))}",
        "---",
        "",
        f"# {note.get('concept') or 'Note'}",
        "",
        str(note.get("definition") or ""),
        "",
    ]
    if note.get("personal_example"):
        lines += ["## Example", "", str(note["personal_example"]), ""]
    if note.get("key_insight"):
        lines += ["## Insight", "", str(note["key_insight"]), ""]
    links = [link for link in note.get("links") or [] if link.get("id") in names]
    if links:
        lines += ["## Links", ""]
        lines += [f"- {link.get('relation') or 'related'}: [[{names[link['id']]}]]" for link in links]
        lines.append("")
    concept_map = str(note.get("concept_map") or "").strip()
    if concept_map:
        fence = _fence(concept_map)
        lines += ["## Concept map", "", f"{fence}mermaid", concept_map, fence, ""]
    return "\n".join(lines)


def export_zip(notes: list[dict[str, Any]]) -> bytes:
    """A zip of ``kag-notes/<name>.md`` files, one per note."""
    names = file_names(notes)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for note in notes:
            archive.writestr(f"{ZIP_ROOT}/{names[note['id']]}.md", note_markdown(note, names))
    return buffer.getvalue()
