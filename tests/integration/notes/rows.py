"""Note rows as ``NoteStore.upsert_note(s)`` takes them, for tests that write notes directly."""

from __future__ import annotations

import uuid
from typing import Any

from agent.clock import system_clock


def note_row(learner_id: str, text: str, embedding: list[float]) -> dict[str, Any]:
    """A complete note of ``learner_id`` whose concept is the text before its first colon."""
    return {
        "id": f"note_{uuid.uuid4().hex}",
        "learner_id": learner_id,
        "concept": text.split(":")[0],
        "text": text,
        "definition": text,
        "keywords": [],
        "tags": [],
        "description": text[:300],
        "embedding": embedding,
        "embedding_model": "test",
        "embedding_version": "test",
        "created_at": system_clock().isoformat(),
    }
