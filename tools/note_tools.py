"""Zettelkasten tools: write the session's notes, search the learner's notes.

Thin wrappers over ``agent.note_pipeline`` and the note store (never the
compiled graph). ``learner_id`` and the transcript come from graph state via
``InjectedState``; the model never supplies them.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Annotated, Any

from langchain_core.messages import BaseMessage
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from agent.embeddings import index_name_for
from agent.learner_ids import validate_learner_id
from agent.note_linking import expand_note_links, raw_cosine
from agent.note_pipeline import PipelineConfig, ingest_session
from agent.note_store import candidate_notes, ensure_note_schema
from agent.resources import Resources

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
        res = provide()
        learner_id = validate_learner_id(learner_id)
        k = max(1, min(int(k), 20))
        emb = res.embeddings
        index = index_name_for(emb, "note")
        await ensure_note_schema(res.neo4j, index, emb.dimension, database=res.database)
        vector = await asyncio.to_thread(emb.embed_query, query)
        hits = await candidate_notes(
            res.neo4j, learner_id, vector, index_name=index, k=k, exclude=[], database=res.database
        )
        ids = [h["note"]["id"] for h in hits]
        linked = await expand_note_links(res.neo4j, learner_id, ids, depth=1, limit=k, database=res.database)
        return json.dumps(
            {
                "results": [
                    {
                        "note_id": h["note"]["id"],
                        "concept": h["note"]["concept"],
                        "text": h["note"]["text"],
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
