"""Adaptive effort: classify a request's intent, then give it a step budget and a retrieval plan.

Intents (issue 13): ``simple_recall``, ``computation``, ``temporal_comparison``,
``multi_source_synthesis``, ``contradiction_resolution``, ``procedural``.

**The intent** (``classify``) is the language layer's (``agent.language.intents``): rules
first, then a logistic regression over MiniLM vectors for the questions the rules leave to
the catch-all, which names a complex intent only when it is sure (``simple_recall`` wins
otherwise). When the words ask for one value (a question read as ``simple_recall`` or
``contradiction_resolution``), the learner's facts may settle it: two values for what it
asks need the current version first (``classify``; ``classify_offline`` is the words alone).

**One model call per turn** (design § 10): the intent never costs a model call, with or
without an LLM. The local classifier decides it before the first think step, so a turn that
needs no tool asks the model once, as a minimal ReAct agent does; a tool turn twice. (Asking
the LLM for the intent through structured output cost a second round trip and its tokens on
every turn, before any memory work.)

**Budgets** (``EFFORT``): the run's step budget is ``min(Context.max_steps, max_steps)``
and counts every step of the request: the model-free appraisal rounds (plan → search →
evaluate, complex intents only) and the think steps. ``simple_recall`` is also the
catch-all for statements and chit-chat, so it keeps the design's default of 5; the
complex intents get more, and their retrieval happens before the first think step.

**Sufficiency** (``evaluate``) is model-free: the share of the request's content words
(stop words and words under 3 letters dropped, light stems compared) that occur in the
retrieved hits. A round is sufficient when it found something and covers at least
``SUFFICIENCY_THRESHOLD`` (0.6) of them; a request without content words only needs a hit.

**Used** (search quality, ``used_slots``): a retrieved slot counts as used by the answer
when at least ``USED_OVERLAP`` (0.5) of its content words occur in the answer.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, get_args

from agent.errors import KAGError
from agent.heartbeat.slots import Slot
from agent.language.encoder import encode, encode_kept
from agent.language.intents import Intent, intent_of, reading
from agent.language.question_shape import TEMPORAL, is_bare_search
from agent.language.sentences import split_sentences
from agent.language.versions import Version, as_learner, memory_holds, settle
from agent.memory.blend import PLANS, SOURCES, RetrievalPlan
from agent.models.capabilities import has_structured_output as has_structured_output
from agent.models.offline_policy import is_question
from agent.search.results import SearchHit
from agent.text import is_stop_word, light_stem

log = logging.getLogger("kag.heartbeat.effort")

INTENTS: tuple[str, ...] = get_args(Intent)
COMPLEX_INTENTS: frozenset[str] = frozenset(
    {"temporal_comparison", "multi_source_synthesis", "contradiction_resolution", "procedural"}
)
"""Intents that run plan → search → evaluate sufficiency before the first think step."""
MAX_ROUNDS = 2
"""Appraisal search rounds at most: the first, and one widened re-query (self-correction)."""


@dataclass(frozen=True)
class EffortPlan:
    """What an intent is worth: a step budget and the retrieval plan of its searches."""

    intent: str
    max_steps: int
    """Steps of the request (appraisal rounds + think steps), before ``Context.max_steps`` caps it."""
    plan: RetrievalPlan
    """``agent.memory.blend.PLANS[intent]``: sources, k, chronological order, expansion depth."""


_BUDGETS: dict[str, int] = {
    "simple_recall": 5,
    "computation": 3,
    "procedural": 4,
    "contradiction_resolution": 4,
    "temporal_comparison": 6,
    "multi_source_synthesis": 8,
}
EFFORT: dict[str, EffortPlan] = {
    intent: EffortPlan(intent, _BUDGETS[intent], PLANS[intent]) for intent in INTENTS
}
"""The effort plan of each intent."""


def classify_offline(text: str) -> str:
    """The intent the words of ``text`` call for, by the language layer (``simple_recall`` when unsure)."""
    return intent_of(text or "")


HISTORY_LIMIT = 200
"""Fact versions, newest first, read to tell whether a question's value has more than one."""


class FactHistory(Protocol):
    """The read ``classify`` needs of the fact store (``agent.memory.facts.FactStore.history``)."""

    async def history(self, learner_id: str, *, limit: int = ...) -> Sequence[Version]:
        """Every version of the learner's facts, newest first; it does not touch their activation."""
        ...


async def classify(facts: FactHistory | None, learner_id: str, text: str) -> str:
    """The intent of ``text``: its words, and memory when the words ask for one value.

    A question like "What tool does the learner clean data with?" asks for one value either
    way; it needs the current version among older ones (``contradiction_resolution``) when
    memory holds more than one for what it asks (``agent.language.versions``). Memory is read
    with ``history``, which leaves the facts' activation alone (classifying is no recall: it
    must not reorder the learner's memories), and only for such questions; otherwise, or
    when memory cannot be read (a store error, logged), the words' reading stands.
    """
    intent, ask_memory = reading(text or "")
    if not ask_memory or facts is None:
        return intent
    try:
        versions = await facts.history(learner_id, limit=HISTORY_LIMIT)
    except KAGError as exc:  # advisory: the words' reading still holds
        log.warning("intent: the learner's facts could not be read (%s); the words decide", exc)
        return intent
    if is_bare_search(text):
        return TEMPORAL if await asyncio.to_thread(several, text, versions) else intent
    return settle(intent, await asyncio.to_thread(memory_holds, text, versions))


SEARCH_MIN = 0.25
"""The cosine from which a fact is about a bare search (``several``), chosen over the 14 searches of
``bench/cognitive/sets/intents_searches.json`` (``python -m bench.intent_knobs``): 0.25-0.40 all
read 12 of 14, and ties go to the lowest (a plain search read as a course still holds its one
value; a course read as one value loses the older ones); leave-one-out 0.64 (folds chose
0.20-0.30: the set is small). A search of a few words sits further from the facts than a
question does ("typing speed wpm" / "Two weeks of home row drills and I'm at 45 wpm." 0.21), so
``versions.ASKED_MIN`` (0.35) misses part of a course of values."""


def several(search: str, versions: Sequence[Version], floor: float = SEARCH_MIN) -> bool:
    """Whether two or more of the learner's facts are about a bare ``search`` ("statistics quiz score").

    A search names a thing without asking which of its values; when several facts state
    values of it (each at ``floor`` of the search or more: "I scored 54 on the first
    statistics quiz", "Second quiz: 71"), it asks for their course (``temporal_comparison``),
    whether or not the write made them versions of one fact.
    """
    texts = [v.content for v in versions if isinstance(v.content, str) and v.content.strip()]
    if len(texts) < 2:
        return False
    sims = encode_kept(texts) @ encode([as_learner(search)])[0]
    return int((sims >= floor).sum()) >= 2


def step_budget(intent: str, max_steps: int) -> int:
    """The run's step budget: ``min(Context.max_steps, EFFORT[intent].max_steps)``."""
    return max(1, min(max_steps, EFFORT[intent].max_steps if intent in EFFORT else max_steps))


def asks(text: str) -> bool:
    """True when some sentence of ``text`` is a question (statements need no retrieval first)."""
    return any(is_question(s) for s in split_sentences(text or ""))


def appraisal_rounds(intent: str, budget: int, request: str | None = None) -> int:
    """Search rounds the appraisal may take: it always leaves one think step.

    0 for simple intents, and for a ``request`` that asks nothing: "Actually, I moved to
    Hanoi" reads as a contradiction, but there is nothing to look up before storing it.
    """
    if intent not in COMPLEX_INTENTS or (request is not None and not asks(request)):
        return 0
    return max(0, min(MAX_ROUNDS, budget - 1))


def think_limit(effort: Mapping[str, Any] | None, max_steps: int) -> int:
    """The think step that must answer: the budget minus the appraisal rounds taken (at least 1).

    Without an effort record (a graph built before appraisal existed) it is ``max_steps``.
    """
    if not effort or "budget" not in effort:
        return max_steps
    budget = min(max_steps, int(effort["budget"]))
    return max(1, budget - int(effort.get("rounds", 0)))


MAX_PAGE_SIZE = 20
"""The largest page the fact and procedure stores serve (they refuse more)."""


def widen(plan: RetrievalPlan) -> RetrievalPlan:
    """The self-correction plan: every source, twice the results, one more hop (at most 2), history."""
    return replace(
        plan,
        name=f"{plan.name}+widened",
        sources=SOURCES,
        k=min(2 * plan.k, 50),
        page_size=min(2 * plan.page_size, MAX_PAGE_SIZE),
        include_history=True,
        expand_depth=min(plan.expand_depth + 1, 2),
    )


# ----- metacognition: sufficiency, used slots, the effort record -----
_WORD = re.compile(r"[^\W_]+")


SUFFICIENCY_THRESHOLD = 0.6
"""Share of the request's content words the hits must cover to be sufficient."""


USED_OVERLAP = 0.5
"""Share of a retrieved slot's content words the answer must contain to count it as used."""


def content_stems(text: str) -> set[str]:
    """Light stems of the content words of ``text`` (stop words and words under 3 letters dropped)."""
    return {light_stem(w) for w in _WORD.findall(text or "") if len(w) >= 3 and not is_stop_word(w)}


@dataclass(frozen=True)
class Evaluation:
    """A model-free sufficiency judgement of one search round."""

    hits: int
    covered: tuple[str, ...]
    missing: tuple[str, ...]
    coverage: float
    sufficient: bool

    def describe(self, round_no: int) -> str:
        """One line for the ``evaluation`` slot."""
        verdict = "sufficient" if self.sufficient else "insufficient"
        missing = f"; missing: {', '.join(self.missing[:8])}" if self.missing else ""
        return (
            f"round {round_no}: {self.hits} hits cover {len(self.covered)}/"
            f"{len(self.covered) + len(self.missing)} content words ({self.coverage:.2f})"
            f"{missing} -> {verdict}"
        )


def evaluate(request: str, hits: Sequence[SearchHit]) -> Evaluation:
    """Judge whether ``hits`` cover ``request`` (see ``SUFFICIENCY_THRESHOLD``)."""
    wanted = sorted(content_stems(request))
    found: set[str] = set()
    for hit in hits:
        found |= content_stems(hit.text)
    covered = tuple(w for w in wanted if w in found)
    missing = tuple(w for w in wanted if w not in found)
    coverage = len(covered) / len(wanted) if wanted else (1.0 if hits else 0.0)
    return Evaluation(
        len(hits), covered, missing, round(coverage, 3), bool(hits) and coverage >= SUFFICIENCY_THRESHOLD
    )


def used_slots(answer: str, slots: Iterable[Slot], retrieved: Iterable[str]) -> list[str]:
    """Retrieved slot ids whose content the answer drew on (see ``USED_OVERLAP``)."""
    said = content_stems(answer)
    wanted = set(retrieved)
    used = []
    for slot in slots:
        if slot["id"] not in wanted:
            continue
        text = slot["content"].split(": ", 1)[-1]  # drop the "<kind>: " prefix
        words = content_stems(re.sub(r"\(\d{4}-\d\d-\d\d\)|\[[^\]]*\]", " ", text))
        if words and len(words & said) / len(words) >= USED_OVERLAP:
            used.append(slot["id"])
    return used


def new_effort(intent: str, method: str, budget: int, plan: str) -> dict[str, Any]:
    """A fresh effort record for one request (see ``agent.heartbeat.state.EffortReport``)."""
    return {
        "intent": intent,
        "method": method,
        "budget": budget,
        "plan": plan,
        "rounds": 0,
        "think_steps": 0,
        "steps_used": 0,
        "evaluations": 0,
        "sufficient": None,
        "coverage": None,
        "self_corrections": 0,
        "retrieved": [],
        "used": [],
        "reminders": [],
    }
