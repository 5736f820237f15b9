"""The question net: which facts answer one question as versions of one value (MiniLM cosine).

With the question (``answer_groups``, called by ``fact_order.newest_first`` with the query's
vector) the read-time net also groups what the two statements alone cannot join: the best answer
to the question and the facts about as close to it (within ``ANSWER_MARGIN``) that state another
value ("Where do I work?": "I'm a junior data analyst at Zalando" / "First week at Delivery Hero
went ok"). Its knobs come from ``python -m bench.readnet_knobs``: scenario probes of the eight dev
sets 60 -> 84 of 150 passed (the probe's ``first`` on sentence-level memories), our question pairs
(``question_pairs.json``, 91, nine classes) 21 -> 41 of 53 found, but 9 -> 28 of 38 hard negatives
grouped (an unrelated or someone else's newer value shown first, the right one "was until").
A statement that tells several things (a self-introduction) is read there by its clause closest to
the question (``answering_clause``): the kind asked and the part of a life it tells come from that
clause, so an older introduction no longer outranks a later value of the thing asked because one of
its other clauses tells a language or a level (``question_pairs_order.json``: 15 -> 17 of 23 found,
4 of 12 hard negatives grouped before and after; no new knob). A later value written in the unit of
the best answer's (a currency, a letter prefix: ``another_in_unit``) answers it however far its words
are from the question ("it's €550 a month now" beside "an allowance of €400 a month"), at the floor.

It builds on the statement readers of ``agent.language.same_thing`` (``values``,
``brings_another_value``) and on ``agent.language.about`` (the part of a life a clause tells); the
question-free read-time net (``same_thing.disagreeing``) stays there, and
``agent.memory.fact_order.newest_first`` merges both nets' groups (``same_thing.merged``). What makes a
named value the learner's own, for the joins below the floor, is ``agent.language.held_values``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from agent.language.about import clause_vectors, clauses, parts
from agent.language.answer_kinds import (
    NAME,
    PERSON,
    PLACE,
    another_slot,
    best_in_kind,
    holds_kind,
    weekly_slots,
)
from agent.language.encoder import encode_kept
from agent.language.grammar import entities, parse
from agent.language.held_values import ENTITY_LABELS, alike, held_as_learners
from agent.language.numerals import CURRENCY, numbers
from agent.language.same_thing import beyond, brings_another_value, values
from agent.language.shifts import shift, value_kind
from agent.language.whose_value import others

ANSWER_MARGIN = 0.34
"""Read time, with the question: open facts whose cosine with the question is within this of the
best answer's answer it about as well (``answer_groups``). Leave-one-out over the scenario probes
and ``question_pairs.json`` (``python -m bench.readnet_knobs``, a wrong grouping costing two
misses; folds chose 0.34-0.36)."""
NAMED_KINDS = frozenset({NAME, PERSON, PLACE})
"""Kinds a question's words ask that any text holding them answers in kind (``answer_groups``)."""
ANSWER_FLOOR = 0.10
"""… and at least this close to the question (folds chose 0.05-0.10)."""


def answer_groups(
    asked: np.ndarray,
    texts: Sequence[str],
    *,
    margin: float | None = None,
    floor: float | None = None,
    vectors: np.ndarray | None = None,
    question: np.ndarray | None = None,
    kind: str | None = None,
    focus: frozenset[str] = frozenset(),
) -> list[list[int]]:
    """The facts that answer one question about equally well and state different values (indexes).

    The question names what is asked, which two statements alone do not ("I'm a junior data
    analyst at Zalando" / "First week at Delivery Hero went ok" share no part a reader is sure
    of). ``asked``: each text's cosine with the question. The best answer, and every other text
    within ``margin`` (``ANSWER_MARGIN``) of it and at ``floor`` (``ANSWER_FLOOR``) or more that
    states another value (``states_another_value``) of the best answer's kind (``_answers_in_kind``:
    a date for a date), are versions of what is asked: one group
    (none when no other text qualifies). ``vectors``: the texts' MiniLM rows when the caller has
    them (the fact store's stored vectors), so the about-reader does not encode them again.
    ``question``: the question's L2-normalised MiniLM row, when the caller has it, so the about-reader
    reads each statement by the clause that answers it (``answering_parts``). ``kind``: the kind of
    value the question's words ask (``answer_kinds.asked_kind``: a name, a person, a place); a text
    that holds it answers in kind whatever else the best answer holds ("Ubuntu 22.04" beside the
    laptop asked for is no number the new laptop must hold).
    """
    if len(texts) < 2:
        return []
    margin = ANSWER_MARGIN if margin is None else margin
    floor = ANSWER_FLOOR if floor is None else floor
    best = best_in_kind(kind, texts, asked, floor)
    low = max(floor, float(asked[best]) - margin)
    if asked[best] < floor:
        return []
    # the kind asked is read in the clause of the best answer that answers it ("renting a room in
    # Coimbra", not the "A2" of its language clause)
    answer = texts[best] if question is None else answering_clause(question, texts[best], kind=kind)[0]
    held = value_kinds(answer)
    named = kind if kind in NAMED_KINDS else None
    units, slots = unit_values(answer), weekly_slots(answer)
    # asked "who", a version names a person when the best answer does ("he wants me to …" names none)
    who = kind == PERSON and holds_kind(PERSON, answer)
    near = [
        i
        for i in range(len(texts))
        if i != best
        and (
            asked[i] >= low
            or named is not None
            and held_as_learners(named, texts[i])
            or asked[i] >= floor
            and (
                another_in_unit(texts[i], units)
                or another_slot(texts[i], slots)
                or kind is not None
                and names_the_thing(texts[i], texts[best], focus)
                and holds_kind(kind, texts[i])
            )
        )
        and brings_another_value(texts[i], texts[best])
        and (not who and _answers_in_kind(held, texts[i]) or named and holds_kind(named, texts[i]))
    ]
    if not near:
        return []
    # The question fills in what the about-reader is unsure of; it never overrules it: "I work
    # as a nurse…" answers "where does the learner live" nearly as well as "I live in Da Nang",
    # but the reader is sure one tells a job and the other a home, so neither is the other's
    # older version.
    chosen = [best, *near]
    told_texts = [texts[i] for i in chosen]
    rows = encode_kept(told_texts) if vectors is None else vectors[chosen]
    told = parts(rows, told_texts) if question is None else answering_parts(question, rows, told_texts, kind)
    # ... unless the learner's frame holds a name of the best answer's label: "my locker at <firm>"
    # reads as a home to the about-reader, yet a firm named as the learner's is where they work now
    labels = {label for *_, label in entities(texts[best])}
    framed = [named in ENTITY_LABELS and alike(held_as_learners(named, texts[i]), labels) for i in near]
    # a remark with no value is no version beside one that brings a value (``_bare``)
    valued = [i for i in near if beyond(values(texts[i]), values(texts[best]))]
    apart = [
        bool(told[0] and t and not told[0] & t) and not kept or bool(valued) and _bare(texts[i], t)
        for i, t, kept in zip(near, told[1:], framed, strict=True)
    ]
    group = [best] + [i for i, away in zip(near, apart, strict=True) if not away]
    return [group] if len(group) > 1 else []


def _bare(text: str, told: frozenset[str]) -> bool:
    """``text`` holds no value (``same_thing.values``) and tells no part of a life (``told``).

    A remark on a detail ("fourteen cases, I keep forgetting the endings", "the bow feels so heavy")
    names nothing that could be a version of what is asked; only its place in time
    would make it the newest. ``answer_groups`` leaves it out when another member brings a value the
    best answer lacks (the change it remarks on). Alone beside the best answer it stays: a change may
    be told in common nouns only ("after the elective I switched programmes, it's mechatronics now").
    """
    return not told and not values(text)


_UNIT_VALUE = re.compile(
    rf"(?<![\w.])([{re.escape(''.join(CURRENCY))}]|[^\W\d_]{{1,3}}-?)(\d(?:[\d,.]*\d)?)(?![\w])"
)
"""A value written with its unit: a currency symbol ("€550") or a prefix of one to three letters
("R4800", "B2", "N3", "S23") right before its digits."""


def names_the_thing(text: str, best: str, focus: frozenset[str]) -> bool:
    """``text`` and the best answer both name a thing the question asks about (a noun lemma of ``focus``)."""
    shared = nouns(text) & focus
    return bool(shared & nouns(best))


def nouns(text: str) -> frozenset[str]:
    """The lemmas of the common nouns of ``text``."""
    return frozenset(t.lemma_.lower() for t in parse(text) if t.pos_ == "NOUN")


def unit_values(text: str) -> dict[str, frozenset[str]]:
    """The values ``text`` writes with a unit (``_UNIT_VALUE``), by unit: ``{"€": {"550"}, "b": {"2"}}``."""
    found: dict[str, set[str]] = {}
    for match in _UNIT_VALUE.finditer(text):
        found.setdefault(match.group(1).lower().rstrip("-"), set()).add(match.group(2))
    return {unit: frozenset(held) for unit, held in found.items()}


def another_in_unit(text: str, units: dict[str, frozenset[str]]) -> bool:
    """``text`` writes another value in a unit of ``units`` (the best answer's), and no difference.

    "It's €550 a month now" beside "an allowance of €400 a month": the same unit, another value,
    though the question's words ("allowance") are not in it, so its cosine with the question is far
    below the best answer's. A change told as a difference ("cut by $300", ``shifts.shift``) is no
    value of its own: the arithmetic resolves it (``agent.language.differences``); a value told beside
    the difference is ("took €150 off it, so I've €250 left").
    """
    if not units:
        return False
    held = unit_values(text)
    change = shift(text)
    told = None if change is None or change.amount is None else f"{abs(change.amount):g}"
    return any(
        v.replace(",", "") != told
        for unit, values in units.items()
        for v in held.get(unit, frozenset()) - values
    ) and (change is None or told is not None)


def answering_clause(
    question: np.ndarray, text: str, row: np.ndarray | None = None, kind: str | None = None
) -> tuple[str, np.ndarray]:
    """The clause of ``text`` closest to ``question`` and its MiniLM row.

    The whole statement or one of its ``about.clauses``. ``row``: the statement's own row when the
    caller has it (else encoded). ``kind``: the kind of value the question asks
    (``answer_kinds.asked_kind``); when some clauses of the learner's hold it and others do not, the
    closest of those answers: "I'm learning <language>" is closer to "Where does the learner live?"
    than "I live in <city> with two flatmates" only by "learning" and "learner".
    """
    whole = encode_kept([text])[0] if row is None else row
    found = clause_vectors(text)
    if not len(found):
        return text, whole
    sims = found @ question
    told = clauses(text)
    if kind is not None:
        held = [k for k, clause in enumerate(told) if holds_kind(kind, clause) and not others(clause)]
        if held and len(held) < len(told):
            best = max(held, key=lambda k: float(sims[k]))
            return told[best], found[best]
    best = int(np.argmax(sims))
    return (told[best], found[best]) if sims[best] > float(whole @ question) else (text, whole)


def answering_parts(
    question: np.ndarray, vectors: np.ndarray, texts: Sequence[str], kind: str | None = None
) -> list[frozenset[str]]:
    """The parts (``about.parts``) each of ``texts`` tells in its clause closest to ``question``.

    A statement that tells several things ("Ana here, a nurse from Braga, renting a room in Coimbra
    and learning German") is read by the clause that answers the question ("renting a room in
    Coimbra"), not by any of its clauses: its language clause must not set it apart from a later
    home ("The new place in Porto is bright, I can see the river from my desk", whose second clause
    reads as a desk). ``vectors``: the texts' rows; ``kind``: the kind asked (``answering_clause``).
    """
    out = []
    for row, text in zip(vectors, texts, strict=True):
        clause, clause_row = answering_clause(question, text, row, kind)
        out.append(parts(clause_row[None, :], [clause])[0])
    return out


def value_kinds(text: str) -> frozenset[str]:
    """The kinds of value ``text`` holds: ``"date"``, ``"number"`` (not a day of a date), ``"code"``.

    A code is a name with a digit ("B1", "B2.1", "N4"). A statement may hold more than one: "I took
    the GRE in December and got a 158 in quant", "I'm in the B1 evening class, Mondays and Wednesdays".
    """
    kinds = {kind} if (kind := value_kind(text)) else set()
    if numbers(text):
        kinds.add("number")
    if any(re.search(r"\d", v) and re.search(r"[^\W\d_]", v) for v in values(text)):
        kinds.add("code")
    return frozenset(kinds)


def _answers_in_kind(kinds: frozenset[str], text: str) -> bool:
    """``text`` holds a value of a kind the best answer holds: a date for a date, a number for a number.

    "My goal is to pass the exam on March 20" answers "What is my exam date?"; "I practised SELECT
    yesterday" (no date) is no other version of it, however close. A best answer with no such value
    is answered alike by any name; one that holds a number by any value; one that holds a date beside
    a number or a code ("got a 158 in quant" in December) by either ("Scores posted: 165 on quant").
    """
    found = value_kinds(text)
    return not kinds or bool(kinds & found) or ("number" in kinds and bool(found))
