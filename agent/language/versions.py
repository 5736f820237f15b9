"""Does the learner's memory hold more than one value for what a question asks? (MiniLM cosine).

"Which city does Aino live in?" asks for one value; it calls for the current version among
older ones (``contradiction_resolution``) only when memory holds more than one, and the
question's words cannot tell (the same words are a plain recall for a learner who said it
once). ``memory_holds`` reads it from the learner's facts, every version:

1. **What the question asks about**: the fact closest to the question by MiniLM cosine
   (and those within ``ASKED_MARGIN`` of it), read in the learner's own person first
   (``as_learner``: "the learner's" → "my", as facts are stated: "Which city does the
   learner live in?" / "I live in Valencia" 0.25 → 0.38). The closest below ``ASKED_MIN``:
   memory holds nothing about it (``None``).
2. **Two values** for it: a version another one closed (``valid_to`` set) or a current
   version that closed an older one (``superseded``); or the closest is open and disagrees
   with another open fact of the ``ASKED_K`` closest, itself at ``ASKED_MIN`` or more (both
   values are about the question; ``agent.language.same_thing.disagreeing``:
   the write left both open, and the newer one often shares fewer words with the question:
   "I code on my brother's gaming PC." 0.73, "A Chromebook from school is what I write my
   code on these days." 0.44). Or, conditioned on the question, the closest open fact and
   another open one within ``ANSWER_MARGIN`` of it (and at ``ANSWER_FLOOR`` or more) state
   different values (``question_net.answer_groups``: "My PhD supervisor is Prof. Okafor" 0.38 /
   "Since Prof. Okafor left …, Dr. Lindqvist has been supervising me" 0.22 for "Who is my
   supervisor?", which the two statements alone do not join). Or the closest (at ``PART_MIN``,
   below ``ASKED_MIN``) tells a part of the learner's life that holds one value at a time (a job,
   home, major, device, language: ``agent.language.about``) and another open fact of the
   learner's own tells that part with another value, however far from the question ("I code on
   an old ThinkPad" / "Setting up Homebrew on the MacBook work handed me took forever"); or,
   the closest at ``ASKED_MIN``, another of the learner's own at ``PAIR_MIN`` of it holds another
   value of a kind it holds (a date, number, code, a person when "who" is asked: "My IELTS came
   back at 6.0" / "Second sitting went much better, 7.0 this time!"). Otherwise one value.
3. **The intent** (``settle``): two values make a question ``contradiction_resolution``;
   otherwise the words' reading stands. Sure words ("Where does the learner live?") stay a
   contradiction with one value in memory: a change the write missed ("Got hired as a
   junior data analyst…", no fact) leaves one value, and on the dev sets that cost more
   probes (4 of 30 on language_dev) than the plain recalls it would give back (1 of 5 on
   heldout3, "Where does the learner work?").

``ASKED_K``, ``ASKED_MARGIN`` and ``ASKED_MIN`` are the leave-one-out choice over questions and
memories written for KAG (``bench/cognitive/sets/intents_memory.json``,
``python -m bench.language --memory``): changed values stated in other words than the
question, and unchanged ones beside a changed value about something else.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from agent.language.answer_kinds import PERSON, asked_kind, holds_kind
from agent.language.current_versions import not_current, other_group
from agent.language.encoder import encode, encode_kept
from agent.language.intents import CHANGING
from agent.language.question_net import answer_groups, value_kinds
from agent.language.same_thing import (
    brings_another_value,
    disagreeing,
    told_parts,
)

ASKED_K = 5
"""Facts (every version) closest to the question among which open ones may disagree."""
ASKED_MARGIN = 0.0
"""Facts within this cosine of the closest are asked about too (0: the closest alone)."""
ANSWER_MARGIN = 0.32
"""Open facts within this cosine of the closest open one that state another value answer the
question about as well: two values (``question_net.answer_groups``, the read-time net's test, with
knobs of its own: a wrong "two" costs a plain question its plain plan)."""
ANSWER_FLOOR = 0.20
"""… each at least this close to the question. Both by leave-one-out over the one-value questions
of the eight dev scenario sets and ``intents_memory.json`` (``python -m bench.readnet_knobs``:
scenario questions 137 -> 143 of 171 read as their level calls for, memory items 25 -> 23 of 34;
folds chose margins 0.26-0.34)."""
ASKED_MIN = 0.35
"""The cosine from which a fact is about what the question asks (the closest, and a fact it
disagrees with). 0.30 ties on the set but for one hard negative ("I grew up near Kraków" /
"I moved to Berlin", 0.31); it would keep language_heldout's "What does the learner study?"
(the newer major at 0.30, both left open by the write)."""


PART_MIN = 0.30
"""The cosine from which the closest fact, when it tells a part of the learner's life, is about what
the question asks for the part test (``held``, 4): leave-one-out over ``intents_memory.json`` and
``intents_memory_parts.json`` (62 questions with memories of our own; ``python -m bench.language
--memory`` for the other knobs): off 39, 0.20-0.30 41, 0.35 40 of 62; folds chose 0.30-0.35 (ties
to the higher floor). Below ``ASKED_MIN``: a question about a major or a job often sits at 0.3 of
the statement that answers it ("What is my field of study?" / "I'm a first-year civil engineering
student" 0.33)."""
PAIR_MIN = 0.20
"""The cosine with the closest fact from which another statement holding a value of its kind (a date,
number, code, or person) is about it (``_another_value``). Over ``intents_memory.json``,
``intents_memory_parts.json`` and ``intents_memory_kinds.json`` (86 memories of our own), with
``PART_MIN``: neither test 51, parts alone 53, and 0.20 57, 0.25-0.30 56, 0.35-0.40 54 of 86; the
leave-one-out of both knobs reads 55 (folds chose 0.20-0.30, ``PART_MIN`` 0.30-0.35)."""
WINDOW = 20
"""Facts closest to the question that the part and kind tests read: reading what a fact tells costs a
parse and a vector per clause (memoised), and a long memory should not cost one per fact on every
question. Not tuned: every memory of the sets above and every dev scenario holds fewer facts."""
SKIPPED_PARTS = frozenset({"tool"})
"""Parts whose second value is no change: a learner uses many tools at once (a repository and a
dataset of one project both read as ``tool``), where a job, home, major, device or language holds
one at a time (the same leave-one-out: skipping it ties, and it is the cautious choice)."""


class Version(Protocol):
    """One version of a fact, as the fact store returns it (``agent.memory.fact_records.FactRecord``)."""

    @property
    def content(self) -> str:
        """The statement."""
        ...

    @property
    def valid_to(self) -> str | None:
        """When another version closed it (None: current)."""
        ...

    @property
    def superseded(self) -> list[str]:
        """Ids of the versions it closed."""
        ...


_PERSON = (
    (re.compile(r"\bthe learner['’]s\b", re.I), "my"),
    (re.compile(r"\bdoes the learner\b", re.I), "do I"),
    (re.compile(r"\bis the learner\b", re.I), "am I"),
    (re.compile(r"\bhas the learner\b", re.I), "have I"),
    (re.compile(r"\bthe learner\b", re.I), "I"),
)
"""KAG speaks of the learner in the third person; the learner's facts are in the first."""


def as_learner(question: str) -> str:
    """``question`` in the learner's own person ("What is the learner's job?" → "What is my job?")."""
    for pattern, person in _PERSON:
        question = pattern.sub(person, question)
    return question


Held = Literal["two", "one"]
"""What memory holds for a question: two values, or one."""


@dataclass(frozen=True)
class Knobs:
    """``held``'s knobs (module docstring)."""

    k: int = ASKED_K
    margin: float = ASKED_MARGIN
    floor: float = ASKED_MIN
    answer_margin: float | None = ANSWER_MARGIN
    """Open facts within this cosine of the closest that state another value are two values of what
    is asked (``question_net.answer_groups``; None: not asked)."""
    answer_floor: float = ANSWER_FLOOR
    part_floor: float | None = PART_MIN
    """The closest fact's cosine from which the part test reads two values (None: not asked)."""
    pair_floor: float | None = PAIR_MIN
    """The cosine of another fact with the closest from which a value of its kind is another (None: not
    asked)."""


def _kinds(text: str, asked: str | None) -> frozenset[str]:
    """The kinds of value ``text`` holds (a date, a number, a code), and a person when one is asked."""
    person = asked == PERSON and holds_kind(PERSON, text)
    return value_kinds(text) | ({PERSON} if person else frozenset())


def _another_value(
    order: list[int],
    versions: Sequence[Version],
    rows: np.ndarray,
    knobs: Knobs,
    asked: str | None,
    *,
    kinds: bool,
) -> bool:
    """Another open fact of the learner's own gives what the closest fact tells another value (docstring, 2).

    Of the same part of the learner's life: "I code on an old ThinkPad" and "The Framework laptop
    I built is what I code on now" share few words with each other or the question (0.2-0.4), yet
    both tell the learner's device (``agent.language.about``: job, home, study, device, language;
    ``SKIPPED_PARTS`` aside). Or (``kinds``) a value of a kind the closest holds (a date, number,
    code, or a person when one is asked) in a statement at ``knobs.pair_floor`` of it or more:
    "My IELTS came back at 6.0" / "Second sitting went much better, 7.0 this time!". The other one
    counts when it brings a value the closest lacks (``same_thing.brings_another_value``) and is the
    learner's own, not hedged (``current_versions.not_current``, ``other_group``).
    """
    closest = order[0]
    texts = [v.content for v in versions]
    told: frozenset[str] = frozenset()
    if knobs.part_floor is not None:
        [told] = told_parts([texts[closest]], rows[closest : closest + 1])
        told -= SKIPPED_PARTS
    held = _kinds(texts[closest], asked) if kinds and knobs.pair_floor is not None else frozenset()
    others = [i for i in order[1 : 1 + WINDOW] if versions[i].valid_to is None]
    if not (told or held) or not others:
        return False
    parts = told_parts([texts[i] for i in others], rows[others]) if told else [frozenset()] * len(others)
    for i, part in zip(others, parts, strict=True):
        same = bool(part & told) or bool(
            held
            and float(rows[i] @ rows[closest]) >= (knobs.pair_floor or 0.0)
            and _kinds(texts[i], asked) & held
        )
        if (
            same
            and brings_another_value(texts[i], texts[closest])
            and not not_current(texts[i])
            and not other_group(texts[i], [texts[closest]])
        ):
            return True
    return False


def held(
    sims: np.ndarray,
    versions: Sequence[Version],
    rows: np.ndarray,
    knobs: Knobs = Knobs(),
    kind: str | None = None,
) -> Held | None:
    """What memory holds for a question whose cosine with each of ``versions`` is ``sims`` (docstring).

    ``kind``: the kind of value the question asks (``answer_kinds.asked_kind``), when known.
    """
    if not len(sims):
        return None
    order = [int(i) for i in np.argsort(-sims, kind="stable")]
    best = float(sims[order[0]])
    # the closest tells a part of the learner's life that another open fact gives another value
    parts = knobs.part_floor is not None and best >= knobs.part_floor and versions[order[0]].valid_to is None
    if best < knobs.floor:
        return "two" if parts and _another_value(order, versions, rows, knobs, kind, kinds=False) else None
    closest = order[: knobs.k]
    near = [i for i in closest if sims[i] >= best - knobs.margin]
    if any(versions[i].valid_to is not None or versions[i].superseded for i in near):
        return "two"
    open_ = [i for i in closest if versions[i].valid_to is None and sims[i] >= knobs.floor]
    if open_ and open_[0] == order[0] and len(open_) > 1:  # the closest and another open fact disagree
        groups = disagreeing([versions[i].content for i in open_], rows[open_])
        if any(0 in group for group in groups):
            return "two"
    current = [i for i in order if versions[i].valid_to is None]
    if knobs.answer_margin is not None and current and current[0] == order[0]:
        texts = [versions[i].content for i in current]
        asked = np.asarray([sims[i] for i in current])
        held = answer_groups(
            asked, texts, margin=knobs.answer_margin, floor=knobs.answer_floor, vectors=rows[current]
        )
        if held:
            return "two"  # the closest and another open fact answer the question with different values
    opened = versions[order[0]].valid_to is None
    return "two" if opened and _another_value(order, versions, rows, knobs, kind, kinds=True) else "one"


def settle(words: str, memory: Held | None) -> str:
    """The intent of a one-value question from its words' reading and what memory holds (docstring, 3)."""
    return CHANGING if memory == "two" else words


def memory_holds(question: str, versions: Sequence[Version]) -> Held | None:
    """What the learner's fact ``versions`` hold for ``question``; None when nothing about it."""
    versions = [v for v in versions if isinstance(v.content, str) and v.content.strip()]
    if not question.strip() or not versions:
        return None
    rows = encode_kept([v.content for v in versions])  # a learner's facts: read on every question
    return held(rows @ encode([as_learner(question)])[0], versions, rows, kind=asked_kind(question))
