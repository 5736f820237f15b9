"""Heartbeat state, input and output schemas.

The FIFO queue uses ``add_messages``: archiving sends
``RemoveMessage(REMOVE_ALL_MESSAGES)`` followed by the recursive summary and
the kept messages, which rewrites the queue with the summary at its head.

``messages`` is the conversation as the learner sees it, for Studio's chat view
and API clients: each request as a ``HumanMessage`` (``receive``, with any seeded
``session_history``) and each final answer as an ``AIMessage`` (``finish``). It is
never archived and never sent to the model, and carries no tool calls or tool results:
those live in ``fifo_queue`` and recall storage. It keeps the latest
``Context.display_window`` messages (default 100): ``finish`` removes older ones, so a
checkpoint of a thread's thousandth turn is no larger than its fiftieth. The full
conversation stays in recall storage (``conversation_search``) and in the thread's
earlier checkpoints.

``request`` is the run's request as a client sent it; ``receive`` consumes it (empties it), so
a run that failed later cannot leave a stale request that a later run would serve again. Chat
clients send ``messages`` instead (``agent.heartbeat.chat_input``).

``slots`` is working memory proper (``agent.heartbeat.slots.merge_slots``): ``appraise``
starts a fresh set for each request and ``finish`` clears it. ``effort`` is the request's
adaptive-effort record, which ``finish`` copies into ``memory_state["effort"]``.
"""

from __future__ import annotations

from typing import Annotated, Any

from langchain_core.messages import AnyMessage
from langgraph.channels.untracked_value import UntrackedValue
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict  # typing.TypedDict has no JSON schema on Python < 3.12

from agent.heartbeat.slots import Slot, merge_slots
from agent.identity import LocalLearnerId


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


class HeartbeatInput(TypedDict, total=False):
    """What a client sends for one request: ``request``, or the chat convention's ``messages``.

    Every key is optional (``total=False``); a run needs ``request`` or a ``messages`` list whose
    last message is the learner's, and when both are sent ``request`` is served.
    """

    learner_id: LocalLearnerId
    """A UUID or slug; required when run directly. Under the LangGraph server the
    authenticated user is the learner and this field is ignored (so it may be omitted)."""
    request: str
    """What the learner wants: non-empty, at most 32 KB. When ``messages`` is sent too, this is
    what the tutor answers, and it takes the place of the last human message there."""
    messages: list[AnyMessage]
    """The LangGraph chat convention (Agent Chat UI, Studio's chat mode, the SDK): the learner's
    new message, e.g. ``[{"type": "human", "content": [{"type": "text", "text": "…"}]}]`` or
    ``[{"role": "user", "content": "hello"}]``. The last human message's text (a string or text
    blocks, at most 32 KB) is the request; it joins the conversation once, as sent."""
    context: RequestContext
    """Optional context: current concept, session history, session id, end_session."""


class _MemoryStateRequired(TypedDict):
    """The keys every ``memory_state`` has."""

    core_sections: list[str]
    queue_size: int
    pressure: float
    steps: int
    archived_count: int
    archive_attempts: int
    archive_successes: int
    degraded: bool
    effort: EffortReport
    """The request's adaptive-effort and metacognition figures (issue 13)."""


class MemoryState(_MemoryStateRequired, total=False):
    """The ``memory_state`` block of the output (``total=False`` marks the optional keys).

    ``NotRequired`` is not used here: under ``from __future__ import annotations`` Python
    3.11 does not see it, and clients read ``__required_keys__``.
    """

    consolidated_episode: str
    """Id of the ConsolidatedEpisode this request's ``finish`` wrote, when episodes were due."""


class EffortReport(TypedDict, total=False):
    """What a bench needs for the metacognition metrics of one request (``bench.cognitive.metacognition``)."""

    intent: str
    method: str
    """``llm`` (structured output) or ``rules`` (the offline classifier)."""
    budget: int
    """``min(Context.max_steps, EFFORT[intent].max_steps)``."""
    plan: str
    """Name of the retrieval plan the appraisal searched with."""
    rounds: int
    """Appraisal search rounds taken (they count against the budget)."""
    think_steps: int
    steps_used: int
    """``rounds + think_steps``; never above ``budget``."""
    evaluations: int
    sufficient: bool | None
    """The last sufficiency judgement (None: nothing was evaluated)."""
    coverage: float | None
    self_corrections: int
    retrieved: list[str]
    """Ids of the ``retrieved_fact`` slots of this request (appraisal and search tools)."""
    used: list[str]
    """Retrieved slot ids whose content the answer drew on (word overlap, see cognition)."""
    reminders: list[str]
    """Ids of the reminders that fired during this request."""


class HeartbeatOutput(TypedDict):
    """What a client receives: the design's output schema, and the conversation for chat clients."""

    response: str
    """The final answer of this request."""
    artifacts: list[dict[str, Any]]
    """Zettelkasten artifacts produced by this request (end of session)."""
    memory_state: MemoryState
    """Working-memory figures after this request."""
    messages: list[AnyMessage]
    """The conversation as the learner sees it (requests and final answers), so a chat client's
    ``values`` events carry it through the run."""


class HeartbeatState(TypedDict):
    """Everything the heartbeat keeps for one thread (checkpointed)."""

    learner_id: str
    """Owner of this thread's memory."""
    request: str
    """The run's ``request`` input until ``receive`` takes it (then empty); the request being
    served is the last human message of ``fifo_queue`` (``chat_input.served_request``)."""
    context: RequestContext
    """Request context of the current request."""
    messages: Annotated[list[AnyMessage], add_messages]
    """The conversation for display (Studio's chat view): the latest requests and final answers."""
    fifo_queue: Annotated[list[AnyMessage], add_messages]
    """The FIFO message queue: user, assistant and tool messages (summary at the head)."""
    core_memory: Annotated[dict[str, str], merge_sections]
    """Mirror of the learner's core memory sections (the source of truth is Neo4j, cached in
    Redis; ``finish`` copies it to the LangGraph Store under ``(learner_id, "core_memory")``)."""
    prompt: Annotated[list[AnyMessage], UntrackedValue]
    """The compiled prompt of the current step: system + core memory + queue.

    Never checkpointed (``UntrackedValue``): it is a function of the checkpointed queue,
    core memory and slots, and saving it would store the queue a second time every step.
    A think step that finds no prompt (a run resumed after ``compile``) compiles its own."""
    step: int
    """Heartbeat steps (model calls) taken for the current request."""
    pressure: float
    """Tokens of the compiled context divided by ``max_tokens``."""
    archive_due: bool
    """Set by ``monitor``: pressure is over ``Context.pressure_threshold`` and there is
    something to evict, so ``archive`` runs next."""
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
    slots: Annotated[list[Slot], merge_slots]
    """Working memory task slots of the current request (at most 20), rendered after core memory."""
    effort: dict[str, Any]
    """The current request's adaptive-effort record (see ``EffortReport``)."""
