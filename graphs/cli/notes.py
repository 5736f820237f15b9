"""``kag notes list|show|export``: a learner's Zettelkasten notes, read through ``NoteStore``.

``export DIR`` writes one Markdown file per note, Obsidian style: YAML front matter
(``id``, ``concept``, ``tags``, ``keywords``, ``created``), the note text, its
concept map as a ```` ```mermaid ```` block, and its links as ``[[note-id]]`` (each
file is named ``<note-id>.md``, so the links resolve inside the vault).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from graphs.cli.common import ExpectedFailure, learner_option, open_resources, run

if TYPE_CHECKING:
    from agent.resources import Resources
    from agent.settings import Settings

_TAG_UNSAFE = re.compile(r"[^\w/-]+")


async def read_notes(resources: Resources, learner_id: str, note_ids: list[str] | None = None) -> list[dict]:
    """The learner's notes (all, or ``note_ids``) with their links, in the order they were written."""
    from agent.notes.store import NoteStore
    from agent.validation import validate_learner_id

    learner_id = validate_learner_id(learner_id)
    store = NoteStore.for_resources(resources)
    if note_ids is None:
        note_ids = [row["id"] for row in await store.degree_rows(learner_id)]
    if not note_ids:
        return []
    return await store.get_notes(learner_id, note_ids)


def _yaml(value: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def obsidian_tag(tag: str) -> str:
    """A tag Obsidian accepts: no spaces or punctuation other than ``_``, ``-`` and ``/``."""
    return _TAG_UNSAFE.sub("-", tag.strip()).strip("-") or "untagged"


def note_filename(note: dict[str, Any]) -> str:
    """``<note-id>.md``: the name ``[[note-id]]`` links resolve to."""
    return f"{re.sub(r'[^A-Za-z0-9_.-]', '_', str(note['id']))}.md"


def note_markdown(note: dict[str, Any]) -> str:
    """One note as Obsidian Markdown: front matter, text, a mermaid concept map, ``[[links]]``."""
    from agent.notes.concept_maps import note_concept_map

    tags = [obsidian_tag(t) for t in note.get("tags") or []]
    keywords = [str(k) for k in note.get("keywords") or []]
    front = ["---", f"id: {_yaml(str(note['id']))}", f"concept: {_yaml(str(note.get('concept') or ''))}"]
    front.append("tags:" if tags else "tags: []")
    front += [f"  - {_yaml(tag)}" for tag in tags]
    front.append(f"keywords: [{', '.join(_yaml(k) for k in keywords)}]")
    if note.get("created_at"):
        front.append(f"created: {_yaml(str(note['created_at']))}")
    front.append("---")
    body = [f"# {note.get('concept') or note['id']}", "", str(note.get("text") or "").strip(), ""]
    if note.get("description"):
        body += [f"> {note['description']}", ""]
    body += ["```mermaid", note_concept_map(note), "```", ""]
    links = note.get("links") or []
    if links:
        body += ["## Links", ""]
        for link in links:
            label = link.get("relation") or "related"
            concept = link.get("target_concept")
            body.append(f"- [[{link['target']}]] {label}" + (f" ({concept})" if concept else ""))
        body.append("")
    return "\n".join(front + body)


def note_line(note: dict[str, Any]) -> str:
    """One line per note for ``kag notes list``."""
    tags = ",".join(note.get("tags") or [])
    return f"{note['id']}  {note.get('concept', '')}  [{tags}]  links: {len(note.get('links') or [])}"


@click.group("notes")
def notes_group() -> None:
    """List, show or export a learner's Zettelkasten notes."""


@notes_group.command("list")
@learner_option
def notes_list(learner_id: str) -> int:
    """One line per note: id, concept, tags, number of links."""

    async def work(settings: Settings) -> int:
        async with open_resources(settings) as resources:
            notes = await read_notes(resources, learner_id)
        for note in notes:
            click.echo(note_line(note))
        if not notes:
            click.echo(
                f"no notes for learner {learner_id} (a session writes them when it ends: /end in kag chat)"
            )
        return 0

    return run(work)


@notes_group.command("show")
@click.argument("note_id")
@learner_option
def notes_show(note_id: str, learner_id: str) -> int:
    """Print one note as Markdown (front matter, text, concept map, links)."""

    async def work(settings: Settings) -> int:
        async with open_resources(settings) as resources:
            notes = await read_notes(resources, learner_id, [note_id])
        if not notes:
            raise ExpectedFailure(f"learner {learner_id} has no note {note_id!r} (see: kag notes list)")
        click.echo(note_markdown(notes[0]))
        return 0

    return run(work)


@notes_group.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@learner_option
def notes_export(directory: Path, learner_id: str) -> int:
    """Write every note to DIRECTORY as <note-id>.md (an Obsidian vault folder)."""

    async def work(settings: Settings) -> int:
        async with open_resources(settings) as resources:
            notes = await read_notes(resources, learner_id)
        directory.mkdir(parents=True, exist_ok=True)
        for note in notes:
            (directory / note_filename(note)).write_text(note_markdown(note), encoding="utf-8")
        click.echo(f"exported {len(notes)} note(s) to {directory}")
        return 0

    return run(work)
