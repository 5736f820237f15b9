"""Evolution: re-annotate a new note and the neighbours it touched; lint every proposal.

For each note the model (offline: ``offline_metadata``, deterministic, not an
LLM) proposes keywords, tags and a description that follow the graph. The
proposal passes ``lint_metadata`` or is rejected: a rejection keeps the old
metadata and is recorded as a ``(:NoteRevision {kind: 'rejected'})``. An
accepted change snapshots the old metadata as ``(:NoteRevision {kind:
'previous'})`` before applying the new one and re-embedding the note.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from agent.models.chat import is_offline_policy
from agent.notes.extraction import invoke_json
from agent.notes.models import (
    DEFAULT_TAG_VOCABULARY,
    Failure,
    NoteMetadata,
    clip_description,
    embedding_text,
    filter_tags,
    normalise_keywords,
    slugify,
)
from agent.notes.prompts import EVOLVE_HUMAN, EVOLVE_SYSTEM
from agent.notes.store import NoteStore
from agent.notes.text import content_stems

# Capitalised words that name nothing.
_FUNCTION_WORDS_WORDS = """
    a an the this that these those it its in on at of to for and or but so as by with when if
    then while here there both each every some all no not is are was were be use uses used links
    example insight note notes
"""
_FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_WORDS.split())
_QUOTED = re.compile(r"[\"“']([^\"”']{2,60})[\"”']")
_SEPARATORS = str.maketrans(dict.fromkeys(",;:()[]{}!?", " "))


@dataclass
class EvolutionOutcome:
    """What evolution did to each note."""

    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    rejected: list[dict[str, Any]] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)


def _entities(text: str) -> list[str]:
    """Tokens that look like names: capitalised, numeric, code-like or quoted."""
    found = [m.group(1) for m in _QUOTED.finditer(text)]
    for raw in text.translate(_SEPARATORS).split():
        token = raw.strip(".'\"“”")
        if not token or token.lower() in _FUNCTION_WORDS:
            continue
        if token[0].isupper() or any(c.isdigit() for c in token) or re.search(r"\w[._#+/@]\w", token):
            found.append(token)
    return found


def lint_metadata(
    metadata: NoteMetadata, payload: str, vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY
) -> list[str]:
    """Violations of "metadata may only name what the note's own payload names".

    Tags must come from the vocabulary; every word of every keyword must occur
    in the payload; every entity-like token of the description (capitalised,
    numeric, code-like or quoted) must occur in the payload. Words are
    compared lowercased and stemmed.
    """
    known = content_stems(payload)
    lowered = payload.lower()
    violations: list[str] = []
    allowed = set(vocabulary)
    violations += [f"tag {t!r} is not in the vocabulary" for t in metadata.tags if t not in allowed]
    for keyword in metadata.keywords:
        missing = [p for p in keyword.split("-") if p and not content_stems(p) <= known]
        if missing:
            violations.append(f"keyword {keyword!r} names {missing} absent from the note")
    for entity in _entities(metadata.description):
        if entity.lower() in lowered:
            continue
        if not content_stems(entity) or not content_stems(entity) <= known:
            violations.append(f"description names {entity!r}, absent from the note")
    return violations


def offline_metadata(
    note: dict[str, Any],
    neighbours: list[dict[str, Any]],
    vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
) -> NoteMetadata:
    """Deterministic re-annotation used offline (not an LLM).

    Keywords: the note's own plus neighbours' keywords that its payload also
    uses, ranked by how many notes in the neighbourhood share them. Tags: its
    own plus neighbours' tags whose word occurs in its payload. Description:
    its definition plus the relations it takes part in (no names).
    """
    payload = content_stems(_payload(note))
    counts: Counter[str] = Counter(note.get("keywords") or [])
    for other in neighbours:
        counts.update(k for k in other.get("keywords") or [] if content_stems(k.replace("-", " ")) <= payload)
    own_slug = slugify(str(note.get("concept", "")))
    ranked = [own_slug] + [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    tags = list(note.get("tags") or [])
    tags += [
        t for o in neighbours for t in o.get("tags") or [] if content_stems(t.replace("-", " ")) <= payload
    ]
    relations = sorted({link["relation"].replace("_", " ") for link in note.get("links") or []})
    description = str(note.get("definition") or note.get("description") or "")
    if relations:
        description = f"{description} (links: {', '.join(relations)})"
    return NoteMetadata(
        keywords=normalise_keywords(ranked),
        tags=filter_tags(tags, tuple(vocabulary)),
        description=clip_description(description),
    )


def _payload(note: dict[str, Any]) -> str:
    return "\n".join(
        str(note.get(k) or "")
        for k in ("concept", "definition", "personal_example", "key_insight", "open_question", "raw_payload")
    )


async def _propose(
    model: BaseChatModel,
    note: dict[str, Any],
    neighbours: list[dict[str, Any]],
    vocabulary: Sequence[str],
) -> tuple[NoteMetadata | None, str | None, int]:
    if is_offline_policy(model):
        return offline_metadata(note, neighbours, vocabulary), None, 1
    current = {k: note.get(k) for k in ("keywords", "tags", "description")}
    shown = [
        {"relation": link["relation"], "keywords": n.get("keywords"), "tags": n.get("tags")}
        for link in note.get("links") or []
        for n in neighbours
        if n["id"] == link["target"]
    ]
    messages = [
        SystemMessage(EVOLVE_SYSTEM.format(vocabulary=", ".join(vocabulary))),
        HumanMessage(
            EVOLVE_HUMAN.format(
                note=_payload(note),
                metadata=json.dumps(current, ensure_ascii=False),
                neighbours=json.dumps(shown, ensure_ascii=False),
            )
        ),
    ]
    return await invoke_json(model, messages, NoteMetadata)


async def evolve_notes(
    store: NoteStore,
    model: BaseChatModel,
    learner_id: str,
    note_ids: list[str],
    *,
    vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
    now: str,
) -> EvolutionOutcome:
    """Refresh the metadata of ``note_ids`` (a new note and its touched neighbours)."""
    outcome = EvolutionOutcome()
    notes = await store.get_notes(learner_id, list(dict.fromkeys(note_ids)))
    neighbour_ids = {link["target"] for n in notes for link in n["links"]}
    by_id = {n["id"]: n for n in await store.get_notes(learner_id, sorted(neighbour_ids))}
    revisions: list[dict[str, Any]] = []
    for note in notes:
        neighbours = [by_id[link["target"]] for link in note["links"] if link["target"] in by_id]
        proposal, error, attempts = await _propose(model, note, neighbours, vocabulary)
        if proposal is None:
            outcome.failures.append(
                Failure(stage="evolve", concept=note.get("concept"), error=str(error), attempts=attempts)
            )
            continue
        current = NoteMetadata(
            keywords=note.get("keywords") or [],
            tags=note.get("tags") or [],
            description=note.get("description") or "",
        )
        if proposal == current:
            outcome.unchanged.append(note["id"])
            continue
        violations = lint_metadata(proposal, _payload(note), vocabulary)
        params: dict[str, Any] = {
            "id": note["id"],
            "proposed_json": proposal.model_dump_json(),
            "violations": violations,
            "now": now,
            **proposal.model_dump(),  # keywords, tags, description
            "embedding": None,
        }
        if violations:
            params.update(kind="rejected", reason="metadata lint")
            outcome.rejected.append(
                {"note_id": note["id"], "concept": note.get("concept"), "violations": violations}
            )
        else:
            text = embedding_text(note["text"], proposal.keywords, proposal.tags, proposal.description)
            params.update(kind="previous", reason="evolution", text=text)
            outcome.updated.append(note["id"])
        revisions.append(params)
    # Re-embed accepted notes in one batch; write every revision in one transaction.
    accepted = [r for r in revisions if r["kind"] == "previous"]
    vectors = await store.embed_documents([r.pop("text") for r in accepted])
    for revision, vector in zip(accepted, vectors, strict=True):
        revision["embedding"] = vector
    await store.write_revisions(learner_id, revisions)
    return outcome
