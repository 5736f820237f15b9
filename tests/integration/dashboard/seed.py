"""Notes written straight through ``NoteStore`` (crafted text the extractor would never produce)."""

from __future__ import annotations

import hashlib
from typing import Any

from agent.clock import system_clock
from agent.notes.artifacts import publish_artifacts
from agent.notes.concept_maps import note_concept_map
from agent.notes.models import ARTIFACT_TYPE, Artifact
from agent.notes.store import NoteStore
from agent.resources import Resources

XSS_TITLE = '<img src=x onerror="window.__xss=1">Join <script>window.__xss=2</script>'
XSS_DEFINITION = '<script>window.__xss=3</script><svg onload="window.__xss=4"></svg> a join <b>bold</b>'
XSS_EXAMPLE = '"]) --> x["<img src=y onerror=window.__xss=5>"] click x call alert(1)'


async def seed_note(
    resources: Resources,
    learner_id: str,
    concept: str,
    definition: str,
    *,
    example: str = "",
    insight: str = "",
    tags: tuple[str, ...] = ("sql",),
    publish: bool = True,
    session_id: str | None = None,
) -> str:
    """Write one note (and publish its ``ARTIFACT_READY`` event); return its id."""
    store = NoteStore.for_resources(resources)
    await store.ensure_schema()
    text = f"{concept}: {definition}"
    note_id = "note_" + hashlib.sha256(f"{learner_id}|{concept}|{definition}".encode()).hexdigest()[:32]
    props: dict[str, Any] = {
        "id": note_id,
        "learner_id": learner_id,
        "concept": concept,
        "text": text,
        "definition": definition,
        "personal_example": example,
        "key_insight": insight,
        "keywords": [],
        "tags": list(tags),
        "description": definition[:300],
        "embedding": await store.embed_query(text),
        "embedding_model": "test",
        "embedding_version": "test",
        "created_at": system_clock().isoformat(),
    }
    if session_id:
        props["session_id"] = session_id
    await store.upsert_note(learner_id, props)
    if publish:
        note = {**props, "links": []}
        artifact = Artifact(
            type=ARTIFACT_TYPE,
            note_id=note_id,
            content=text,
            concept_map=note_concept_map(note),
            links=[],
            tags=list(tags),
        )
        await publish_artifacts(resources.redis, learner_id, [artifact])
    return note_id


async def link(resources: Resources, learner_id: str, source: str, target: str, relation: str) -> int:
    """One typed link between two of the learner's notes."""
    edge = {
        "source": source,
        "target": target,
        "relation": relation,
        "weight": 0.8,
        "confidence": 0.9,
        "cosine": 0.7,
        "rationale": "test link",
        "directional": relation in {"refutes", "predecessor", "successor"},
        "now": system_clock().isoformat(),
    }
    return await NoteStore.for_resources(resources).merge_links(learner_id, [edge])
