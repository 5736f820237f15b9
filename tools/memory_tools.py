"""The MemGPT memory tools, as LangChain tools over KAG's stores.

Each tool is a thin wrapper: validation and storage live in ``agent/``.
``learner_id`` is ``InjectedState`` and ``knobs`` an ``InjectedToolArg``: both are
hidden from the model's schema and supplied by the graph, never by the model.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

from langchain_core.tools import BaseTool, InjectedToolArg, tool
from langgraph.prebuilt import InjectedState

from agent.memory.stores import MemoryKnobs, MemoryStores
from agent.search.conversation import search_conversation
from tools.output import compact_page as _compact

LearnerId = Annotated[str, InjectedState("learner_id")]
Knobs = Annotated[dict[str, Any] | None, InjectedToolArg]
"""The run's ``MemoryKnobs`` as a dict: hidden from the model, injected by the tool runner."""


def make_memory_tools(stores: MemoryStores) -> list[BaseTool]:
    """The five memory tools bound to ``stores``; graphs build them once, with the stores.

    The run's knobs (page size, recipe, core limits) arrive per call as the hidden
    ``knobs`` argument, injected by the tool runner with the learner id.
    """

    @tool
    async def core_memory_append(
        section: str, content: str, learner_id: LearnerId, knobs: Knobs = None
    ) -> str:
        """Append a line to a core memory section (user_profile, current_goals, or a new one).

        Use it to remember facts about the learner and their goals.
        """
        limits = MemoryKnobs.of(knobs).core
        sections = await stores.core.append(learner_id, section, content, limits=limits)
        return json.dumps({"ok": True, "section": section, "core_memory": sections})

    @tool
    async def core_memory_replace(
        section: str, old_content: str, new_content: str, learner_id: LearnerId, knobs: Knobs = None
    ) -> str:
        """Replace exact text in a core memory section; an empty new_content deletes it."""
        limits = MemoryKnobs.of(knobs).core
        sections = await stores.core.replace(learner_id, section, old_content, new_content, limits=limits)
        return json.dumps({"ok": True, "section": section, "core_memory": sections})

    @tool
    async def archival_memory_insert(
        content: str, learner_id: LearnerId, tags: list[str] | None = None
    ) -> str:
        """Store content in long-term archival memory, optionally with tags."""
        record = await stores.archival.insert(learner_id, content, tags=tuple(tags or ()))
        data = record.to_dict()
        keys = ("id", "created", "created_at", "degraded")
        return json.dumps({"ok": True, **{k: data[k] for k in keys if k in data}}, default=str)

    @tool
    async def archival_memory_search(
        query: str, learner_id: LearnerId, page: int = 0, page_size: int | None = None, knobs: Knobs = None
    ) -> str:
        """Search archival memory (past sessions, summaries, notes). Pages start at 0; page_size 1-50."""
        run = MemoryKnobs.of(knobs)
        result = await stores.archival.search(
            learner_id, query, page=page, page_size=page_size or run.page_size, recipe=run.recipe
        )
        return _compact(result.to_dict())

    @tool
    async def conversation_search(
        query: str, learner_id: LearnerId, page: int = 0, page_size: int | None = None, knobs: Knobs = None
    ) -> str:
        """Search every past message of every session, verbatim. Pages start at 0; page_size 1-50."""
        run = MemoryKnobs.of(knobs)
        # Ranked by each turn's context (its date and the turn it replies to), answered with messages.
        result = await search_conversation(
            stores, learner_id, query, recipe=run.recipe, page=page, page_size=page_size or run.page_size
        )
        return _compact(result.to_dict())

    return [
        core_memory_append,
        core_memory_replace,
        archival_memory_insert,
        archival_memory_search,
        conversation_search,
    ]
