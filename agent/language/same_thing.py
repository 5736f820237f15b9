"""Is a new statement a new value for something the learner told before? (MiniLM cosine).

Two readers with opposite costs, so two knobs:

- **At write time** (``retire_choice``) a wrong answer loses the learner's data: the old
  fact would be closed. So the closest current fact is retired only when it is near-certain
  the new statement is about the same thing: its cosine is at least ``RETIRE_MIN`` *and*
  beats the second closest by ``RETIRE_MARGIN`` *and* the new statement gives it a new
  value (``gives_a_new_value``: a number, date or name the old fact does not hold, and no
  other instance: "the second quiz" is not a new value of "the first quiz"); cosine alone
  cannot tell "I scored 71 on the second quiz" from a new score of the first (0.92).
  A change stated as a difference ("by a week") that resolves against a fact
  (``agent.language.differences``) is near-certain at the lower ``CHANGE_MIN``: it names
  the thing it changes and needs its one date or number.
  When unsure, nothing is retired: both facts stay open and the read-time net orders them.
- **At read time** (``disagreeing``) a wrong answer only reorders: two open facts about the
  same thing (cosine at least ``NET_SAME``) show newest first, the older with
  ``was_until`` ("was X until …", ``agent.memory.fact_records.newest_first``).

The knobs were chosen by leave-one-out over pairs written for KAG, same-thing and
different-thing, with hard negatives (two facts about one learner's life, two quizzes):
``python -m bench.language.facts`` (``bench/language/fact_pairs.json``). They hold for
MiniLM vectors only; the fact store skips both readers with another embedding model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

NET_SAME = 0.49
"""Read time: two open facts at least this close are about the same thing (ordering only)."""
RETIRE_MIN = 0.70
"""Write time: the closest current fact is retired only at this cosine or more …"""
RETIRE_MARGIN = 0.35
"""… and only when it beats the second closest by this much."""
CHANGE_MIN = 0.45
"""Write time: a change stated as a difference applies to a fact at least this close."""


_VALUE = re.compile(r"(?<![\w.])(?:\w*\d[\w.,:/-]*\w|\d|[A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)")
"""A value a statement holds: a token with a digit, or a run of capitalised words."""
_ORDINAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|next|another|\d+(?:st|nd|rd|th)|(?:number|no\.)\s*\d+)\b|#\d+",
    re.I,
)
"""Words that name one instance of a series ("the second quiz", "pet number 2"): a closed class."""


def values(text: str) -> set[str]:
    """The numbers, dates and names in ``text``, lower-cased.

    "I" and a sentence's first word are no names unless they hold a capital or digit past
    their first letter ("RStudio").
    """
    found = set()
    for match in _VALUE.finditer(text):
        value = match.group(0)
        if not text[: match.start()].strip(" \"'("):  # a sentence's first word is capitalised anyway
            head, _, rest = value.partition(" ")
            value = head if re.search(r"[A-Z\d]", head[1:]) else rest
        if value and value != "I":
            found.add(value.lower())
    return found


def gives_a_new_value(new: str, old: str) -> bool:
    """``new`` holds a value ``old`` does not, and names no other instance of it (docstring)."""
    if not values(new) - values(old):
        return False
    ordinals = {m.lower() for m in _ORDINAL.findall(new)}, {m.lower() for m in _ORDINAL.findall(old)}
    return not (ordinals[0] and ordinals[0] != ordinals[1])


def retire_choice(new: str, facts: Sequence[str], scores: Sequence[float]) -> int | None:
    """Index in ``facts`` of the current fact ``new`` replaces (``scores``: cosines), or None."""
    if not scores:
        return None
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    best = scores[order[0]]
    second = scores[order[1]] if len(order) > 1 else -1.0
    if best < RETIRE_MIN or best - second < RETIRE_MARGIN:
        return None
    return order[0] if gives_a_new_value(new, facts[order[0]]) else None


def disagreeing(texts: Sequence[str], vectors: np.ndarray) -> list[list[int]]:
    """Groups (indexes, two or more) of ``texts`` about the same thing that say different things.

    ``vectors``: one L2-normalised row per text. Same thing: cosine at least ``NET_SAME``,
    linked through any member; different: not the same text.
    """
    if len(texts) < 2:
        return []
    sims = vectors @ vectors.T
    parent = list(range(len(texts)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if sims[i, j] >= NET_SAME and texts[i].strip().lower() != texts[j].strip().lower():
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(texts)):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]
