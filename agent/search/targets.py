"""What a hybrid search runs over: one label, its indexes and its label-specific queries.

``memory_target`` (archival memories, turn contexts, session summaries) and
``message_target`` (recall messages) are the two that stores search through
``agent.search.hybrid.HybridSearch``; ``turn_target`` is ``memory_target`` with turn contexts
answered by their messages (the default conversation search).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from agent.graphdb.schema import SchemaNames
from agent.search.queries import (
    CONTEXT_HYDRATE,
    CONTEXT_HYDRATE_TURN,
    EXACT_BY_LABEL,
    HYDRATE_BY_LABEL,
    HYDRATE_TURN,
    RECENT_BY_LABEL,
)


@dataclass(frozen=True)
class SearchTarget:
    """Which label a store searches and the queries specific to it."""

    label: str
    vector_index: str
    fulltext_index: str
    text_field: str
    exact_query: str
    recent_query: str
    context_query: str
    """The context neighbours of the seeds, and the page's candidates hydrated (``CONTEXT_HYDRATE``)."""
    hydrate_query: str
    sentence_index: str = ""
    """Vector index over ``:TurnSentence`` (the ``sentence`` retriever); empty: the target has none."""


def memory_target(names: SchemaNames) -> SearchTarget:
    """Archival memories and session summaries (``:Memory``); turn contexts also by their sentences."""
    return SearchTarget(
        "Memory",
        names.memory_vector,
        names.memory_fulltext,
        "text",
        EXACT_BY_LABEL["Memory"],
        RECENT_BY_LABEL["Memory"],
        CONTEXT_HYDRATE["Memory"],
        HYDRATE_BY_LABEL["Memory"],
        names.sentence_vector,
    )


def turn_target(names: SchemaNames) -> SearchTarget:
    """Archival memories ranked as ``memory_target``, each turn context answered with its message.

    Hits keep the ranked memory's id in ``key`` (``HIT_FIELDS["Turn"]``), so the conversation
    search maps contexts to messages in the search's own round trips.
    """
    return replace(memory_target(names), context_query=CONTEXT_HYDRATE_TURN, hydrate_query=HYDRATE_TURN)


def message_target(names: SchemaNames) -> SearchTarget:
    """Recall-storage messages (``:Message``)."""
    return SearchTarget(
        "Message",
        names.message_vector,
        names.message_fulltext,
        "content",
        EXACT_BY_LABEL["Message"],
        RECENT_BY_LABEL["Message"],
        CONTEXT_HYDRATE["Message"],
        HYDRATE_BY_LABEL["Message"],
    )
