"""The Zettelkasten subgraph: extract → store → link → evolve → artifacts → publish.

Run at session end (the heartbeat calls it as a subgraph). Each node is one
step of ``agent.notes.pipeline``; this module only wires them.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Annotated, Any, NotRequired

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime
from typing_extensions import TypedDict

from agent.context import Context
from agent.identity import LocalLearnerId, add_bound_nodes
from agent.notes.models import DEFAULT_TAG_VOCABULARY, Artifact, NoteDraft
from agent.notes.pipeline import (
    PipelineConfig,
    artifacts_step,
    evolve_step,
    extract_step,
    link_step,
    publish_step,
    store_step,
    validate_transcript,
)
from agent.resources import Resources, default_resources
from graphs.reducers import last, merge, union


class TranscriptTurn(TypedDict):
    """One turn of the session."""

    role: str
    """``user`` (the learner), ``assistant`` or ``tool``."""
    content: str
    """What was said."""


class ZettelkastenInput(TypedDict):
    """What the heartbeat passes at session end."""

    learner_id: NotRequired[LocalLearnerId]
    """The learner of a local run (UUID or slug); under the server, the authenticated one."""
    transcript: list[TranscriptTurn]
    """The session's turns, oldest first."""
    current_concept: NotRequired[str | None]
    """The concept the session was about, e.g. ``sql.joins``."""
    session_id: NotRequired[str | None]
    """Recorded in each note's audit."""


class ZettelkastenOutput(TypedDict):
    """What the subgraph returns."""

    artifacts: list[Artifact]
    """One ``ZETTELKASTEN_NOTE`` artifact per note of the session."""
    failures: list[dict[str, Any]]
    """Steps that did not produce their result (never silently dropped)."""
    metrics: dict[str, Any]
    """Counters and timings of this run."""


class ZettelkastenState(TypedDict):
    """Working state of one run."""

    learner_id: Annotated[str, last]
    """The learner (validated by the first node)."""
    transcript: Annotated[list[TranscriptTurn], last]
    """The session's turns."""
    current_concept: Annotated[str | None, last]
    """The session's concept, if known."""
    session_id: Annotated[str | None, last]
    """The session id for audit records."""
    drafts: Annotated[list[dict[str, Any]], last]
    """Extracted notes (``NoteDraft`` dumps) awaiting storage."""
    extraction: Annotated[dict[str, Any], merge]
    """Audit facts of the extraction: extractor, model, attempts."""
    created: Annotated[list[str], union]
    """Ids of notes this run created."""
    existing: Annotated[list[str], union]
    """Ids of notes that already existed (idempotent re-ingest)."""
    touched: Annotated[list[str], union]
    """Neighbours that linking touched (evolved too)."""
    artifacts: Annotated[list[Artifact], last]
    """The run's artifacts."""
    failures: Annotated[list[dict[str, Any]], operator.add]
    """Failures from every step, appended."""
    metrics: Annotated[dict[str, Any], merge]
    """Counters merged from every step."""


def pipeline_config(context: Context) -> PipelineConfig:
    """Map the run's ``Context`` onto the pipeline's knobs."""
    vocabulary = getattr(context, "note_tag_vocabulary", None) or DEFAULT_TAG_VOCABULARY
    return PipelineConfig(
        top_k=context.link_top_k,
        min_confidence=context.link_min_confidence,
        degree_cap=context.degree_cap,
        vocabulary=tuple(vocabulary),
    )


def make_builder(resources: Resources | None = None) -> StateGraph:
    """Wire the subgraph; nodes use ``resources`` or the per-loop default bundle."""
    provide: Callable[[], Resources] = (lambda: resources) if resources else default_resources

    async def extract(
        state: ZettelkastenState, config: RunnableConfig, runtime: Runtime[Context]
    ) -> dict[str, Any]:
        learner_id = state["learner_id"]  # bound to the authenticated learner (agent.identity)
        turns = validate_transcript(state["transcript"])
        if not runtime.context.zettelkasten:
            return {"learner_id": learner_id, "drafts": [], "metrics": {"skipped": True}}
        config = pipeline_config(runtime.context)
        concept = state.get("current_concept")
        drafts, failures, facts = await extract_step(provide(), turns, concept, config)
        runtime.stream_writer({"event": "NOTES_EXTRACTED", "count": len(drafts)})
        return {
            "learner_id": learner_id,
            "drafts": [d.model_dump() for d in drafts],
            "extraction": facts,
            "failures": [dict(f) for f in failures],
            "metrics": {"notes_extracted": len(drafts), "extractor": facts.get("extractor")},
        }

    async def store(state: ZettelkastenState) -> dict[str, Any]:
        drafts = [NoteDraft.model_validate(d) for d in state.get("drafts") or []]
        result = await store_step(
            provide(), state["learner_id"], drafts, state.get("extraction") or {},
            state.get("session_id"),
        )  # fmt: skip
        return {
            "created": result.created,
            "existing": result.existing,
            "failures": [dict(f) for f in result.failures],
            "metrics": result.metrics,
        }

    async def link(state: ZettelkastenState, runtime: Runtime[Context]) -> dict[str, Any]:
        config = pipeline_config(runtime.context)
        result = await link_step(provide(), state["learner_id"], state.get("created") or [], config)
        return {
            "touched": result.touched,
            "failures": [dict(f) for f in result.failures],
            "metrics": result.metrics,
        }

    async def evolve(state: ZettelkastenState, runtime: Runtime[Context]) -> dict[str, Any]:
        config = pipeline_config(runtime.context)
        ids = [*(state.get("created") or []), *(state.get("touched") or [])]
        result = await evolve_step(provide(), state["learner_id"], ids, config)
        return {"failures": [dict(f) for f in result.failures], "metrics": result.metrics}

    async def artifacts(state: ZettelkastenState) -> dict[str, Any]:
        ids = [*(state.get("created") or []), *(state.get("existing") or [])]
        return {"artifacts": await artifacts_step(provide(), state["learner_id"], ids)}

    async def publish(state: ZettelkastenState, runtime: Runtime[Context]) -> dict[str, Any]:
        created = set(state.get("created") or [])
        fresh = [a for a in state.get("artifacts") or [] if a["note_id"] in created]
        stream_ids = await publish_step(provide(), state["learner_id"], fresh)
        for artifact, stream_id in zip(fresh, stream_ids, strict=True):
            runtime.stream_writer({"event": "ARTIFACT_READY", "stream_id": stream_id, "artifact": artifact})
        return {"metrics": {"artifacts_published": len(stream_ids)}}

    builder = StateGraph(
        ZettelkastenState,
        context_schema=Context,
        input_schema=ZettelkastenInput,
        output_schema=ZettelkastenOutput,
    )
    steps = [extract, store, link, evolve, artifacts, publish]
    add_bound_nodes(builder, {step.__name__: step for step in steps})  # authenticated learner only
    builder.add_edge(START, "extract")
    for a, b in zip(steps, steps[1:], strict=False):
        builder.add_edge(a.__name__, b.__name__)
    builder.add_edge("publish", END)
    return builder


# Wiring only, no I/O: stores and tracing are set up when the graph first runs
# (``Resources``/``default_resources``; the server's checkpointer factory).
builder = make_builder()
graph = builder.compile(name="zettelkasten")
