"""The Zettelkasten pipeline as async steps: extract → store → link → evolve → artifacts → publish.

``graphs/zettelkasten.py`` runs each step as a node; ``tools/note_tools.py``
and the bench call ``ingest_session``, which runs them in order.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.errors import InvalidInputError, KAGError
from agent.graphdb.store import now_iso
from agent.models.embeddings import EmbeddingProvider
from agent.notes.artifacts import publish_artifacts
from agent.notes.concept_maps import note_concept_map
from agent.notes.evolution import evolve_notes
from agent.notes.extraction import Extractor, concept_count, extractor_for
from agent.notes.linking import link_note
from agent.notes.models import (
    ARTIFACT_TYPE,
    DEFAULT_TAG_VOCABULARY,
    MAX_NOTES,
    Artifact,
    Failure,
    NoteAudit,
    NoteDraft,
    compose_text,
    embedding_text,
)
from agent.notes.prompts import PROMPT_VERSION
from agent.notes.store import NoteStore, note_id_for
from agent.resources import Resources
from agent.validation import validate_learner_id

MAX_TURNS = 400


@dataclass(frozen=True)
class PipelineConfig:
    """Knobs of one ingestion (the graph fills them from ``Context``)."""

    top_k: int = 10
    min_confidence: float = 0.65
    degree_cap: int = 12
    vocabulary: tuple[str, ...] = DEFAULT_TAG_VOCABULARY
    max_notes: int = MAX_NOTES
    link: bool = True
    evolve: bool = True
    # The extraction strategy; None picks ``extractor_for(resources.chat_model)``.
    extractor: Extractor | None = None


@dataclass
class StepResult:
    """What a step adds: note ids, failures, metric counters."""

    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)
    parked: list[str] = field(default_factory=list)
    touched: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    metrics: dict[str, Any] = field(default_factory=dict)


def validate_transcript(transcript: object) -> list[dict[str, str]]:
    """``[{role, content}]`` with string values, at most ``MAX_TURNS`` turns."""
    if not isinstance(transcript, list) or len(transcript) > MAX_TURNS:
        raise InvalidInputError(f"transcript must be a list of at most {MAX_TURNS} turns")
    turns = []
    for turn in transcript:
        if not isinstance(turn, dict) or not isinstance(turn.get("content"), str):
            raise InvalidInputError("each transcript turn needs a string 'content'")
        turns.append({"role": str(turn.get("role") or "user"), "content": turn["content"]})
    return turns


async def extract_step(
    resources: Resources,
    transcript: list[dict[str, str]],
    current_concept: str | None,
    config: PipelineConfig,
) -> tuple[list[NoteDraft], list[Failure], dict[str, Any]]:
    """Drafts from the configured extractor (chat model or offline), failures, audit facts."""
    extractor = config.extractor or extractor_for(resources.chat_model)
    return await extractor.extract(
        transcript,
        current_concept,
        vocabulary=config.vocabulary,
        max_notes=config.max_notes,
    )


def note_row(
    learner_id: str,
    draft: NoteDraft,
    text: str,
    vector: list[float],
    concept_count: int,
    emb: EmbeddingProvider,
    facts: dict[str, Any],
    session_id: str | None,
    now: str,
) -> dict[str, Any]:
    """One note as written to Neo4j: the draft, its embedding and the audit of how it was made."""
    audit = NoteAudit(
        prompt_version=PROMPT_VERSION,
        model=facts.get("model", ""),
        extractor=facts.get("extractor", "offline"),
        embedding_model=emb.model_name,
        embedding_version=emb.version,
        attempts=facts.get("attempts", 1),
        concept_count=concept_count,
        session_id=session_id,
    )
    return {
        "id": note_id_for(learner_id, draft, emb.version),
        "learner_id": learner_id,
        "concept": draft.concept,
        "text": text,
        "definition": draft.definition,
        "personal_example": draft.personal_example,
        "key_insight": draft.key_insight,
        "open_question": draft.open_question,
        "keywords": draft.keywords,
        "tags": draft.tags,
        "description": draft.description,
        "related": draft.links,
        "raw_payload": "\n".join(
            s for s in (draft.definition, draft.personal_example, draft.key_insight, draft.open_question) if s
        ),
        "embedding": vector,
        "embedding_model": emb.model_name,
        "embedding_version": emb.version,
        "created_at": now,
        "session_id": session_id,
        "audit_json": audit.model_dump_json(),
    }


async def store_step(
    resources: Resources,
    learner_id: str,
    drafts: Sequence[NoteDraft],
    facts: dict[str, Any],
    session_id: str | None,
) -> StepResult:
    """Embed and write the drafts; existing ids are left untouched (idempotency).

    When Neo4j is down the batch is parked in the write backlog (``result.parked``) and
    written on replay; parked notes are not linked, evolved or published.
    """
    result = StepResult()
    if not drafts:
        return result
    store = NoteStore.for_resources(resources)
    emb = resources.embeddings
    texts = [compose_text(d) for d in drafts]
    vectors = await asyncio.to_thread(
        emb.embed_documents,
        [embedding_text(t, d.keywords, d.tags, d.description) for t, d in zip(texts, drafts, strict=True)],
    )
    now = now_iso()
    concepts = [d.concept for d in drafts]
    counts = []
    batch: list[dict[str, Any]] = []
    for draft, text, vector in zip(drafts, texts, vectors, strict=True):
        count = concept_count(draft, concepts)
        counts.append(count)
        batch.append(note_row(learner_id, draft, text, vector, count, emb, facts, session_id, now))
    try:  # one transaction: every note of the session is written, or none is
        rows = await store.upsert_notes(learner_id, batch)
    except KAGError as exc:
        rows = []
        result.failures += [
            Failure(stage="store", concept=d.concept, error=str(exc), attempts=1) for d in drafts
        ]
    if rows is None:
        result.parked = [props["id"] for props in batch]
        rows = []
    for row in rows:
        (result.created if row["created"] else result.existing).append(row["id"])
    result.metrics = {
        "notes_created": len(result.created),
        "notes_existing": len(result.existing),
        "notes_parked": len(result.parked),
        "atomicity_max_concepts": max(counts, default=0),
        "atomic_notes": sum(1 for c in counts if 1 <= c <= 2),
    }
    return result


async def link_step(
    resources: Resources, learner_id: str, created: list[str], config: PipelineConfig
) -> StepResult:
    """A-MEM-link each new note; later notes of the batch link back to earlier ones."""
    result = StepResult()
    if not created or not config.link:
        return result
    store = NoteStore.for_resources(resources)
    stored = {n["id"]: n for n in await store.get_notes(learner_id, created)}
    vectors = await store.embeddings_of(learner_id, created)
    links = pruned = 0
    for position, note_id in enumerate(created):
        note = {**stored[note_id], "embedding": vectors[note_id]}
        try:
            outcome = await link_note(
                store,
                resources.chat_model,
                learner_id,
                note,
                top_k=config.top_k,
                min_confidence=config.min_confidence,
                degree_cap=config.degree_cap,
                exclude=created[position + 1 :],
                now=now_iso(),
            )
        except KAGError as exc:
            result.failures.append(
                Failure(stage="link", concept=note.get("concept"), error=str(exc), attempts=1)
            )
            continue
        if outcome.failure:
            result.failures.append(outcome.failure)
        links += sum(1 for e in outcome.edges if e["source"] == note_id)
        pruned += outcome.pruned
        result.touched += [t for t in outcome.touched if t not in result.touched]
    result.metrics = {
        "links_created": links,
        "links_pruned": pruned,
        "neighbours_touched": len(result.touched),
    }
    return result


async def evolve_step(
    resources: Resources, learner_id: str, ids: list[str], config: PipelineConfig
) -> StepResult:
    """Re-annotate new notes and the neighbours they touched."""
    result = StepResult()
    if not ids or not config.evolve:
        return result
    outcome = await evolve_notes(
        NoteStore.for_resources(resources),
        resources.chat_model,
        learner_id,
        ids,
        vocabulary=config.vocabulary,
        now=now_iso(),
    )
    result.failures = list(outcome.failures)
    result.metrics = {
        "notes_evolved": len(outcome.updated),
        "metadata_rejected": len(outcome.rejected),
        # Rejections are recorded (a NoteRevision each), not failures: the note stands.
        "metadata_rejections": outcome.rejected,
    }
    return result


async def artifacts_step(resources: Resources, learner_id: str, note_ids: list[str]) -> list[Artifact]:
    """The artifact (text, concept map, links, tags) of each note, in seq order."""
    if not note_ids:
        return []
    notes = await NoteStore.for_resources(resources).get_notes(learner_id, note_ids)
    return [
        Artifact(
            type=ARTIFACT_TYPE,
            note_id=n["id"],
            content=n["text"],
            concept_map=note_concept_map(n),
            links=[link["target"] for link in n["links"]],
            tags=list(n.get("tags") or []),
        )
        for n in notes
    ]


async def publish_step(resources: Resources, learner_id: str, artifacts: list[Artifact]) -> list[str]:
    """Put ``ARTIFACT_READY`` events on the learner's stream."""
    return await publish_artifacts(resources.redis, learner_id, artifacts)


async def ingest_session(
    resources: Resources,
    learner_id: str,
    transcript: object,
    current_concept: str | None = None,
    session_id: str | None = None,
    config: PipelineConfig | None = None,
) -> dict[str, Any]:
    """Run the whole pipeline; return ``{artifacts, failures, metrics}``.

    Only newly created notes are published on the stream; re-ingesting a
    session returns its artifacts again but writes and publishes nothing.
    When Neo4j is down the notes are parked for replay (``metrics.notes_parked``) and
    nothing is linked, evolved or published; a later ingest of the session publishes none.
    """
    config = config or PipelineConfig()
    started = time.perf_counter()
    learner_id = validate_learner_id(learner_id)
    turns = validate_transcript(transcript)
    drafts, failures, facts = await extract_step(resources, turns, current_concept, config)
    stored = await store_step(resources, learner_id, drafts, facts, session_id)
    linked = await link_step(resources, learner_id, stored.created, config)
    evolved = await evolve_step(resources, learner_id, [*stored.created, *linked.touched], config)
    artifacts = await artifacts_step(resources, learner_id, [*stored.created, *stored.existing])
    fresh = [a for a in artifacts if a["note_id"] in set(stored.created)]
    stream_ids = await publish_step(resources, learner_id, fresh)
    metrics = {
        "notes_extracted": len(drafts),
        **stored.metrics,
        **linked.metrics,
        **evolved.metrics,
        "artifacts_published": len(stream_ids),
        "extractor": facts.get("extractor"),
        "duration_ms": round((time.perf_counter() - started) * 1000, 1),
    }
    all_failures = failures + stored.failures + linked.failures + evolved.failures
    return {
        "artifacts": artifacts,
        "failures": [dict(f) for f in all_failures],
        "metrics": json.loads(json.dumps(metrics)),
    }
