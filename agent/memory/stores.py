"""The memory stores a graph uses, built once per resources bundle, and the run's knobs.

Stores are stateless wrappers over a bundle's clients, so a graph builds them once
(``MemoryStores.wire``) and hands them to its nodes. What varies per run (section
limits, TTL, search page size and recipe) comes from the run's ``Context`` as
``MemoryKnobs`` and is passed with each call, never baked into a store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

import neo4j

from agent.context import Context
from agent.graphdb.store import fetch
from agent.kernel.derive import derive_recall_turn_contexts
from agent.kernel.events import OP_RECALL
from agent.kernel.sentences import mark_pending
from agent.kernel.stream import KernelStream
from agent.memory.archival import OP_INSERT, ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.memory.cognitive_queries import LINK_PENDING_EPISODES
from agent.memory.core import CoreLimits, CoreMemoryStore
from agent.memory.episodes import EpisodeStore
from agent.memory.procedures import ProcedureStore
from agent.memory.queries import LINK_PENDING_SUMMARIES
from agent.memory.recall import RecallStore
from agent.memory.sensory import SensoryBuffer
from agent.resources import Resources
from agent.search.recipes import DEFAULT_RECIPE
from agent.turns import TURN_KIND

if TYPE_CHECKING:  # imported by ``MemoryStores.wire``: a search (``search_stores``) never loads them
    from agent.memory.facts import FactStore  # scikit-learn and dateparser, via agent.language
    from agent.memory.reminders import ReminderStore  # dateparser

MAX_CONSOLIDATIONS_PER_BATCH = 5
"""Episode consolidations the kernel runs after one recall batch (the rest wait for the next)."""


@dataclass(frozen=True)
class MemoryKnobs:
    """Per-run memory knobs, taken from ``Context``; tools receive them as a hidden argument."""

    section_limit: int = 2000
    """Characters per core memory section."""
    ttl_seconds: int = 86400
    """Core memory cache TTL (0: none)."""
    page_size: int = 5
    """Default search page size."""
    recipe: str = DEFAULT_RECIPE
    """Named archival search recipe (``agent.search.recipes``)."""

    @classmethod
    def from_context(cls, context: Context) -> MemoryKnobs:
        """The knobs of a run's ``Context``."""
        return cls(
            section_limit=context.core_section_limit,
            ttl_seconds=context.core_ttl_seconds,
            page_size=context.search_page_size,
            recipe=context.search_recipe,
        )

    @classmethod
    def of(cls, value: MemoryKnobs | dict[str, Any] | None) -> MemoryKnobs:
        """Knobs from a hidden tool argument (a dict), or the defaults."""
        if isinstance(value, MemoryKnobs):
            return value
        return cls(**value) if value else cls()

    def as_dict(self) -> dict[str, Any]:
        """A plain dict, as injected into tool calls."""
        return asdict(self)

    @property
    def core(self) -> CoreLimits:
        """The core memory rules."""
        return CoreLimits(self.section_limit, self.ttl_seconds)


@dataclass(frozen=True, eq=False)
class MemoryStores:
    """Every memory store over one resources bundle (docs/cognitive-memory.md maps the six types).

    Core memory is Redis over Neo4j; archival, recall, facts (semantic), procedures,
    reminders (prospective) and consolidated episodes are Neo4j; the sensory buffer is
    Redis only. All share the bundle's clock, and every store that parks writes during a
    Neo4j outage shares one write backlog.
    """

    core: CoreMemoryStore
    archival: ArchivalStore
    recall: RecallStore
    facts: FactStore
    procedures: ProcedureStore
    reminders: ReminderStore
    episodes: EpisodeStore
    sensory: SensoryBuffer
    kernel: KernelStream
    """The kernel stream: recall logging and parked writes (drained by ``agent.kernel.worker``)."""
    backlog: WriteBacklog
    """Outage handling over the kernel stream (breaker, parked writes, recent items)."""

    @classmethod
    def wire(cls, resources: Resources) -> MemoryStores:
        """Build the stores over ``resources`` (call once per bundle; they share one backlog).

        ``settings.ingest_mode`` picks how recall logging reaches Neo4j: ``kernel`` (the
        stream; the worker writes it) or ``sync`` (in the call, the path before issue 14).
        """
        from agent.memory.facts import FactStore
        from agent.memory.reminders import ReminderStore

        kernel, backlog, shared = _plumbing(resources)
        archival, recall = _readers(resources, kernel, shared)
        neo = (resources.neo4j, resources.embeddings)
        stores = cls(
            core=CoreMemoryStore(
                resources.redis, driver=resources.neo4j, embeddings=resources.embeddings, **shared
            ),
            archival=archival,
            recall=recall,
            facts=FactStore(*neo, **shared),
            procedures=ProcedureStore(*neo, **shared),
            reminders=ReminderStore(*neo, redis=resources.redis, **shared),
            # Consolidation is derived data, redone on a later turn: it never parks a write.
            episodes=EpisodeStore(*neo, database=resources.database, clock=resources.clock),
            sensory=SensoryBuffer(resources.redis, clock=resources.clock),
            kernel=kernel,
            backlog=backlog,
        )

        async def turn_contexts(learner_id: str, payloads: Sequence[dict[str, Any]]) -> None:
            await derive_recall_turn_contexts(stores, learner_id, payloads)

        async def episodes(learner_id: str, payloads: Sequence[dict[str, Any]]) -> None:
            for _ in range(MAX_CONSOLIDATIONS_PER_BATCH):  # every 10 learner statements, extractive
                if await stores.episodes.consolidate_due(learner_id) is None:
                    break

        async def pending_links(learner_id: str, payloads: Sequence[dict[str, Any]]) -> None:
            # Facts, procedures and summaries written in the turn, before the worker committed
            # the messages they come from, get their links now (one transaction for both).
            ids = [m["id"] for p in payloads for m in p["messages"]]

            async def link(tx: neo4j.AsyncTransaction) -> None:
                await fetch(tx, LINK_PENDING_EPISODES, learner_id=learner_id, ids=ids)
                await fetch(tx, LINK_PENDING_SUMMARIES, learner_id=learner_id, ids=ids)

            await stores.facts.write(link)

        async def landed_turn_contexts(learner_id: str, payloads: Sequence[dict[str, Any]]) -> None:
            # Turn contexts parked while Neo4j was down land here: the idle pass splits them.
            items = (item for p in payloads for item in p.get("items") or [p])
            if any(item.get("kind") == TURN_KIND for item in items):
                await mark_pending(stores, learner_id)

        # Write-time derivation, for every session (the LoCoMo ingest goes through it too).
        backlog.add_hook(OP_INSERT, "sentences", landed_turn_contexts)
        backlog.add_hook(OP_RECALL, "pending_links", pending_links)
        backlog.add_hook(OP_RECALL, "turn_contexts", turn_contexts)
        backlog.add_hook(OP_RECALL, "episodes", episodes)
        return stores

    async def settle(self, learner_id: str | None = None) -> int:
        """Apply the kernel stream now (one learner or all): tests, benches and the CLI.

        Returns how many events were applied; the background worker does the same.
        """
        return await self.backlog.replay(learner_id=learner_id)


def _plumbing(resources: Resources) -> tuple[KernelStream, WriteBacklog, dict[str, Any]]:
    """The kernel stream, the one write backlog over it, and the keywords every store shares."""
    settings = resources.settings
    prefix = settings.kernel_prefix
    kernel = KernelStream(resources.redis, prefix=prefix, max_backlog=settings.kernel_max_backlog)
    backlog = WriteBacklog(resources.redis, prefix=prefix, kernel=kernel)
    return kernel, backlog, {"database": resources.database, "backlog": backlog, "clock": resources.clock}


def _readers(
    resources: Resources, kernel: KernelStream, shared: dict[str, Any]
) -> tuple[ArchivalStore, RecallStore]:
    """Archival and recall memory; recall logs through the kernel stream when ``ingest_mode`` is kernel."""
    neo = (resources.neo4j, resources.embeddings)
    recall_kernel = kernel if resources.settings.ingest_mode == "kernel" else None
    return ArchivalStore(*neo, **shared), RecallStore(*neo, kernel=recall_kernel, **shared)


def search_stores(resources: Resources) -> tuple[ArchivalStore, RecallStore]:
    """Archival and recall memory wired as ``MemoryStores.wire`` wires them, for a search and nothing else.

    ``kag search`` reads these two only; building every store would load the facts' and
    reminders' language stack (scikit-learn, dateparser), most of a fresh process's start.
    Recall search still sees the messages the kernel has not written to Neo4j yet.
    """
    kernel, _, shared = _plumbing(resources)
    return _readers(resources, kernel, shared)
