"""Export a learner's notes as Markdown files in a zip (Obsidian/Zettelkasten shape).

One renderer for exported notes: each file is ``agent.notes.markdown.note_markdown`` of a
note, named by ``note_filenames`` (``window-functions.md``; ``-2`` when two notes share a
concept), exactly what ``kag notes export`` writes. The dashboard reads a note's outgoing
links as ``{id, concept, relation}``; they are handed over as the renderer's
``{target, target_concept, relation}``, so each becomes a ``[[file|concept]]`` wikilink.
"""

from __future__ import annotations

import io
import zipfile
from typing import Any

from agent.notes.markdown import note_filenames, note_markdown

ZIP_ROOT = "kag-notes"


def as_rendered(note: dict[str, Any]) -> dict[str, Any]:
    """``note`` with its dashboard links in the renderer's shape (``target``, ``target_concept``)."""
    links = [
        {**link, "target": link.get("target") or link.get("id"), "target_concept": link.get("concept")}
        for link in note.get("links") or []
        if link.get("target") or link.get("id")
    ]
    return {**note, "links": links}


def export_zip(notes: list[dict[str, Any]]) -> bytes:
    """A zip of ``kag-notes/<concept>.md`` files, one per note, rendered as the CLI renders them."""
    rendered = [as_rendered(note) for note in notes]
    names = note_filenames(rendered)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for note in rendered:
            archive.writestr(f"{ZIP_ROOT}/{names[str(note['id'])]}", note_markdown(note, names))
    return buffer.getvalue()
