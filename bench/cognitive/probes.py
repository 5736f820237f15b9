"""The two searches a probe is scored on: KAG's adaptive-effort blend and the archival baseline.

- **KAG** searches the way the heartbeat does: ``agent.heartbeat.effort.classify`` names the
  intent (the words, and the learner's facts when the words ask for a value that may have
  changed), the intent names a retrieval plan (``agent.memory.blend.PLANS``), and
  ``blended_search`` ranks facts, procedures, archival memories and recall messages by that
  plan, ``as_of`` the probe's time when it has one. The report names the intent and plan of every probe.
- **Baseline**: today's archival search alone (``ArchivalStore.search``, the default
  recipe, ``page_size = k``) over the same ingested data. It has no ``as_of``: such a
  probe searches current memory, and the outcome says so.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.heartbeat.effort import classify
from agent.memory.blend import PLANS, blended_search
from agent.memory.stores import MemoryStores
from agent.search.results import SearchHit
from bench.cognitive.dataset import Probe
from bench.cognitive.scoring import Hit

KAG = "kag"
BASELINE = "baseline"
BASELINE_RECIPE = "hybrid_rrf"
"""The archival search recipe of today's default ``Context.search_recipe``."""


@dataclass(frozen=True)
class SearchOutcome:
    """The hits one system returned for one probe, and how it searched."""

    system: str
    search: str
    """What ran, e.g. ``blended_search(plan=temporal_comparison)`` or ``archival.search(hybrid_rrf)``."""
    hits: list[Hit]
    seconds: float
    intent: str | None = None
    plan: dict[str, Any] = field(default_factory=dict)
    note: str = ""

    def to_dict(self, top: int = 20) -> dict[str, Any]:
        """JSON-ready summary with the first ``top`` hits (texts cut at 240 characters)."""
        return {
            "system": self.system,
            "search": self.search,
            "intent": self.intent,
            "plan": self.plan,
            "note": self.note,
            "ms": round(self.seconds * 1000, 1),
            "hits": len(self.hits),
            "top": [{**h.to_dict(), "text": h.text[:240]} for h in self.hits[:top]],
        }


def to_hit(hit: SearchHit) -> Hit:
    """The scorer's view of a store hit (``valid_from`` from fact metadata, when present)."""
    meta = hit.metadata or {}
    valid_from = meta.get("valid_from")
    return Hit(
        text=hit.text or "",
        kind=hit.kind,
        valid_from=str(valid_from) if valid_from else None,
        created_at=str(hit.created_at) if hit.created_at else None,
        id=hit.id,
        score=float(hit.score or 0.0),
    )


def _plan_dict(plan: Any) -> dict[str, Any]:
    """The plan's fields, JSON-ready (frozen dataclass or anything with ``__dict__``)."""
    fields = getattr(plan, "__dataclass_fields__", None)
    values = {name: getattr(plan, name) for name in fields} if fields else dict(vars(plan))
    return {k: list(v) if isinstance(v, tuple | frozenset | set) else v for k, v in values.items()}


async def kag_search(stores: MemoryStores, learner_id: str, probe: Probe) -> SearchOutcome:
    """The blend adaptive effort chooses for ``probe.query`` (see the module docstring)."""
    intent = await classify(stores.facts, learner_id, probe.query)
    plan = PLANS[intent]
    as_of = probe.as_of.isoformat() if probe.as_of else None
    started = time.perf_counter()
    hits: Sequence[SearchHit] = await blended_search(stores, learner_id, probe.query, plan, as_of=as_of)
    seconds = time.perf_counter() - started
    name = getattr(plan, "name", intent)
    return SearchOutcome(
        system=KAG,
        search=f"blended_search(plan={name}{', as_of' if as_of else ''})",
        hits=[to_hit(h) for h in hits],
        seconds=seconds,
        intent=intent,
        plan=_plan_dict(plan),
    )


async def baseline_search(stores: MemoryStores, learner_id: str, probe: Probe) -> SearchOutcome:
    """Today's archival search alone, ``page_size = k``, default recipe."""
    started = time.perf_counter()
    page = await stores.archival.search(learner_id, probe.query, page_size=probe.k, recipe=BASELINE_RECIPE)
    seconds = time.perf_counter() - started
    return SearchOutcome(
        system=BASELINE,
        search=f"archival.search({page.recipe})",
        hits=[to_hit(h) for h in page.results],
        seconds=seconds,
        note="no as_of in archival search: searched current memory" if probe.as_of else "",
    )
