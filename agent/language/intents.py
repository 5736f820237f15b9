"""The effort a learner's request calls for: rules, the question's shape, then a trained classifier.

The intents are ``agent.heartbeat.effort``'s: ``simple_recall`` (one fact, a statement, chat:
the catch-all), ``computation``, ``temporal_comparison``, ``multi_source_synthesis``,
``contradiction_resolution`` (which version of a changing value is current), ``procedural``.

1. **Rules** (``RULES``), in precedence order, first match wins (case-insensitive, whole
   words): a reminder request is ``simple_recall``; "how do/did/can I…", "how to", "steps",
   "procedure", "walk me through" are procedural. Then **the question's shape** from its parse
   (``agent.language.question_shape``), before the other rules: two asks ("Where does the
   learner work and which certification do they need?") or what the learner holds about a
   topic are synthesis; "when" on a past active verb or "how" on a present perfect is
   temporal comparison. Then "actually", "still", "current(ly)", "anymore", "no longer",
   "instead", "now" beside a subject or verb, and "where/which/what … do I (the learner)
   live/work/use/prefer" are contradiction resolution; "before", "after", "change(d)", "over
   time", "used to", "previously", "originally", "timeline", "history" (of something, or ending
   the phrase: "history essay" names a subject), "in (what) order",
   "evolve(d)" are temporal comparison; "summary", "everything", "all", "compare",
   "overview", "across", "together", "know about", "have … learned" are synthesis (not for
   "how many/much …", which counts one value: ``question_shape.asks_degree``);
   "calculate", "percent", "add up", arithmetic on numbers are computation ("how many/much"
   alone is not: "How many hours a week does the learner have?" asks for a stored value).
2. **A classifier** for the questions the rules leave to the catch-all: logistic regression
   over MiniLM vectors (``agent.language.encoder``), trained on ``intent_exemplars.INTENTS``
   (phrasings written for KAG, ordinary ones among them). It names a complex intent only when
   its probability is at least ``OVERRIDE``; otherwise the catch-all stands. A complex intent
   runs appraisal rounds before the first think step, so a plain question read as complex
   costs the model its steps ("What are inner joins?" read as procedural did, 2026-11-28):
   when unsure, ``simple_recall`` wins. ``OVERRIDE`` and ``REGULARISATION`` are the best
   leave-one-out accuracy over the exemplars (0.73; ``python -m bench.language --intents``)
   among the settings that read no more of the 62 ordinary turns of
   ``bench/cognitive/sets/traffic_intents.json`` as complex than the rules alone (3, all the
   rules') and keep the dev probes (11 of 12). Settings that read more exemplars right read
   ordinary turns as complex ("Can you recommend a good book on statistics?" as synthesis)
   or lost dev probes (C=1 at 0.4 reads 0.74, but the dev "What does the learner study?"
   as contradiction).
3. **Memory** for a question the words read as asking one value (``simple_recall`` or
   ``contradiction_resolution``, by a rule or the classifier: ``reading``): whether "What tool
   does the learner clean data with?" needs the current version among older ones depends on
   what memory holds, not on the words (the same question is a plain recall when the
   learner said it once). The heartbeat reads the learner's facts
   (``agent.heartbeat.effort.classify``, ``agent.language.versions``): two values for what
   it asks make it ``contradiction_resolution``; otherwise the words' reading stands. 30 of
   the 62 ordinary turns ask memory ("Can you explain recursion?"): a read of the fact
   versions each (no search, no activation touched; fact vectors are encoded once per process).
   A bare search ("JLPT mock test score": no verb, no question) asks memory too: several facts
   about it make it a temporal comparison (``agent.heartbeat.effort.several``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Literal

import numpy as np

from agent.language.encoder import encode
from agent.language.intent_exemplars import INTENTS
from agent.language.question_shape import asks_degree, is_bare_search, shape_intent

if TYPE_CHECKING:  # sklearn costs seconds to import: only the first classification pays it
    from sklearn.linear_model import LogisticRegression

Intent = Literal[
    "simple_recall",
    "computation",
    "temporal_comparison",
    "multi_source_synthesis",
    "contradiction_resolution",
    "procedural",
]
"""The efforts a request can call for (the design's adaptive effort)."""
DEFAULT_INTENT: Intent = "simple_recall"
CHANGING: Intent = "contradiction_resolution"
"""The intent of a question about a value that changed: memory, not the words, can tell it."""
ONE_VALUE: frozenset[str] = frozenset({DEFAULT_INTENT, CHANGING})
"""The intents of a question asking one value: memory tells which of the two it is (``reading``)."""
OVERRIDE = 0.8
"""The classifier's probability for a complex intent at which it overrides the catch-all."""
REGULARISATION = 16.0
"""Inverse L2 strength of the logistic regression (``C``), chosen with ``OVERRIDE``."""
MAX_CHARS = 2000

_W = re.IGNORECASE
RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "simple_recall",
        re.compile(r"\bremind me\b|\b(?:do not|don't) let me forget\b|\bmake sure I remember\b", _W),
    ),
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
            r"\b(?:before|after|change|changed|changes|over time|used to|previously|originally|"
            r"timeline|history(?=\s+of\b|\s*[?.!,]|\s*$)|in order|in what order|order of|evolve|evolved)\b",
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
            r"\b(?:calculate|compute|percent|percentage|add up|multiply|divide|subtract)\b|"
            r"\d+(?:\.\d+)?\s*[-+*/×÷x]\s*\d|\d\s*%",
            _W,
        ),
    ),
)
"""The rules, in precedence order (module docstring)."""
BEFORE_SHAPE: frozenset[str] = frozenset({"simple_recall", "procedural"})
"""Rules that precede the question's shape: a reminder request, a procedure ("how do I …")."""
_QUESTION_START = re.compile(
    r"^\s*(?:what|where|when|who|whom|whose|which|why|how|can|could|would|will|shall|should|do|does|"
    r"did|is|are|am|was|were|have|has|may|might)\b",
    _W,
)


_DATE = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b|\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b")
"""A date in digits ("2026-06-30", "3/18/2026"): a value, not a subtraction or a division."""


def rule_intent(text: str) -> str | None:
    """The intent of the first rule ``text`` matches, or None (dates in digits are no arithmetic)."""
    # "My deadline is 2026-06-30" read as "2026 - 06" made a statement a computation, whose small
    # step budget ended the turn before its facts were written (heldout7 h7-L6-thesis-deadline-iso)
    text = _DATE.sub(" ", text)
    return next((intent for intent, pattern in RULES if pattern.search(text)), None)


def is_question(text: str) -> bool:
    """True for a question (ends with "?" or starts with a question word or auxiliary verb)."""
    stripped = text.strip()
    return stripped.endswith("?") or _QUESTION_START.match(stripped) is not None


def train(
    texts: Sequence[str], labels: Sequence[str], vectors: np.ndarray | None = None
) -> LogisticRegression:
    """A logistic regression over the MiniLM vectors of ``texts`` (``vectors`` when given)."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=REGULARISATION, max_iter=2000)
    return model.fit(encode(list(texts)) if vectors is None else vectors, list(labels))


@lru_cache(maxsize=1)
def _classifier() -> LogisticRegression:
    texts = [text for examples in INTENTS.values() for text in examples]
    labels = [label for label, examples in INTENTS.items() for _ in examples]
    return train(texts, labels)


def decide(
    rule: str | None, question: bool, probabilities: dict[str, float], override: float = OVERRIDE
) -> str:
    """The intent from the rule's answer and the classifier's (module docstring)."""
    if rule is not None:
        return rule
    if not question or not probabilities:
        return DEFAULT_INTENT
    best = max(probabilities, key=probabilities.__getitem__)
    return best if best != DEFAULT_INTENT and probabilities[best] >= override else DEFAULT_INTENT


def probabilities(text: str) -> dict[str, float]:
    """The classifier's probability per intent for ``text``."""
    model = _classifier()
    row = model.predict_proba(encode([text]))[0]
    return {str(label): float(p) for label, p in zip(model.classes_, row, strict=True)}


def reading(text: str, override: float = OVERRIDE) -> tuple[str, bool]:
    """The intent the words of ``text`` call for, and whether memory should settle it.

    The second value is True for a question the words read as asking one value
    (``simple_recall`` or ``contradiction_resolution``, ``ONE_VALUE``): whether it needs the
    current version among older ones depends on what memory holds, not on the words (the
    same "Which city does Aino live in?" is a plain recall for a learner who said it once),
    so ``agent.heartbeat.effort.classify`` asks the learner's facts
    (``agent.language.versions.settle``).
    """
    if not isinstance(text, str) or not text.strip():
        return DEFAULT_INTENT, False
    text = text.strip()[:MAX_CHARS]
    rule, question = rule_intent(text), is_question(text)
    if question and rule not in BEFORE_SHAPE:
        shape = shape_intent(text)
        if shape is not None:
            return shape, False
    if rule == "multi_source_synthesis" and asks_degree(text):
        rule = None  # "How many kanji has the learner learned?" counts one value; it gathers nothing
    if rule is None and is_bare_search(text):
        return DEFAULT_INTENT, True
    if rule is not None or not question:
        intent = decide(rule, question, {})
        return intent, question and rule == CHANGING
    intent = decide(None, True, probabilities(text), override)
    return intent, intent in ONE_VALUE


def intent_of(text: str) -> str:
    """The intent the words of ``text`` call for (``simple_recall`` for an empty text)."""
    return reading(text)[0]
