"""Adaptive effort: classify a request's intent, then give it a step budget and a retrieval plan.

Intents (issue 13): ``simple_recall``, ``computation``, ``temporal_comparison``,
``multi_source_synthesis``, ``contradiction_resolution``, ``procedural``.

**Offline rules** (``classify_offline``), checked in this order, first match wins
(case-insensitive, whole words):

| # | intent                    | the request…                                                        |
|---|---------------------------|---------------------------------------------------------------------|
| 1 | simple_recall             | asks to be reminded ("remind me…"): an instruction, not a question  |
| 2 | procedural                | "how do/did/does/can/should I|we|you|the learner", "how to",        |
|   |                           | "step(s)", "procedure", "walk me through"                           |
| 3 | contradiction_resolution  | "actually", "still", "current(ly)", "anymore", "no longer",         |
|   |                           | "instead", or "now" next to a subject or verb ("where do I live     |
|   |                           | now", "I now work…", "now I use…"; a bare "…notes now." is not one),|
|   |                           | or a present-tense question about a value that changes: "where /    |
|   |                           | which / what … do I (the learner) [x] live / work / use / prefer"   |
| 4 | temporal_comparison       | "when" asking a question ("When …", "when did/was/is …"; not "…went |
|   |                           | wrong when I…"), "before", "after", "change(d/s)", "over time",     |
|   |                           | "used to", "previously", "originally", "timeline", "history",       |
|   |                           | "in (what) order", "order of", "evolve(d)"                          |
| 5 | multi_source_synthesis    | "summary", "summarise/summarize", "everything", "all", "compare",   |
|   |                           | "comparison", "overview", "across", "together", "know about",       |
|   |                           | "have/has … learned/learnt"                                         |
| 6 | computation               | "calculate", "compute", "how many", "how much", "percent(age)",    |
|   |                           | "add up", "multiply", "divide", "subtract", or arithmetic on        |
|   |                           | numbers ("12 * 3", "40%")                                           |
| 7 | simple_recall             | anything else                                                       |

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

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal, get_args

from agent.heartbeat.slots import Slot
from agent.language.sentences import split_sentences
from agent.memory.blend import PLANS, SOURCES, RetrievalPlan
from agent.models.capabilities import has_structured_output as has_structured_output
from agent.models.offline_policy import is_question
from agent.search.results import SearchHit
from agent.text import is_stop_word, light_stem

Intent = Literal[
    "simple_recall",
    "computation",
    "temporal_comparison",
    "multi_source_synthesis",
    "contradiction_resolution",
    "procedural",
]
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


_W = re.IGNORECASE
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("simple_recall", re.compile(r"\bremind me\b", _W)),
    (
        "procedural",
        re.compile(
            r"\bhow (?:do|did|does|can|could|should|would) (?:i|we|you|the learner)\b(?!['’])|"
            r"\bhow to\b|\bsteps?\b|\bprocedures?\b|\bwalk me through\b",
            _W,
        ),
    ),
    (
        "contradiction_resolution",
        re.compile(
            r"\b(?:actually|still|current|currently|anymore|any more|no longer|instead)\b|"
            r"\b(?:i|i'm|we|you|he|she|they|it|is|are|am|do|does)\s+(?:\w+\s+){0,2}now\b|"
            r"\bnow\s+(?:i|i'm|we|is|are|live|work|use|prefer|study|know)\b|"
            r"\b(?:where|which|what)\b[^.?!]*\b(?:do|does) (?:i|the learner)\s+(?:\w+\s+)?"
            r"(?:live|work|use|prefer)\b",
            _W,
        ),
    ),
    (
        "temporal_comparison",
        re.compile(
            r"^\W*when\b|\bwhen (?:did|do|does|was|were|is|are|will|have|has|had)\b|"
            r"\b(?:before|after|change|changed|changes|over time|used to|previously|originally|"
            r"timeline|history|in order|in what order|order of|evolve|evolved)\b",
            _W,
        ),
    ),
    (
        "multi_source_synthesis",
        re.compile(
            r"\b(?:summary|summari[sz]e|everything|all|compare|comparison|overview|across|together|"
            r"know about)\b|\b(?:have|has)\b(?:\s+\w+){0,3}\s+(?:learned|learnt)\b",
            _W,
        ),
    ),
    (
        "computation",
        re.compile(
            r"\b(?:calculate|compute|how many|how much|percent|percentage|add up|multiply|divide|"
            r"subtract)\b|\d+(?:\.\d+)?\s*[-+*/×÷x]\s*\d|\d\s*%",
            _W,
        ),
    ),
)
"""The offline rules, in precedence order (see the module docstring's table)."""


def classify_offline(text: str) -> str:
    """The intent of ``text`` by the documented rules (``simple_recall`` when none match)."""
    for intent, pattern in RULES:
        if pattern.search(text or ""):
            return intent
    return "simple_recall"


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
