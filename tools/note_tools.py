"""Zettelkasten tools: write the session's notes, search the learner's notes.

Thin wrappers over ``agent.notes.pipeline`` and the note store (never the
compiled graph). ``learner_id`` and the transcript come from graph state via
``InjectedState``; the model never supplies them.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Annotated, Any

from langchain_core.messages import BaseMessage
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from agent.notes.linking import expand_note_links, raw_cosine
from agent.notes.pipeline import PipelineConfig, ingest_session
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.validation import validate_learner_id

LearnerId = Annotated[str, InjectedState("learner_id")]
GraphState = Annotated[dict, InjectedState]


def _turns(state: dict[str, Any]) -> list[dict[str, str]]:
    """The session transcript from heartbeat state (``fifo_queue`` or ``messages``)."""
    raw = state.get("transcript") or state.get("fifo_queue") or state.get("messages") or []
    turns = []
    for item in raw:
        if isinstance(item, BaseMessage):
            role = {"human": "user", "ai": "assistant"}.get(item.type, item.type)
            turns.append({"role": role, "content": item.text})
        elif isinstance(item, dict) and isinstance(item.get("content"), str):
            turns.append({"role": str(item.get("role", "user")), "content": item["content"]})
    return turns


def make_note_tools(
    provider: Resources | Callable[[], Resources], config: PipelineConfig | None = None
) -> list[BaseTool]:
    """Build ``write_session_notes`` and ``note_search`` over ``provider``'s resources."""
    provide = provider if callable(provider) else (lambda: provider)

    @tool
    async def write_session_notes(state: GraphState, current_concept: str | None = None) -> str:
        """Turn this session into linked Zettelkasten notes (text plus concept map)."""
        result = await ingest_session(
            provide(),
            state["learner_id"],
            _turns(state),
            current_concept or state.get("current_concept"),
            state.get("session_id"),
            config,
        )
        return json.dumps(
            {
                "ok": not result["failures"],
                "notes": [
                    {"note_id": a["note_id"], "content": a["content"], "tags": a["tags"]}
                    for a in result["artifacts"]
                ],
                "failures": result["failures"],
            },
            ensure_ascii=False,
        )

    @tool
    async def note_search(query: str, learner_id: LearnerId, k: int = 5) -> str:
        """Search the learner's own notes by meaning, plus the notes they link to."""
        store = NoteStore.for_resources(provide())
        learner_id = validate_learner_id(learner_id)
        k = max(1, min(int(k), 20))
        await store.ensure_schema()
        vector = await store.embed_query(query)
        hits = await store.candidate_notes(learner_id, vector, k=k, exclude=[])
        ids = [h["note"]["id"] for h in hits]
        linked = await expand_note_links(store, learner_id, ids, depth=1, limit=k)
        return json.dumps(
            {
                "results": [
                    {
                        "note_id": h["note"]["id"],
                        "concept": h["note"]["concept"],
                        "text": h["note"]["text"],
                        # the note's own fields, so a tutor can hand back its definition and example
                        "definition": h["note"].get("definition") or "",
                        "example": h["note"].get("personal_example") or "",
                        "similarity": round(raw_cosine(h["score"]), 4),
                    }
                    for h in hits
                ],
                "linked": [
                    {
                        "note_id": n["id"],
                        "concept": n["concept"],
                        "text": n["text"],
                        "score": n["score"],
                    }
                    for n in linked
                ],
            },
            ensure_ascii=False,
        )

    return [write_session_notes, note_search]
