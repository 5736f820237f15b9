"""Heartbeat state, input and output schemas.

The FIFO queue uses ``add_messages``: archiving sends
``RemoveMessage(REMOVE_ALL_MESSAGES)`` followed by the recursive summary and
the kept messages, which rewrites the queue with the summary at its head.

``messages`` is the conversation as the learner sees it, for Studio's chat view
and API clients: each request as a ``HumanMessage`` (``receive``, with any seeded
``session_history``) and each final answer as an ``AIMessage`` (``finish``). It is
append-only (``add_messages``; never archived, never sent to the model) and carries
no tool calls or tool results: those live in ``fifo_queue`` and recall storage.
"""

from __future__ import annotations

from typing import Annotated, Any, NotRequired, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages


def merge_sections(left: dict[str, str] | None, right: dict[str, str] | None) -> dict[str, str]:
    """Merge core memory mirrors; the newer section text wins."""
    return {**(left or {}), **(right or {})}


def add_counts(left: dict[str, int] | None, right: dict[str, int] | None) -> dict[str, int]:
    """Sum counters key by key."""
    out = dict(left or {})
    for key, value in (right or {}).items():
        out[key] = out.get(key, 0) + value
    return out


class RequestContext(TypedDict, total=False):
    """Optional request context from the design's input schema."""

    current_concept: str
    """The concept being studied, e.g. ``sql.joins``."""
    session_history: list[dict[str, Any]]
    """Earlier ``{role, content}`` turns to seed a new thread's queue."""
    session_id: str
    """Groups messages in recall storage; defaults to the thread id."""
    end_session: bool
    """When true, the Zettelkasten notes of the session are written after the answer."""


class HeartbeatInput(TypedDict):
    """What a client sends for one request."""

    learner_id: NotRequired[str]
    """A UUID or slug; required when run directly. Under the LangGraph server the
    authenticated user is the learner and this field is ignored (so it may be omitted)."""
    request: str
    """What the learner wants: non-empty, at most 32 KB."""
    context: NotRequired[RequestContext]
    """Optional context: current concept, session history, session id, end_session."""


class MemoryState(TypedDict):
    """The ``memory_state`` block of the output."""

    core_sections: list[str]
    queue_size: int
    pressure: float
    steps: int
    archived_count: int
    archive_attempts: int
    archive_successes: int
    degraded: bool


class HeartbeatOutput(TypedDict):
    """What a client receives: the design's output schema."""

    response: str
    """The final answer of this request."""
    artifacts: list[dict[str, Any]]
    """Zettelkasten artifacts produced by this request (end of session)."""
    memory_state: MemoryState
    """Working-memory figures after this request."""


class HeartbeatState(TypedDict):
    """Everything the heartbeat keeps for one thread (checkpointed)."""

    learner_id: str
    """Owner of this thread's memory."""
    request: str
    """The request being served."""
    context: RequestContext
    """Request context of the current request."""
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation for display (Studio's chat view): requests and final answers only."""
    fifo_queue: Annotated[list[AnyMessage], add_messages]
    """The FIFO message queue: user, assistant and tool messages (summary at the head)."""
    core_memory: Annotated[dict[str, str], merge_sections]
    """Mirror of the learner's core memory sections (the source of truth is Neo4j, cached in
    Redis; ``finish`` copies it to the LangGraph Store under ``(learner_id, "core_memory")``)."""
    prompt: list[AnyMessage]
    """The compiled prompt of the current step: system + core memory + queue."""
    step: int
    """Heartbeat steps (model calls) taken for the current request."""
    pressure: float
    """Tokens of the compiled context divided by ``max_tokens``."""
    summary_id: str | None
    """Id of the latest SessionSummary in Neo4j; the next one folds it in."""
    counters: Annotated[dict[str, int], add_counts]
    """Cumulative counters: archive attempts/successes, archived messages, tool errors, …"""
    response: str
    """The final answer of the current request."""
    artifacts: list[dict[str, Any]]
    """Artifacts of the current request."""
    memory_state: MemoryState
    """Output block computed by ``finish``."""
    degraded: bool
    """True when Neo4j was unreachable during this request (Redis-only mode)."""
