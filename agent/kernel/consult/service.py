"""Consultation on demand: cache → search → enrich → synthesise → boost (issue 14 §3).

1. **check the cache** (``agent.kernel.consult.cache``), valid at the learner's write
   generation; a hit reads nothing else and boosts nothing;
2. **search** the graph with the blended recipe (``agent.memory.blend.blended_search``)
   while the learner's reflection layer and pending reminders (peeked, never fired) are
   read concurrently, then the source message of each derived hit;
3. **enrich** (``agent.kernel.consult.evidence``): topic filters, contradictions resolved
   (``agent.kernel.consult.resolve``), core knowledge, insights, patterns, alerts, and the
   confidence;
4. **synthesise** the brief (``agent.kernel.consult.brief``): the chat model with
   structured output, or the template offline;
5. **boost** the core facts, insights and patterns the response carries (the search has
   already boosted the facts and procedures it returned).

The steps are plain functions over JSON-ready dicts, so ``graphs/consult.py`` runs them
as graph nodes and ``consult`` runs them in a row (the HTTP route and the tool).
When the layer/reminders/sources reads fail (Neo4j down), the consultation answers from the
search alone with ``evidence["degraded"]`` set and is not cached.
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.clock import Clock
from agent.errors import KAGError
from agent.kernel.consult import evidence as ev
from agent.kernel.consult.brief import synthesise
from agent.kernel.consult.cache import ConsultCache, Generations
from agent.kernel.consult.models import ConsultRequest, ConsultResponse, parse_request
from agent.kernel.consult.reader import ConsultReader, Layer
from agent.kernel.consult.resolve import resolve
from agent.kernel.stream import KernelStream
from agent.memory.blend import SOURCES, RetrievalPlan, blended_search
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.search.results import SearchHit
from agent.validation import validate_learner_id

log = logging.getLogger(__name__)

EXPAND_DEPTH = 1
"""Hops of graph expansion from the top facts (``RetrievalPlan.expand_depth``)."""


def consult_plan(request: ConsultRequest) -> RetrievalPlan:
    """The blended plan of a consultation: every source, ``max_results`` hits, one hop of expansion."""
    size = request.max_results
    return RetrievalPlan("consult", SOURCES, k=size, page_size=size, expand_depth=EXPAND_DEPTH)


@dataclass(frozen=True, eq=False)
class ConsultDeps:
    """What a consultation reads and writes through, built once per resources bundle."""

    stores: Any
    """``MemoryStores`` (anything with ``facts``, ``procedures``, ``archival``, ``recall``, ``reminders``)."""
    reader: ConsultReader
    cache: ConsultCache
    clock: Clock
    model_provider: Callable[[], BaseChatModel | None]
    """The chat model, resolved when a brief is written (None: the template)."""

    @classmethod
    def wire(cls, resources: Resources, stores: MemoryStores | None = None) -> ConsultDeps:
        """The consultation over ``resources`` (and ``stores``, default wired here); cached per pair."""
        key = stores if stores is not None else resources
        per = _WIRED.setdefault(resources, weakref.WeakKeyDictionary())
        deps = per.get(key)
        if deps is None:
            stores = stores if stores is not None else MemoryStores.wire(resources)
            # The stores' kernel stream once they carry one; the same keys otherwise.
            generations: Generations = getattr(stores, "kernel", None) or KernelStream(
                resources.redis, prefix=resources.settings.kernel_prefix
            )
            reader = ConsultReader.for_resources(resources)
            deps = per[key] = cls(
                stores=stores,
                reader=reader,
                cache=ConsultCache(resources.redis, generations),
                clock=resources.clock,
                model_provider=lambda: resources.chat_model,
            )
        return deps


_WIRED: weakref.WeakKeyDictionary[Resources, weakref.WeakKeyDictionary[Any, ConsultDeps]] = (
    weakref.WeakKeyDictionary()
)


# ----- the steps (each returns the update of the graph state) -----
async def check_cache(deps: ConsultDeps, learner_id: str, request: ConsultRequest) -> dict[str, Any]:
    """Step 1: ``{"cache_slot", "cached"}``; ``cached`` is the stored payload on a hit, else None.

    ``cache_slot`` (``{"key", "generation"}``, None when nothing is cached now) is where
    ``boost`` stores the fresh payload: under the generation read here, before searching.
    """
    found = await deps.cache.lookup(learner_id, request)
    return {"cache_slot": found.slot, "cached": found.payload}


async def _reminders(stores: Any, learner_id: str) -> list[dict[str, Any]]:
    reminders = getattr(stores, "reminders", None)
    if reminders is None:
        return []
    return [r.to_dict() for r in await reminders.list(learner_id, ["pending"])]


async def search(deps: ConsultDeps, learner_id: str, request: ConsultRequest) -> dict[str, Any]:
    """Step 2: ``{"found": {hits, provenance, layer, reminders, degraded}}`` (hits as dicts)."""
    hits, layer, reminders = await asyncio.gather(
        blended_search(deps.stores, learner_id, request.query, consult_plan(request)),
        deps.reader.layer(learner_id, request.topic_filters, reflective=request.include_insights),
        _reminders(deps.stores, learner_id),
        return_exceptions=True,
    )
    if isinstance(hits, BaseException):
        raise hits  # no search, no consultation: the caller sees the store's error
    degraded = []
    if isinstance(layer, BaseException):
        if not isinstance(layer, KAGError):
            raise layer
        log.warning("consultation without insights, patterns, core and superseded facts: %s", layer)
        layer, degraded = Layer(), [*degraded, "layer", "provenance"]
    if isinstance(reminders, BaseException):
        if not isinstance(reminders, KAGError):
            raise reminders
        log.warning("consultation without reminders: %s", reminders)
        reminders, degraded = [], [*degraded, "reminders"]
    sources: list[dict[str, Any]] = []
    derived = [h.id for h in hits if h.kind not in ("fact", "message", "procedure")]
    try:
        sources = await deps.reader.sources(learner_id, derived)
    except KAGError as exc:
        log.warning("consultation without the hits' sources (turn contexts stay): %s", exc)
        degraded = [*degraded, "provenance"]
    provenance = {"stale": layer.stale, "sources": sources}
    found = {
        "hits": [h.to_dict() for h in hits],
        "provenance": provenance,
        "layer": {"insights": layer.insights, "patterns": layer.patterns, "core": layer.core},
        "reminders": reminders,
        "degraded": degraded,
    }
    return {"found": found}


def enrich(request: ConsultRequest, found: Mapping[str, Any], clock: Clock) -> dict[str, Any]:
    """Step 3: ``{"evidence": {facts, core, insights, patterns, alerts, confidence, basis, boost}}``."""
    now = clock()
    topics = request.topic_filters
    filtered = ev.filter_hits((SearchHit(**h) for h in found.get("hits") or []), topics)
    resolved = resolve(filtered, found.get("provenance"))
    hits = resolved.current()
    layer = found.get("layer") or {}
    concepts = [h.metadata.get("concept") for h in hits if h.metadata.get("concept")]
    insights = ev.match_reflections(layer.get("insights") or [], "text", request.query, concepts, topics, now)
    patterns = ev.match_reflections(
        layer.get("patterns") or [], "description", request.query, concepts, topics, now
    )
    core = ev.core_knowledge(layer.get("core") or [], [h.id for h in hits], now)
    alerts = ev.alerts(found.get("reminders") or [], patterns, request.query, topics, now)
    if not request.include_insights:  # patterns were read for the alerts only
        insights, patterns = [], []
    confidence, basis = ev.confidence(request.query, resolved.for_coverage(), insights, patterns)
    rows = [*(layer.get("insights") or []), *(layer.get("patterns") or []), *(layer.get("core") or [])]
    by_id = {r["id"]: r for r in rows}
    read = [by_id[i["id"]] for i in [*core, *insights, *patterns] if i["id"] in by_id]
    evidence = {
        "facts": [ev.hit_row(h) | resolved.superseded.get(h.id, {}) for h in resolved.hits],
        "core": core,
        "insights": insights,
        "patterns": patterns,
        "alerts": alerts,
        "confidence": confidence,
        "basis": {**basis, "dropped": resolved.dropped, "degraded": list(found.get("degraded") or [])},
        "boost": [{k: r.get(k) for k in ("id", "activation", "last_access")} for r in read],
    }
    return {"evidence": evidence}


async def write_brief(
    deps: ConsultDeps, learner_id: str, request: ConsultRequest, evidence: Mapping[str, Any]
) -> dict[str, Any]:
    """Step 4: ``{"brief", "brief_method"}``."""
    brief, method = await synthesise(
        deps.model_provider(), learner_id, request.query, request.context, evidence, evidence["confidence"]
    )
    return {"brief": brief, "brief_method": method}


def payload_of(evidence: Mapping[str, Any], brief: str, method: str) -> dict[str, Any]:
    """The response fields a cache entry holds (everything but ``request_id`` and ``cached``)."""
    return {
        "synthesized_brief": brief,
        "relevant_facts": [*evidence["facts"], *evidence["core"]],
        "insights": evidence["insights"],
        "patterns": evidence["patterns"],
        "proactive_alerts": evidence["alerts"],
        "confidence": evidence["confidence"],
        "brief_method": method,
        "evidence": evidence["basis"],
    }


async def boost(
    deps: ConsultDeps,
    learner_id: str,
    slot: dict[str, Any] | None,
    evidence: Mapping[str, Any],
    payload: dict[str, Any],
) -> dict[str, Any]:
    """Step 5: boost the core facts, insights and patterns read, and cache the payload in ``slot``.

    The two are independent writes (Neo4j and Redis), so they run together.
    """

    async def touch() -> int:
        try:
            return await deps.reader.boost(learner_id, evidence.get("boost") or [])
        except KAGError as exc:  # the answer is ready; a lost boost is only a ranking nudge
            log.warning("consultation read boost not stored: %s", exc)
            return 0

    async def store() -> bool:
        return False if evidence["basis"].get("degraded") else await deps.cache.put(slot, payload)

    touched, stored = await asyncio.gather(touch(), store())
    return {"boosted": touched, "stored": stored}


def respond(request_id: str, payload: Mapping[str, Any], *, cached: bool) -> ConsultResponse:
    """The response for ``request_id`` from a payload (fresh or cached)."""
    return ConsultResponse(request_id=request_id, cached=cached, **payload)


def new_request_id() -> str:
    """A fresh request id (every response has its own, cached or not)."""
    return f"consult-{uuid.uuid4().hex}"


async def consult(
    target: Resources | ConsultDeps, learner_id: str, request: ConsultRequest | Mapping[str, Any]
) -> ConsultResponse:
    """Consult ``learner_id``'s memory (module docstring); the learner is the caller's, never the body's.

    ``target`` is a resources bundle or a ``ConsultDeps``; a body that names a ``learner_id``
    or breaks a limit raises ``InvalidInputError``.
    """
    deps = target if isinstance(target, ConsultDeps) else ConsultDeps.wire(target)
    learner_id = validate_learner_id(learner_id)
    request = parse_request(request)
    request_id = new_request_id()
    started = time.perf_counter()
    step = await check_cache(deps, learner_id, request)
    if step["cached"] is not None:
        return respond(request_id, step["cached"], cached=True)
    found = (await search(deps, learner_id, request))["found"]
    evidence = enrich(request, found, deps.clock)["evidence"]
    written = await write_brief(deps, learner_id, request, evidence)
    payload = payload_of(evidence, written["brief"], written["brief_method"])
    await boost(deps, learner_id, step["cache_slot"], evidence, payload)
    log.debug("consultation %s took %.1f ms", request_id, (time.perf_counter() - started) * 1000)
    return respond(request_id, payload, cached=False)
