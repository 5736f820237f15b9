"""The memory stores one heartbeat run uses, built from shared resources."""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from typing import Any

from agent.archival_store import ArchivalStore
from agent.context import Context
from agent.core_memory_store import CoreMemoryStore
from agent.recall_store import RecallStore
from agent.resources import Resources
from agent.write_backlog import WriteBacklog


@dataclass(frozen=True, eq=False)
class MemoryStores:
    """Core (Redis), archival and recall (Neo4j) stores plus search settings."""

    core: CoreMemoryStore
    archival: ArchivalStore
    recall: RecallStore
    page_size: int = 5
    recipe: str = "hybrid_rrf"

    @classmethod
    def build(cls, resources: Resources, context: Context) -> MemoryStores:
        """Wire stores over ``resources`` with the run's ``context`` knobs (cached per pair)."""
        key = (
            context.core_section_limit,
            context.core_ttl_seconds,
            context.search_page_size,
            context.search_recipe,
        )
        per_bundle = _BUILT.setdefault(resources, {})
        if key not in per_bundle:
            per_bundle[key] = cls._wire(resources, context)
        return per_bundle[key]

    @classmethod
    def _wire(cls, resources: Resources, context: Context) -> MemoryStores:
        backlog = WriteBacklog(resources.redis)
        return cls(
            core=CoreMemoryStore(
                resources.redis,
                section_limit=context.core_section_limit,
                ttl_seconds=context.core_ttl_seconds,
            ),
            archival=ArchivalStore(
                resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog
            ),
            recall=RecallStore(
                resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog
            ),
            page_size=context.search_page_size,
            recipe=context.search_recipe,
        )


# Stores are stateless wrappers over the bundle's clients; one set per bundle and knobs.
_BUILT: weakref.WeakKeyDictionary[Resources, dict[tuple[Any, ...], MemoryStores]] = (
    weakref.WeakKeyDictionary()
)
