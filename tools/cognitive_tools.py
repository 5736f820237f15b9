"""The cognitive memory tools: facts, procedures and reminders, as LangChain tools.

Thin wrappers over the stores of ``agent.memory`` (``FactStore``, ``ProcedureStore``,
``ReminderStore``): validation and storage live there, and bad arguments raise
``InvalidInputError``, which the tool runner returns to the model as a tool error.
``learner_id`` and the graph ``state`` are ``InjectedState``: hidden from the model's
schema and supplied by the graph. From ``state`` the tools read the episode (the
learner message that led to the call: ``episode_id``, else the last learner message
of ``fifo_queue``) and the ``session_id``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.messages import BaseMessage
from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from tools.output import compact_page, dumps

if TYPE_CHECKING:  # annotations only: the tools reach the stores through the instance
    from agent.memory.stores import MemoryStores

LearnerId = Annotated[str, InjectedState("learner_id")]
GraphState = Annotated[dict[str, Any] | None, InjectedState]
"""The heartbeat's tool state (``agent.heartbeat.act.tool_state``), hidden from the model."""

FACT_META = (
    "subject",
    "predicate",
    "valid_from",
    "valid_to",
    "current",
    "was_until",
    "concept",
    "confidence",
)
"""Fact metadata the model sees with each ``search_facts`` hit (``was_until``: an older open fact
about the same thing, "was X until …", ``agent.memory.fact_order.newest_first``)."""
PROCEDURE_META = ("name", "steps", "prerequisites", "usage_count")
"""Procedure metadata the model sees with each ``recall_procedure`` hit."""
FACT_FIELDS = ("id", "subject", "predicate", "content", "valid_from", "superseded", "degraded")
PROCEDURE_FIELDS = ("id", "name", "steps", "prerequisites", "usage_count", "degraded")
REMINDER_FIELDS = (
    "id",
    "description",
    "trigger_kind",
    "keywords",
    "concept",
    "due_at",
    "priority",
    "status",
    "resolved_at",
    "degraded",
)


def episode_of(state: Mapping[str, Any] | None) -> str | None:
    """The learner message a tool call derives from: ``state["episode_id"]``, else the last one queued."""
    if not state:
        return None
    if state.get("episode_id"):
        return str(state["episode_id"])
    for message in reversed(state.get("fifo_queue") or []):
        if isinstance(message, BaseMessage) and message.type == "human":
            return str(message.id) if message.id else None
        if isinstance(message, Mapping) and message.get("role") in ("user", "human"):
            return str(message["id"]) if message.get("id") else None
    return None


def _record(record: Any, fields: Sequence[str]) -> str:
    """A store record as compact JSON: ``ok`` plus the named fields it has."""
    data = record.to_dict()
    return dumps({"ok": True, **{k: data[k] for k in fields if k in data}})


def make_cognitive_tools(stores: MemoryStores) -> list[BaseTool]:
    """The six cognitive memory tools bound to ``stores``; graphs build them once, with the stores."""
    return [*make_fact_tools(stores), *make_procedure_tools(stores), *make_reminder_tools(stores)]


def make_fact_tools(stores: MemoryStores) -> list[BaseTool]:
    """``remember_fact`` and ``search_facts``: facts about the learner that may change over time."""

    @tool
    async def remember_fact(
        content: str,
        learner_id: LearnerId,
        subject: str | None = None,
        predicate: str | None = None,
        concept: str | None = None,
        confidence: float = 1.0,
        state: GraphState = None,
    ) -> str:
        """Remember a fact about the learner that may change later (where they live, tools, goals).

        A new fact in the same (subject, predicate) slot closes the old one, which stays
        findable with search_facts(as_of=...). Leave subject/predicate empty to let the
        store infer the slot from the content.
        """
        record = await stores.facts.remember(
            learner_id,
            content,
            subject=subject,
            predicate=predicate,
            concept=concept,
            confidence=confidence,
            episode_id=episode_of(state),
        )
        return _record(record, FACT_FIELDS)

    @tool
    async def search_facts(query: str, learner_id: LearnerId, as_of: str | None = None, k: int = 5) -> str:
        """Search facts about the learner: current ones, or those true at as_of (ISO date/time)."""
        page = await stores.facts.search(learner_id, query, as_of=as_of, k=k)
        return compact_page(page.to_dict(), FACT_META)

    return [remember_fact, search_facts]


def make_procedure_tools(stores: MemoryStores) -> list[BaseTool]:
    """``save_procedure`` and ``recall_procedure``: how the learner does a task, as ordered steps."""

    @tool
    async def save_procedure(
        name: str,
        steps: list[str],
        learner_id: LearnerId,
        prerequisites: list[str] | None = None,
        state: GraphState = None,
    ) -> str:
        """Save how the learner does a task, as ordered steps (re-saving a name replaces its steps)."""
        record = await stores.procedures.save(
            learner_id, name, steps, prerequisites=tuple(prerequisites or ()), episode_id=episode_of(state)
        )
        return _record(record, PROCEDURE_FIELDS)

    @tool
    async def recall_procedure(query: str, learner_id: LearnerId, k: int = 3) -> str:
        """Find the learner's own procedures (ordered steps) for a task; each recall counts as a use."""
        page = await stores.procedures.recall(learner_id, query, k=k)
        return compact_page(page.to_dict(), PROCEDURE_META)

    return [save_procedure, recall_procedure]


def make_reminder_tools(stores: MemoryStores) -> list[BaseTool]:
    """``set_reminder`` and ``resolve_reminder``: reminders that fire once into working memory."""

    @tool
    async def set_reminder(
        description: str,
        learner_id: LearnerId,
        keywords: list[str] | None = None,
        concept: str | None = None,
        due_at: str | None = None,
        priority: int = 2,
        state: GraphState = None,
    ) -> str:
        """Set a reminder that fires once: when a keyword comes up, a concept is reached, or at due_at.

        priority: 1 high, 2 normal, 3 low. A fired reminder appears in WORKING MEMORY;
        act on it, then call resolve_reminder.
        """
        record = await stores.reminders.set(
            learner_id,
            description,
            keywords=tuple(keywords or ()),
            concept=concept,
            due_at=due_at,
            priority=priority,
            session_id=(state or {}).get("session_id"),
        )
        return _record(record, REMINDER_FIELDS)

    @tool
    async def resolve_reminder(reminder_id: str, learner_id: LearnerId) -> str:
        """Mark a reminder as done once you have acted on it (the id shown in WORKING MEMORY)."""
        record = await stores.reminders.resolve(learner_id, reminder_id)
        return _record(record, REMINDER_FIELDS)

    return [set_reminder, resolve_reminder]
