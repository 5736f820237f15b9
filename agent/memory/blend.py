"""The ranked blend of memory sources that adaptive effort chooses per intent.

A ``RetrievalPlan`` names the sources to search and how to order what they return:

- ``facts``: ``FactStore.search`` (current facts, or every version with
  ``include_history``; ``as_of`` passes through);
- ``procedures``: ``ProcedureStore.recall`` (skipped while the store is absent);
- ``archival``: ``ArchivalStore.search`` (its ``fact`` hits are dropped: facts come from
  the fact store with their validity, never stale copies; so are its ``procedure`` hits
  when the plan reads procedures itself);
- ``recall``: ``RecallStore.search`` (the learner's messages).

Each source's ranked list is fused with weighted RRF (``agent.search.results.rrf_fuse``,
weight 1 per source, ``LEAD_WEIGHT`` for the plan's ``lead`` source). With
``expand_depth`` the top facts' neighbours over ``SIMILAR_TO``/``DERIVES_FROM`` (facts and
episode messages, up to that many hops) join as one more list (weight ``EXPAND_WEIGHT``).
Then, in this order:

1. ``lead``: hits of that source move to the front (stable);
2. ``current_first``: superseded facts move behind everything else (stable);
3. the top ``k`` are kept;
4. ``chronological``: they are sorted oldest first (``created_at``; facts: ``valid_from``).

With ``as_of``, archival and recall hits created after that instant are dropped too.
Every hit's ``metadata["store"]`` names its source and ``scores["blend"]`` its fused score.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any

from agent.errors import InvalidInputError
from agent.memory.fact_records import utc_iso
from agent.memory.message_kinds import is_bookkeeping
from agent.models.embeddings import MiniLMEmbeddings
from agent.search.recipes import DEFAULT_RECIPE
from agent.search.results import SearchHit, rrf_fuse
from agent.search.termstats import shared_term_counts
from agent.text import STOP_WORDS, light_stem
from agent.turns import TURN_KIND, turn_context_id
from agent.validation import validate_learner_id

SOURCES = ("facts", "procedures", "archival", "recall")
LEAD_WEIGHT = 2.0
EXPAND_WEIGHT = 0.5
EXPAND_SEEDS = 5
BLEND_RRF_K = 60


@dataclass(frozen=True)
class RetrievalPlan:
    """Which memory sources an intent reads and how their hits are ordered."""

    name: str
    sources: tuple[str, ...]
    k: int = 10
    chronological: bool = False
    """Return the hits oldest first (the answer needs the order of events)."""
    include_history: bool = False
    """Facts: every version, not only the current ones."""
    expand_depth: int = 0
    """Hops over ``SIMILAR_TO``/``DERIVES_FROM`` from the top facts (0: none, 1 or 2)."""
    lead: str | None = None
    """The source whose hits come first (e.g. facts for contradictions)."""
    current_first: bool = False
    """Superseded facts rank behind every current one."""
    page_size: int = 10
    """Hits asked of each source."""

    def __post_init__(self) -> None:
        """Reject unknown sources and meaningless sizes."""
        unknown = [s for s in self.sources if s not in SOURCES]
        if not self.sources or unknown:
            raise InvalidInputError(
                f"plan {self.name!r}: sources must be among {SOURCES}, got {self.sources}"
            )
        if self.lead is not None and self.lead not in self.sources:
            raise InvalidInputError(f"plan {self.name!r}: lead {self.lead!r} is not one of its sources")
        if not 1 <= self.k <= 50 or not 1 <= self.page_size <= 50:
            raise InvalidInputError(f"plan {self.name!r}: k and page_size must be 1-50")
        if self.expand_depth not in (0, 1, 2):
            raise InvalidInputError(f"plan {self.name!r}: expand_depth must be 0, 1 or 2")


SIMPLE_RECALL = RetrievalPlan("simple_recall", ("facts", "archival", "recall"), k=5, page_size=5)
COMPUTATION = RetrievalPlan("computation", ("facts", "archival", "recall"), k=10)
TEMPORAL_COMPARISON = RetrievalPlan(
    "temporal_comparison", ("facts", "archival", "recall"), k=10, chronological=True, include_history=True
)
MULTI_SOURCE_SYNTHESIS = RetrievalPlan(
    "multi_source_synthesis",
    ("facts", "procedures", "archival", "recall"),
    k=20,
    expand_depth=2,
    page_size=20,
)
CONTRADICTION_RESOLUTION = RetrievalPlan(
    "contradiction_resolution",
    ("facts", "archival", "recall"),
    k=10,
    include_history=True,
    lead="facts",
    current_first=True,
)
PROCEDURAL = RetrievalPlan(
    "procedural", ("procedures", "facts", "archival", "recall"), k=5, lead="procedures", page_size=5
)

PLANS: dict[str, RetrievalPlan] = {
    p.name: p
    for p in (
        SIMPLE_RECALL,
        COMPUTATION,
        TEMPORAL_COMPARISON,
        MULTI_SOURCE_SYNTHESIS,
        CONTRADICTION_RESOLUTION,
        PROCEDURAL,
    )
}
"""One plan per intent (``agent.heartbeat.effort`` keys them by the same names)."""


def get_plan(plan: str | RetrievalPlan) -> RetrievalPlan:
    """The named plan (or ``plan`` itself); unknown names list the valid ones."""
    if isinstance(plan, RetrievalPlan):
        return plan
    found = PLANS.get(plan) if isinstance(plan, str) else None
    if found is None:
        raise InvalidInputError(f"unknown retrieval plan {plan!r}; valid plans: {', '.join(sorted(PLANS))}")
    return found


def _time(value: str | None) -> datetime | None:
    """A hit's timestamp as an aware datetime (None when missing or unparsable)."""
    if not value:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


def _bookkeeping(hit: SearchHit) -> bool:
    """A tool result or a rendered tool call: how memory was used, not what the learner said."""
    return is_bookkeeping(hit.metadata.get("role"), hit.text)


def _same_text(text: str) -> str:
    return " ".join(text.casefold().split())


FACT_MIN_WORDS = 3
"""A fact this long or longer swallows a message or turn context that contains its text."""


def repeats(found: dict[str, SearchHit], query: str = "") -> set[str]:
    """Ids of hits that repeat another hit's memory, so each statement takes one slot.

    - A statement stored as a fact is the same memory as its message and as the message's
      turn context (the date and the turn it replies to around it): keep the fact only. The
      offline rules store a sentence of the message, so a message that contains the fact's
      text as whole words (``FACT_MIN_WORDS`` words or more) counts too, unless what the
      message says beside its facts holds a word of ``query`` (``_says_more``).
    - A turn context is its message with the date around it: when both are found, keep the
      message (it has the time as ``created_at``).
    """
    stated = [_same_text(h.text) for h in found.values() if h.kind == "fact"]
    # Whole words only: "I like tea" is not stated by "I like teaching kids".
    patterns = [
        re.compile(rf"(?<!\w){re.escape(t)}(?!\w)")
        for t in dict.fromkeys(stated)
        if len(t.split()) >= FACT_MIN_WORDS
    ]
    messages = {turn_context_id(h.id) for h in found.values() if h.kind == "message"}
    asked = _content(query.casefold())
    copies = set()
    for i, hit in found.items():
        if hit.kind in {"fact", "procedure"}:
            continue  # a procedure named by a stated fact holds its text, and is more: its steps
        text = _same_text(hit.text)
        turn_of_a_message = hit.kind == TURN_KIND and i in messages
        holds_a_fact = any(p.search(text) for p in patterns) and not _says_more(text, patterns, asked)
        if turn_of_a_message or holds_a_fact:
            copies.add(i)
    return copies


_WORD = re.compile(r"[^\W\d_]{3,}")


SAYS_MORE_MARGIN = 2
"""How many more content words than its facts a message's own statement holds to keep its slot.

Chosen by leave-one-out over 21 messages of our own (tests/unit/memory/test_blend_repeats.py:
ten fragments beside a fact, copies, told minus held at most 1; eleven chosen methods beside a
short meeting fact, question_pairs_synthesis_beside.json, at least 4): every margin from 1 to 3
parts them, 2 is the middle, 21/21 right left out."""
_ASKED_PART = re.compile(r"[^.!?]*\?")
"""A question in what a message says beside its facts (it carries no memory of its own)."""


def _content(text: str) -> set[str]:
    return {light_stem(w) for w in _WORD.findall(text) if w not in STOP_WORDS}


def _says_more(text: str, patterns: list[re.Pattern[str]], asked: set[str]) -> bool:
    """True when ``text`` outside the facts it holds has a content word ``asked``, or says more than them.

    "lifetimes today. the 'a syntax looks like a typo" holds the stored fact of its second
    sentence; its first, a fragment no rule stores, is what "When did I study lifetimes?" asks.
    And "met my tutor today. the plan: a mixed model over the panel data" holds a short stored
    fact beside a statement no rule stores, with ``SAYS_MORE_MARGIN`` more content words than the
    fact: the message is the only memory of that statement, whatever the question's words. Such a
    message is more than a copy of its fact, so it keeps its slot (a question beside it does not count).
    """
    rest, held = text, set()
    for pattern in patterns:
        for found in pattern.finditer(text):
            held |= _content(found.group(0))
        rest = pattern.sub(" ", rest)
    told = _content(_ASKED_PART.sub(" ", rest))
    return bool(asked & _content(rest)) or len(told) > len(held) + SAYS_MORE_MARGIN


async def _source_hits(
    stores: Any, source: str, learner_id: str, query: str, plan: RetrievalPlan, as_of: str | None
) -> list[SearchHit]:
    """One source's hits, best first ([] when the store is absent)."""
    store = getattr(stores, source, None)
    if store is None:
        return []
    if source == "facts":
        page = await store.search(
            learner_id, query, as_of=as_of, k=plan.page_size, include_history=plan.include_history
        )
        return list(page.results)
    if source == "procedures":
        recall = getattr(store, "recall", None)
        return list((await recall(learner_id, query, k=plan.page_size)).results) if recall else []
    page = await store.search(learner_id, query, page_size=plan.page_size, recipe=DEFAULT_RECIPE)
    hits = [h for h in page.results if h.kind != "fact" and not _bookkeeping(h)]
    if source == "archival" and "procedures" in plan.sources:
        hits = [h for h in hits if h.kind != "procedure"]
    if as_of is not None:
        limit = _time(as_of)
        hits = [h for h in hits if (t := _time(h.created_at)) is None or limit is None or t <= limit]
    return hits


QUERY_CHARS = 4096
"""The stores embed ``query[:QUERY_CHARS].strip()`` (the text their search runs on)."""


async def _embed_once(stores: Any, sources: tuple[str, ...], query: str) -> None:
    """Encode the query once before the sources fan out, so each finds it in the provider's memo.

    Started together, every source would miss the memo and encode the same text: four
    CPU-bound encodes racing on two cores. Only a memoising provider is warmed (MiniLM);
    for another one this would be a fifth call, not a saving. Nor is it warmed while Neo4j
    is down (``degraded``): the stores then search Redis by keywords and embed nothing.
    """
    text = query[:QUERY_CHARS].strip()
    store = next((getattr(stores, s) for s in sources if getattr(stores, s, None) is not None), None)
    embed = getattr(store, "embed_query", None)
    memoised = isinstance(getattr(store, "embeddings", None), MiniLMEmbeddings)
    if text and embed is not None and memoised and not getattr(store, "degraded", False):
        await embed(text)


TIE = 1e-9
"""How far below a newer fact an update's taken place stays (``updates_take_their_place``)."""


def updates_take_their_place(ranked: list[SearchHit]) -> list[SearchHit]:
    """``ranked`` (best first) with each fact scored at least as high as a version it closed.

    An update often shares few words with the question ("Did another 9 this week (now 35)" for "How
    many practice hours has the learner done?") while the version it closed matched well: the newer
    value takes the old one's place, so a third fact no longer slips between them. Oldest first, so
    a chain of updates hands the place on; a place taken never passes a newer fact that ranked above
    the update (a later value the writer did not link, "chapter 7" after "finished chapter 5").
    """
    score = {h.id: h.score for h in ranked}
    for hit in sorted(ranked, key=lambda h: h.created_at or ""):
        closed = [score[i] for i in hit.metadata.get("superseded", ()) if i in score]
        if hit.kind != "fact" or not closed:
            continue
        newer = [
            g.score
            for g in ranked
            if g.kind == "fact"
            and (g.created_at or "") > (hit.created_at or "")
            and g.score > hit.score
            and hit.id not in g.metadata.get("superseded", ())  # its own next version takes the place on
        ]
        cap = min(newer, default=float("inf")) - TIE
        score[hit.id] = max(score[hit.id], min(max(closed), cap))
    lifted = [replace(h, score=score[h.id]) if score[h.id] != h.score else h for h in ranked]
    return sorted(lifted, key=lambda h: -h.score)


def is_question(text: str) -> bool:
    """A learner message that asks rather than states (it carries no memory of its own)."""
    return text.rstrip().endswith("?")


async def blended_search(
    stores: Any,
    learner_id: str,
    query: str,
    plan: str | RetrievalPlan,
    *,
    as_of: str | None = None,
) -> list[SearchHit]:
    """Search the plan's sources for ``query`` and return one ranked list (module docstring).

    ``stores`` is a ``MemoryStores`` (or anything with the ``facts``, ``procedures``,
    ``archival`` and ``recall`` attributes the plan names).
    """
    learner_id = validate_learner_id(learner_id)
    chosen = get_plan(plan)
    as_of = utc_iso(as_of, "as_of")
    lists: dict[str, list[tuple[str, float]]] = {}
    weights: dict[str, float] = {}
    found: dict[str, tuple[str, SearchHit]] = {}
    await _embed_once(stores, chosen.sources, query)
    # The sources are independent reads: run them together (each keeps the plan's order),
    # counting each full-text term of the learner's once (facts, procedures and archival
    # all search the memories' index).
    with shared_term_counts():
        per_source = await asyncio.gather(
            *(_source_hits(stores, source, learner_id, query, chosen, as_of) for source in chosen.sources)
        )
    for source, hits in zip(chosen.sources, per_source, strict=True):
        lists[source] = [(h.id, h.score) for h in hits]
        weights[source] = LEAD_WEIGHT if source == chosen.lead else 1.0
        for hit in hits:
            found.setdefault(hit.id, (source, hit))
    copies = repeats({i: hit for i, (_, hit) in found.items()}, query)
    for source, hits_of in lists.items():
        lists[source] = [(i, score) for i, score in hits_of if i not in copies]
    facts = getattr(stores, "facts", None)
    if chosen.expand_depth and facts is not None and "facts" in chosen.sources:
        seeds = [i for i, _ in lists.get("facts", [])[:EXPAND_SEEDS]]
        expanded = await facts.expand(learner_id, seeds, depth=chosen.expand_depth, as_of=as_of)
        lists["expand"] = [(h.id, h.score) for h in expanded]
        weights["expand"] = EXPAND_WEIGHT
        for hit in expanded:
            found.setdefault(hit.id, ("expand", hit))
    ranked = []
    for fused in rrf_fuse(lists, weights, k=BLEND_RRF_K):
        source, hit = found[fused.id]
        ranked.append(
            replace(
                hit,
                score=fused.score,
                scores={**hit.scores, "blend": fused.score},
                metadata={**hit.metadata, "store": source},
            )
        )
    if chosen.current_first and as_of is None:
        ranked = updates_take_their_place(ranked)
    # Questions carry no memory of their own ("How have my scores changed?"): they rank
    # after what was stated, and still count when nothing else matches.
    ranked.sort(key=lambda h: h.kind == "message" and is_question(h.text))
    if chosen.lead is not None:
        ranked.sort(key=lambda h: h.metadata["store"] != chosen.lead)
    if chosen.current_first and as_of is None:  # as_of: the fact search already kept what was valid then
        ranked.sort(key=lambda h: h.kind == "fact" and h.metadata.get("current") is False)
    ranked = ranked[: chosen.k]
    if chosen.chronological:
        far = datetime.max.replace(tzinfo=UTC)
        ranked.sort(key=lambda h: _time(h.created_at) or far)
    return ranked
