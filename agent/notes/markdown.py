"""A note as Obsidian Markdown, and the file names of an exported vault.

Each file is named by its concept (``window-function.md``; the second note of a concept is
``window-function-2.md``), and its id sits in the front matter. The body says each thing
once: the definition, then the example, the insight and the question to revisit, each
under its own label; the description is shown only when it adds words the body lacks.
Links are ``[[file-name|concept]]``, so they resolve inside the vault.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from itertools import groupby
from typing import Any

from agent.notes.concept_maps import note_concept_map
from agent.notes.models import slugify

_TAG_UNSAFE = re.compile(r"[^\w/-]+")
SECTIONS = (
    ("personal_example", "Example"),
    ("key_insight", "Insight"),
    ("open_question", "To revisit"),
)
"""The note fields after the definition, with the label each is shown under."""
NEW_WORDS_SHOWN = 0.2
"""A description is shown when at least this share of its words is not in the body already."""


def _yaml(value: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def obsidian_tag(tag: str) -> str:
    """A tag Obsidian accepts: no spaces or punctuation other than ``_``, ``-`` and ``/``."""
    return _TAG_UNSAFE.sub("-", tag.strip()).strip("-") or "untagged"


def concept_stem(note: dict[str, Any]) -> str:
    """The file-name stem a note's concept gives: ``Window Functions`` -> ``window-functions``."""
    concept = str(note.get("concept") or "").strip()
    return slugify(concept.rsplit(".", 1)[-1] if "." in concept and " " not in concept else concept) or "note"


def note_filenames(notes: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Note id -> ``<concept>.md``, unique in order: the second note of a concept gets ``-2``."""
    names: dict[str, str] = {}
    taken: set[str] = set()
    for note in notes:
        stem = concept_stem(note)
        name, n = f"{stem}.md", 1
        while name in taken:
            n += 1
            name = f"{stem}-{n}.md"
        taken.add(name)
        names[str(note["id"])] = name
    return names


def _words(text: str) -> set[str]:
    return {"".join(run).lower() for word, run in groupby(text, lambda c: c.isalnum() or c == "_") if word}


def body_sections(note: dict[str, Any]) -> list[str]:
    """The note's prose, each field once: definition, then labelled example, insight, question."""
    definition = str(note.get("definition") or "").strip()
    if not definition:  # a note written before the fields existed: its text is all there is
        return [str(note.get("text") or "").strip()]
    out = [definition]
    seen = {definition}
    for key, label in SECTIONS:
        value = str(note.get(key) or "").strip()
        if value and value not in seen:
            out.append(f"**{label}:** {value}")
            seen.add(value)
    description = str(note.get("description") or "").strip()
    if description:
        words = _words(description)
        new = words - _words(" ".join(seen))
        if words and len(new) / len(words) >= NEW_WORDS_SHOWN:
            out.append(f"> {description}")
    return out


def note_markdown(note: dict[str, Any], filenames: dict[str, str] | None = None) -> str:
    """One note as Obsidian Markdown: front matter (with the id), prose, a mermaid map, links.

    ``filenames`` (from ``note_filenames``) turns each link into ``[[file|concept]]``; a link
    to a note outside it shows the concept alone.
    """
    filenames = filenames or {}
    tags = [obsidian_tag(t) for t in note.get("tags") or []]
    keywords = [str(k) for k in note.get("keywords") or []]
    front = ["---", f"id: {_yaml(str(note['id']))}", f"concept: {_yaml(str(note.get('concept') or ''))}"]
    front.append("tags:" if tags else "tags: []")
    front += [f"  - {_yaml(tag)}" for tag in tags]
    front.append(f"keywords: [{', '.join(_yaml(k) for k in keywords)}]")
    if note.get("created_at"):
        front.append(f"created: {_yaml(str(note['created_at']))}")
    front.append("---")
    body = [f"# {note.get('concept') or note['id']}", ""]
    for section in body_sections(note):
        body += [section, ""]
    body += ["```mermaid", note_concept_map(note), "```", ""]
    links = note.get("links") or []
    if links:
        body += ["## Links", ""]
        for link in links:
            relation = str(link.get("relation") or "related").replace("_", " ")
            concept = str(link.get("target_concept") or "")
            name = filenames.get(str(link["target"]))
            target = f"[[{name.removesuffix('.md')}|{concept or name}]]" if name else concept or "a note"
            body.append(f"- {relation}: {target}")
        body.append("")
    return "\n".join(front + body)
