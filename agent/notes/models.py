"""Pydantic models of Zettelkasten notes, link decisions, metadata and artifacts.

The ``*Draft``/``*Decision``/``NoteMetadata`` models validate what a chat
model (or the offline extractor) returns; ``NoteAudit`` is a stored note's provenance.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator
from typing_extensions import TypedDict

MAX_NOTES = 3  # notes extracted per session
MAX_KEYWORDS = 5
MAX_DESCRIPTION = 320
ARTIFACT_TYPE = "ZETTELKASTEN_NOTE"

# Default controlled vocabulary: subject areas plus the kind of note. Callers may
# pass their own (see ``tags_from_env``); tags outside the vocabulary are dropped.
DEFAULT_TAG_VOCABULARY: tuple[str, ...] = (
    # subject areas
    "sql",
    "databases",
    "programming",
    "python",
    "javascript",
    "algorithms",
    "data-structures",
    "math",
    "statistics",
    "machine-learning",
    "networking",
    "security",
    "systems",
    "web",
    "science",
    "language",
    "history",
    "general",
    # kind of note
    "definition",
    "example",
    "misconception",
    "struggle",
    "insight",
    "procedure",
)

Relation = Literal[
    "elaborates",
    "supports",
    "contradicts",
    "depends_on",
    "predecessor",
    "successor",
    "refutes",
    "example_of",
]
# Directional relations are stored one way; every other relation is mirrored.
DIRECTIONAL_RELATIONS = frozenset({"refutes", "predecessor", "successor"})


def slugify(text: str) -> str:
    """Lowercase ``text`` and join its alphanumeric runs with '-'."""
    return "-".join("".join(c if c.isascii() and c.isalnum() else " " for c in text.lower()).split())


def normalise_keywords(values: list[str]) -> list[str]:
    """Slugify, drop empties and duplicates, keep at most five (order kept)."""
    return list(dict.fromkeys(slug for slug in (slugify(str(v)) for v in values) if slug))[:MAX_KEYWORDS]


def filter_tags(values: list[str], vocabulary: tuple[str, ...] | frozenset[str]) -> list[str]:
    """Keep the slugified tags that are in ``vocabulary`` (order kept, no duplicates)."""
    allowed = set(vocabulary)
    return list(dict.fromkeys(slug for slug in (slugify(str(v)) for v in values) if slug in allowed))


def clip_description(text: str) -> str:
    """Collapse whitespace and cut to 320 characters on a word boundary."""
    text = " ".join(text.split())
    if len(text) <= MAX_DESCRIPTION:
        return text
    return text[: MAX_DESCRIPTION - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


class _Annotations(BaseModel):
    """Keywords and a description as notes keep them: slugs, at most five; one clipped line."""

    @field_validator("keywords", mode="after", check_fields=False)
    @classmethod
    def _keywords(cls, value: list[str]) -> list[str]:
        return normalise_keywords(value)

    @field_validator("description", mode="after", check_fields=False)
    @classmethod
    def _description(cls, value: str) -> str:
        return clip_description(value)


class NoteDraft(_Annotations):
    """One atomic note as the extractor returns it (before identity and embedding)."""

    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    concept: str = Field(min_length=1, max_length=120)
    definition: str = Field(min_length=1, max_length=600)
    personal_example: str = Field(default="", max_length=600)
    key_insight: str = Field(default="", max_length=600)
    open_question: str = Field(
        default="", max_length=600, description="What confused the learner: a question to revisit."
    )
    keywords: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    description: str = Field(default="", max_length=2000)
    links: list[str] = Field(default_factory=list, description="Related concepts, not ids.")


class ExtractionResult(BaseModel):
    """The extractor's whole reply: one draft per concept the session touched."""

    notes: list[dict[str, Any]] = Field(default_factory=list)


class LinkDecision(BaseModel):
    """The model's verdict on one candidate link."""

    model_config = ConfigDict(extra="ignore")

    id: str
    relation: Relation
    rationale: str = Field(default="", max_length=500)
    confidence: float = Field(ge=0.0, le=1.0)


class LinkDecisions(BaseModel):
    """All verdicts for one new note; declined candidates are simply absent."""

    decisions: list[LinkDecision] = Field(default_factory=list)


class NoteMetadata(_Annotations):
    """The evolvable part of a note: keywords, tags and description."""

    model_config = ConfigDict(extra="ignore")

    keywords: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    description: str = ""


class NoteAudit(BaseModel):
    """Provenance of a note: who wrote it with which prompt and models."""

    prompt_version: str
    model: str
    extractor: Literal["llm", "offline"]
    embedding_model: str
    embedding_version: str
    attempts: int = 1
    concept_count: int = Field(description="Session concepts the note mentions (atomicity).")
    session_id: str | None = None


class Artifact(TypedDict):
    """The design's artifact schema (``ARTIFACT_READY`` payload)."""

    type: Literal["ZETTELKASTEN_NOTE"]
    note_id: str
    content: str
    concept_map: str
    links: list[str]
    tags: list[str]


class Failure(TypedDict):
    """A step that did not produce its result; never reported as success."""

    stage: str
    concept: str | None
    error: str
    attempts: int


def compose_text(draft: NoteDraft) -> str:
    """The atomic note text (the artifact's ``content``)."""
    parts = [f"{draft.concept}: {draft.definition}"]
    if draft.personal_example:
        parts.append(f"Example: {draft.personal_example}")
    if draft.key_insight:
        parts.append(f"Insight: {draft.key_insight}")
    if draft.open_question:
        parts.append(f"To revisit: {draft.open_question}")
    return " ".join(parts)


def embedding_text(text: str, keywords: list[str], tags: list[str], description: str) -> str:
    """What is embedded: payload + keywords + tags + description (never the timestamp)."""
    return "\n".join([text, " ".join(keywords), " ".join(tags), description])
