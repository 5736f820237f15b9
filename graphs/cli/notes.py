"""``kag notes list|show|export``: a learner's Zettelkasten notes, read through ``NoteStore``.

``export DIR`` writes one Markdown file per note, Obsidian style (``agent.notes.markdown``),
named by its concept, so the links resolve inside the vault.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from graphs.cli.common import ExpectedFailure, learner_option, open_resources, run

if TYPE_CHECKING:
    from agent.resources import Resources
    from agent.settings import Settings


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
        from agent.notes.markdown import note_markdown

        click.echo(note_markdown(notes[0]))
        return 0

    return run(work)


@notes_group.command("export")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@learner_option
def notes_export(directory: Path, learner_id: str) -> int:
    """Write every note to DIRECTORY as <concept>.md (an Obsidian vault folder)."""

    async def work(settings: Settings) -> int:
        from agent.notes.markdown import note_filenames, note_markdown

        async with open_resources(settings) as resources:
            notes = await read_notes(resources, learner_id)
        directory.mkdir(parents=True, exist_ok=True)
        names = note_filenames(notes)
        for note in notes:
            (directory / names[note["id"]]).write_text(note_markdown(note, names), encoding="utf-8")
        click.echo(f"exported {len(notes)} note(s) to {directory}")
        return 0

    return run(work)
