"""The offline tutor teaches from the learner's own notes.

Offline there is no model to explain new material, but the learner's Zettelkasten holds
what they already worked out. Asked to explain a concept ("Can you explain what a window
function is?", "What are inner joins?", "Explain recursion to me."), the policy searches
the notes (``note_search``) and hands back the learner's own note: its definition, its
example and the notes it links to, saying it is their note. With no note on the concept
it says so and offers the closest note it has.

A note is *on* the asked concept when the word stems of one name hold the other's
("window function" and "Window functions"); otherwise the top hit is only the closest.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent.models.offline_reading import query_stems

_EXPLAIN = re.compile(
    r"^\s*(?:(?:can|could|would|will) you\s+)?(?:please\s+)?"
    r"(?:explain|define|describe|tell me about|teach me(?: about)?|go over|go through)\s+(?:to me\s+)?"
    r"(?:again\s+)?(?:what|how)?\s*(?P<rest>.+?)\s*[?.!]*\s*$",
    re.I,
)
_WHAT_IS = re.compile(r"^\s*what(?:'s| is| are| does)\s+(?P<rest>.+?)\s*\??\s*$", re.I)
_TAIL = re.compile(
    r"(?:\s+(?:is|are|means?|does|do|works?))?(?:\s+to me)?(?:\s+again)?(?:,?\s*please)?\s*$", re.I
)
_ARTICLE = re.compile(r"^(?:a|an|the)\s+", re.I)
_FIRST_PERSON = re.compile(r"\b(i|i'm|me|my|mine|myself|we|our|us)\b", re.I)
TEXT_CHARS = 600
"""A note's definition or example is cut here in a reply (the note page has it whole)."""


def explain_query(sentence: str) -> str | None:
    """The concept a request to explain names ("a window function"), else None.

    Questions about the learner ("what is my goal?") and about the past are not requests to
    explain: other rules answer them.
    """
    match = _EXPLAIN.match(sentence) or _WHAT_IS.match(sentence)
    if match is None:
        return None
    rest = _ARTICLE.sub("", _TAIL.sub("", match["rest"].strip(" ?.!,"))).strip()
    if not rest or _FIRST_PERSON.search(rest):
        return None
    return rest


def is_on(asked: str, concept: str) -> bool:
    """The note's concept names the asked one (or the other way round), stem by stem."""
    a, c = query_stems(asked), query_stems(concept)
    return bool(a and c) and (c <= a or a <= c)


def _cut(text: str) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= TEXT_CHARS else text[: TEXT_CHARS - 1].rstrip() + "…"


def _sentence(text: str) -> str:
    text = _cut(text)
    return text if not text or text[-1] in ".!?…" else f"{text}."


def _note_words(note: Mapping[str, Any]) -> str:
    """A note's definition and example (its text when it has no fields)."""
    definition = _sentence(note.get("definition") or note.get("text") or "")
    example = _sentence(note.get("example") or "")
    return f"{definition} For example: {example}" if example else definition


def note_answer(asked: str, data: Any) -> str:
    """The reply to a request to explain ``asked``, from a ``note_search`` result."""
    hits = (
        [h for h in (data.get("results") or []) if isinstance(h, Mapping)]
        if isinstance(data, Mapping)
        else []
    )
    if not hits:
        return (
            f"You have no notes on {asked} yet. Tell me what you know about it and it goes into your notes."
        )
    own = next((h for h in hits if is_on(asked, str(h.get("concept") or ""))), None)
    if own is None:
        closest = hits[0]
        return (
            f"You have no note on {asked} yet. The closest is your note on "
            f'"{closest.get("concept")}": {_note_words(closest)}'
        )
    related = _related(own, hits, data.get("linked") or [])
    tail = f" Related notes of yours: {', '.join(related)}." if related else ""
    return f'From your own note on "{own.get("concept")}": {_note_words(own)}{tail}'


def _related(own: Mapping[str, Any], hits: Sequence[Mapping[str, Any]], linked: Sequence[Any]) -> list[str]:
    """The concepts of the notes linked to (then found with) the learner's note, each once."""
    concepts: list[str] = []
    for note in [*linked, *hits]:
        if not isinstance(note, Mapping) or note.get("note_id") == own.get("note_id"):
            continue
        concept = str(note.get("concept") or "").strip()
        if concept and concept.lower() != str(own.get("concept") or "").lower() and concept not in concepts:
            concepts.append(concept)
    return concepts[:3]
