"""The offline policy's rule C5: a question about the learner's current state, and its answer.

A wh-question in the first person, present tense ("where do I live now?", "which editor do I
use?", "what is my exam date?"), not about the past conversation ("what did I say", "last time"),
or a question for an amount of the learner's ("How many exercises have I solved?"), becomes
``search_facts``; it is answered with the best *current* fact: the first hit whose predicate the
question names (``QUESTION_PREDICATES``), else the top hit, never an older value the read-time net
put after a newer one. Core memory answers a profile or goal question first unless the question
asks for the value *now* (``overrides_core``). A fact search with no hit is retried once as
``archival_memory_search`` (``fact_fallback``). The other rules: ``agent.models.offline_cognition``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent.language.procedures import is_procedure_request

Action = tuple[str, dict[str, Any]]

QUESTION_PREDICATES: dict[str, frozenset[str]] = {
    "residence": frozenset({"live", "living", "home", "city", "country", "based", "moved", "located"}),
    "tool": frozenset({"editor", "ide", "tool", "tools", "use", "using", "software", "app", "environment"}),
    "goal": frozenset({"goal", "goals", "aim", "aiming", "towards", "target", "working"}),
    "job": frozenset({"job", "work", "profession", "occupation", "employer"}),
    "study": frozenset({"study", "studying", "student", "major", "degree", "course"}),
    "level": frozenset({"level", "beginner", "intermediate", "advanced", "experience"}),
    "name": frozenset({"name", "called"}),
}
"""Question words naming a fact slot's predicate (the slots of ``agent.language.facts``)."""

_NOW = re.compile(r"\b(now|currently|right now|these days|at the moment|still|anymore|any more)\b", re.I)
_WH_FIRST_PERSON = re.compile(
    r"^\s*(what|which|where|who|when|whose)\b.*\b(do i|am i|is my|are my|my|i'm|i am)\b", re.I
)
_HOW_MUCH_FIRST_PERSON = re.compile(
    r"^\s*how\s+(?:many|much|long|far|old|often)\b.*\b(?:i|i've|i'm|my)\b", re.I
)
"""A question for an amount of the learner's ("How many exercises have I solved?"): a running total."""
_ABOUT_PAST = re.compile(
    r"\b(did|was|were|used to|before|earlier|last time|previous(ly)?|said|say|told|mention(ed)?|"
    r"discuss(ed)?|talk(ed)?|remember|recall|know about)\b",
    re.I,
)


def is_fact_question(sentence: str) -> bool:
    """Rule C5: a first-person, present-tense wh-question (or "how many/much …") about the learner's state."""
    text = sentence.strip()
    if not (text.endswith("?") or re.match(r"^\s*(what|which|where|who|when|whose|how)\b", text, re.I)):
        return False
    if is_procedure_request(text) or _ABOUT_PAST.search(text):
        return False
    if _HOW_MUCH_FIRST_PERSON.search(text):
        return True
    return not re.search(r"\bhow\b", text, re.I) and bool(_WH_FIRST_PERSON.search(text))


def overrides_core(sentence: str, available: set[str]) -> bool:
    """Rule C5: a question about the learner's state *now* goes to the facts, not core memory."""
    return "search_facts" in available and is_fact_question(sentence) and asks_now(sentence)


def asks_now(sentence: str) -> bool:
    """The question asks for the current value explicitly ("now", "currently", "still")."""
    return bool(_NOW.search(sentence))


def _wanted_predicates(query: str) -> set[str]:
    words = set(re.findall(r"[\w'-]+", query.lower()))
    return {p for p, vocab in QUESTION_PREDICATES.items() if words & vocab}


def best_fact(query: str, hits: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """Rule C5's answer: the first hit whose predicate the question names, else the top hit."""
    facts = [h for h in hits if isinstance(h, Mapping) and str(h.get("text") or "").strip()]
    # An older value the read-time net put after a newer one ("was_until") is never the answer.
    facts = [h for h in facts if not h.get("was_until")] or facts
    wanted = _wanted_predicates(query)
    return next((h for h in facts if h.get("predicate") in wanted), facts[0] if facts else None)


def fact_fallback(
    done: Sequence[tuple[str | None, Any, Mapping[str, Any]]], available: set[str]
) -> Action | None:
    """Rule C5's retry: a fact search without a hit becomes one archival search on the same query.

    ``done`` holds ``(tool name, parsed result, call args)`` of the calls made this turn.
    """
    if "archival_memory_search" not in available:
        return None
    searched = {str(args.get("query", "")) for name, _, args in done if name == "archival_memory_search"}
    for name, data, args in done:
        query = str(args.get("query", ""))
        if name != "search_facts" or query in searched:
            continue
        hits = data.get("results") if isinstance(data, Mapping) else None
        if isinstance(hits, list) and best_fact(query, hits) is None:
            return "archival_memory_search", {"query": query}
    return None
