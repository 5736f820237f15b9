"""Benchmark presets for LoCoMo: a search recipe, the tool whose search it runs, and a kinds filter.

A preset runs the same store search as the agent: its default conversation search
(``kag_default``: ``agent.search.conversation``, the "KAG default" row),
``RecallStore.search`` (verbatim messages) or ``archival_memory_search``
(``ArchivalStore.search``: here the per-turn ``turn_context`` memories). Session summaries
are never returned as hits by the archival presets (the kinds filter keeps them out, as it
would the agent's own memories). Recipes are the product's (``agent.search.recipes``) or the
ladder's (``bench.locomo.recipes``), passed to the stores as values.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields

from agent.context import Context
from agent.errors import InvalidInputError
from agent.kernel.derive import TURN_KIND
from agent.memory.stores import MemoryStores
from agent.search.conversation import TURN_KINDS, search_conversation
from agent.search.results import SearchPage
from bench.locomo.recipes import bench_recipe

RECALL = "conversation_search"
ARCHIVAL = "archival_memory_search"
KAG = "search_conversation"
"""The agent's default conversation search (``agent.search.conversation``)."""
MAX_PAGE = 50  # the stores' page limit, and the largest k scored


@dataclass(frozen=True)
class BenchPreset:
    """One row of the results table."""

    name: str
    recipe: str
    tool: str
    kinds: tuple[str, ...] | None = None

    @property
    def description(self) -> str:
        """The recipe's description and what is searched."""
        if self.tool == RECALL:
            what = "messages"
        elif self.tool == KAG:
            what = "turn contexts + messages not drained yet"
        else:
            what = f"archival {', '.join(self.kinds or ('all',))}"
        return f"{bench_recipe(self.recipe).description} [{self.tool}: {what}]"


def _recall(recipe: str) -> BenchPreset:
    return BenchPreset(f"recall:{recipe}", recipe, RECALL)


def _archival(recipe: str, kinds: tuple[str, ...] = (TURN_KIND,)) -> BenchPreset:
    return BenchPreset(f"archival:{recipe}", recipe, ARCHIVAL, kinds)


PRESETS: tuple[BenchPreset, ...] = (
    _recall("vector_only"),
    _recall("fulltext_only"),
    _recall("hybrid_rrf"),
    _recall("hybrid_session_context"),
    _recall("hybrid_multi_query"),
    _archival("hybrid_rrf"),
    _archival("hybrid_keywords"),
    _archival("hybrid_keywords_k10"),
    _archival("hybrid_session_hits"),
    _archival("hybrid_session_context"),
    _archival("hybrid_stems"),
    _archival("hybrid_multi_query"),
    _archival("hybrid_disclosure_light"),
    _archival("hybrid_disclosure"),
    _archival("hybrid_disclosure_strong"),
    _archival("hybrid_sentences_light"),
    _archival("hybrid_sentences"),
    _archival("hybrid_sentences_strong"),
)
PRESETS_BY_NAME: dict[str, BenchPreset] = {p.name: p for p in PRESETS}
KAG_DEFAULT = "KAG default"


def kag_default() -> BenchPreset:
    """The agent's default search: ``search_conversation`` with ``Context.search_recipe``'s default.

    The same call as the agent's default conversation search (``agent.search.conversation``:
    the kernel's turn contexts, fresh messages fused in); reported first, as "KAG default",
    and never a leave-one-out candidate (it is the product, not a choice).
    """
    recipe = str(next(f.default for f in fields(Context) if f.name == "search_recipe"))
    return BenchPreset(f"kag:{recipe}", recipe, KAG, TURN_KINDS)


def get_presets(names: Sequence[str] | None = None) -> list[BenchPreset]:
    """The named presets in the order given (all of them for None); unknown names list the valid ones."""
    if not names:
        return list(PRESETS)
    unknown = [n for n in names if n not in PRESETS_BY_NAME]
    if unknown:
        raise InvalidInputError(f"unknown LoCoMo presets {unknown}; valid: {', '.join(PRESETS_BY_NAME)}")
    return [PRESETS_BY_NAME[n] for n in dict.fromkeys(names)]


@dataclass(frozen=True)
class RankedTurns:
    """One search: each hit's source turns in rank order, and how long the search took."""

    items: list[tuple[str, ...]]
    seconds: float
    page: SearchPage


async def search_turns(
    stores: MemoryStores,
    learner_id: str,
    preset: BenchPreset,
    query: str,
    sources: Mapping[str, tuple[str, ...]],
    *,
    limit: int = MAX_PAGE,
) -> RankedTurns:
    """Run ``preset`` for ``query``; map each hit to its source turns (unknown ids map to none)."""
    started = time.perf_counter()
    if preset.tool == RECALL:
        page = await stores.recall.search(
            learner_id, query, page_size=limit, recipe=bench_recipe(preset.recipe)
        )
    elif preset.tool == KAG:
        page = await search_conversation(stores, learner_id, query, recipe=preset.recipe, page_size=limit)
    else:
        page = await stores.archival.search(
            learner_id, query, page_size=limit, recipe=bench_recipe(preset.recipe), kinds=preset.kinds
        )
    seconds = time.perf_counter() - started
    return RankedTurns([sources.get(hit.id, ()) for hit in page.results], seconds, page)
