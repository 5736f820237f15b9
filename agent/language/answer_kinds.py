"""What kind of value a question asks for, and which statement of one message holds it (spaCy + MiniLM).

One message often tells several things at once ("Hello! I'm Sarah, PhD student in Edinburgh. My
supervisor is Dr. Okafor."): its facts share one ``valid_from``, so the read-time net cannot order
them by time, and the fused search often ranks the self-introduction first (its vector is close to
every question about the learner). The question says what it wants: "Who …" a person, "Where …" /
"Which city …" a place, "When …" a date, "How many …" a number, "Which app …" a name
(``asked_kind``). A statement holds that kind of value or not (``holds_kind``): spaCy's named
entities (PERSON; GPE, LOC, FAC), the language layer's dates and numbers, capitalised names; the
learner's own name, told in an introduction ("Tomás here", "I'm Sarah", "My name is Aino"), is no
answer to any of these questions (``learners_name``).

``answer_order`` (called by ``agent.memory.fact_reads``) puts first, among the current facts told
at the top fact's time, one that holds the kind asked, then one that is no introduction; when the top
fact holds no value of the kind asked, a later current fact that does may pass it too. It never
passes a newer statement for an older one, nor moves a version the net marked older. Its knobs
(``MARGIN``, ``FLOOR``) come from ``python -m bench.readnet_knobs`` (``question_pairs_kinds.json``,
leave-one-out).

A later statement may call a value of the learner's old ("… took my old seat at <firm>"): ``calls_old``
reads it from the parse (a closed class of adjectives, ``OLD``), so the read-time net
(``agent.memory.fact_order.called_old``) puts the new value told beside it ahead of an older answer.

The nouns of "which/what <noun>" are typed by MiniLM against a few nouns of each kind
(``KIND_NOUNS``), so "town", "municipality" or "tutor" need no list of their own.
"""

from __future__ import annotations

import calendar
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from agent.language.current_values import is_person
from agent.language.encoder import encode, encode_kept
from agent.language.grammar import entities, holds_text, parse
from agent.language.numerals import current_value, numbers
from agent.language.people import person
from agent.language.same_thing import values

if TYPE_CHECKING:
    from spacy.tokens import Token
from agent.language.shifts import value_kind

PERSON, PLACE, DATE, NUMBER, NAME = "person", "place", "date", "number", "name"
KIND_NOUNS: dict[str, tuple[str, ...]] = {
    PERSON: ("teacher", "supervisor", "tutor", "mentor", "coach", "person", "advisor", "partner"),
    PLACE: ("city", "town", "country", "place", "village", "region", "neighbourhood"),
    DATE: ("date", "day", "month", "year", "deadline"),
    NUMBER: ("number", "amount", "count", "price", "budget", "salary", "age", "score", "grade"),
    NAME: ("app", "software", "tool", "program", "website", "platform", "device", "laptop", "textbook"),
}
"""A few nouns of each kind a question may ask for; other nouns are typed by MiniLM against them."""
NOUN_MIN = 0.64
"""A question's noun is of a kind when its cosine with one of the kind's nouns is at least this (0.6
read "job" as a person, "boss" 0.63, and "school" as one, "teacher" 0.62; "municipality" is a place
at 0.64, "instructor" a person at 0.73)."""
_WH = {"who": PERSON, "whom": PERSON, "whose": PERSON, "where": PLACE, "when": DATE}
"""Question words that name their kind themselves (a closed class)."""
_HOW = frozenset({"many", "much", "long", "old", "far", "often"})
""""How <word>" asks a number (a closed class)."""
_PERSON_LABELS = frozenset({"PERSON"})
_PLACE_LABELS = frozenset({"GPE", "LOC", "FAC", "ORG"})
"""Where one lives, works or studies (spaCy reads a firm, and often a small city, as ORG)."""
_SELF = frozenset({"i", "it", "this"})
"""Subjects of a copula whose attribute is the speaker's name ("I'm Sarah", "It's Priya")."""
MARGIN = 0.2
"""A fact of the top fact's time answers about as well when its cosine with the question is within
this of the top fact's. Leave-one-out over ``question_pairs_kinds.json`` (``python -m
bench.readnet_knobs``, a wrong move costing two; every fold chose 0.2 and 0.15): 46 of 51 right,
0 of 10 moved wrongly, against 10 of 51 keeping the search's order."""
FLOOR = 0.15
"""… and at least this close to the question."""


@lru_cache(maxsize=1)
def _noun_rows() -> tuple[list[str], np.ndarray]:
    kinds = [k for k, nouns in KIND_NOUNS.items() for _ in nouns]
    return kinds, encode([n for nouns in KIND_NOUNS.values() for n in nouns])


def noun_kind(noun: str) -> str | None:
    """The kind of value ``noun`` names ("town": place), by MiniLM against ``KIND_NOUNS``; else None."""
    kinds, rows = _noun_rows()
    sims = rows @ encode_kept([noun.lower()])[0]
    best = int(np.argmax(sims))
    return kinds[best] if sims[best] >= NOUN_MIN else None


@holds_text
@lru_cache(maxsize=1024)
def asked_kind(question: str) -> str | None:
    """The kind of value ``question`` asks for (``PERSON`` …), or None (what/which of another noun)."""
    if not isinstance(question, str) or not question.strip():
        return None
    doc = parse(question)
    for token in doc:
        word = token.lower_
        if word in _WH:
            return _WH[word]
        if word == "how" and token.i + 1 < len(doc) and doc[token.i + 1].lower_ in _HOW:
            return NUMBER
        if word in ("which", "what"):
            noun = token.head if token.dep_ == "det" else _copula_subject(token)
            return noun_kind(noun.lemma_) if noun is not None and noun.pos_ in ("NOUN", "PROPN") else None
    return None


def _copula_subject(token: Token) -> Token | None:
    """The subject noun of "What is <noun>?" ("What is my level?": "level")."""
    return next((c for c in token.head.children if c.dep_ in ("nsubj", "nsubjpass") and c is not token), None)


def learners_name(text: str) -> frozenset[str]:
    """The learner's own name(s) told in ``text`` ("Tomás here", "I'm Sarah", "My name is Aino"), lower-cased.

    From the parse: a proper noun that is the root of a verbless sentence (an introduction:
    "Marco from Bologna, learning Japanese"), the attribute of a copula whose subject is the speaker
    ("I'm Sarah", "It's Priya") or "my name", or what the speaker asks to be called ("Call me Jun").
    """
    found = set()
    for token in parse(text):
        if not token.text[:1].isupper() or token.pos_ not in ("PROPN", "NOUN"):
            continue
        head = token.head
        subjects = [c for c in head.children if c.dep_ == "nsubj"]
        root_name = token.dep_ == "ROOT" and token.pos_ == "PROPN" or token.dep_ == "ROOT" and token.i == 0
        said = token.dep_ == "attr" and head.lemma_ == "be" and any(_speaker(s) for s in subjects)
        called = token.dep_ == "oprd" and head.lemma_ == "call"
        if root_name or said or called:
            found.add(token.text.lower())
    return frozenset(found)


def _speaker(subject: Token) -> bool:
    """The subject is the speaker ("I", "it", "this") or the speaker's name ("my name")."""
    owners = [c.lower_ for c in subject.children if c.dep_ == "poss"]
    return subject.lower_ in _SELF or subject.lower_ == "name" and "my" in owners


def holds_kind(kind: str, text: str) -> bool:
    """``text`` holds a value of ``kind`` other than the learner's own name (module docstring)."""
    own = learners_name(text)
    if kind == DATE:
        return value_kind(text) == "date"
    if kind == NUMBER:
        return bool(numbers(text))
    if kind in (PERSON, PLACE):
        labels = _PERSON_LABELS if kind == PERSON else _PLACE_LABELS
        return any(label in labels and not _is_own(name, own) for _, _, name, label in entities(text))
    return any(not _is_own(v, own) for v in values(text) if not v[:1].isdigit())


def best_in_kind(kind: str | None, texts: Sequence[str], sims: np.ndarray, floor: float) -> int:
    """Index of the text that answers best: the closest to the question of those that hold ``kind``.

    The closest text overall when it holds the kind, when the question asks none, or when no text
    at ``floor`` or more holds it. An introduction ("Hi, <name> here, learning <language> at a school
    in <city>") is often closest to any question about the learner, yet holds no day for "When is
    the class?": the statement that tells the day is what the question asks, and what a later day
    is the new version of (``question_net.answer_groups``, ``fact_order.newest_first``).
    """
    best = int(np.argmax(sims))
    if kind is None or holds_kind(kind, texts[best]):
        return best
    held = [i for i in range(len(texts)) if sims[i] >= floor and holds_kind(kind, texts[i])]
    return max(held, key=lambda i: sims[i]) if held else best


OLD = frozenset({"old", "former", "previous", "ex"})
"""Adjectives (a closed class) by which the learner calls a thing of theirs one they no longer have."""
_OWN = frozenset({"my", "our"})
_SPEAKER = frozenset({"i", "we"})


@holds_text
@lru_cache(maxsize=1024)
def calls_old(text: str, value: str) -> bool:
    """``text`` calls ``value`` the learner's old one: "my old desk at <firm>", "sold my old <laptop>".

    From the parse: a noun the learner owns ("my", "our") with an adjective of ``OLD`` is ``value``
    itself, holds it (on the way up to the clause's verb), or is another dependent of that verb ("took
    my old seat at <firm>": the parser hangs "at <firm>" on the verb). Never a person ("my old
    flatmate is still in <city>": the flatmate is old, the city is no old value of the learner's).
    """
    words = set(value.lower().split())
    for token in parse(text):
        if (
            token.lower_ not in words
        ):  # any word of the value names it ("my old <model>" of "<brand> <model>")
            continue
        node = token
        while node.pos_ not in ("VERB", "AUX") and node.head.i != node.i:
            if _old_of_mine(node):
                return True
            node = node.head
        if _old_of_mine(node) or any(_old_of_mine(c) for c in node.children if node.pos_ in ("VERB", "AUX")):
            return True
        if _passed_on(token):
            return True
    return False


def _passed_on(token: Token) -> bool:
    """``token`` names a thing told as another person's now: "the <laptop> belongs to my brother now".

    The thing (the noun ``token`` is part of) is the subject of a verb that takes it to a person ("went
    to my nephew", "belongs to <name>"), or of a copula whose attribute is a person's ("is my sister's
    now"), or the object the learner gives a person ("I sold the <laptop> to my flatmate").
    """
    thing = token
    while thing.dep_ == "compound" and thing.head.pos_ == "PROPN":
        thing = thing.head  # "HP" of "HP Pavilion"
    verb = thing.head
    if thing.dep_ == "dobj":
        if not any(c.dep_ == "nsubj" and c.lower_ in _SPEAKER for c in verb.children):
            return False
    elif thing.dep_ not in ("nsubj", "nsubjpass"):
        return False
    for child in verb.children:
        to = child.dep_ in ("prep", "dative") and child.lower_ == "to"
        if to and any(o.dep_ == "pobj" and person(o) for o in child.children):
            return True
        if child.dep_ == "attr" and person(child) and any(c.dep_ == "case" for c in child.children):
            return True
    return False


def _old_of_mine(noun: Token) -> bool:
    """``noun`` is a thing the learner owns and calls old ("my old seat"), not a person."""
    if noun.pos_ not in ("NOUN", "PROPN"):
        return False
    old = any(c.dep_ == "amod" and c.lower_ in OLD for c in noun.children)
    return old and any(c.dep_ == "poss" and c.lower_ in _OWN for c in noun.children) and not is_person(noun)


def _is_own(name: str, own: frozenset[str]) -> bool:
    """``name`` is (part of) the learner's own name."""
    return any(part.lower() in own for part in name.split())


def answer_order(
    question: str,
    texts: Sequence[str],
    sims: np.ndarray,
    when: Sequence[str],
    movable: Sequence[bool],
    *,
    margin: float | None = None,
    floor: float | None = None,
) -> int | None:
    """Index of the fact to put first, or None to keep the order (module docstring).

    ``texts`` are the current facts in search order (the first is the top fact), ``sims`` their
    cosines with the question, ``when`` their ``valid_from``, ``movable`` whether each may move (a
    value of the learner's now, not a version the net marked older).
    """
    kind = asked_kind(question)
    if kind is None or len(texts) < 2:
        return None
    margin = MARGIN if margin is None else margin
    low = max(FLOOR if floor is None else floor, float(sims[0]) - margin)

    def key(i: int) -> tuple[bool, bool, bool]:
        total = kind == NUMBER and current_value(texts[i]) is not None
        return holds_kind(kind, texts[i]), total, not learners_name(texts[i])

    # a top fact without the kind asked is no answer at all ("How many pages …?": a friend's deed, an
    # aside), so a current fact of any time that holds it may pass it; one that holds the kind yields
    # only to a fact of its own time (the net already put the newest version first), or, asked a
    # number, to a later running total KAG computed ("… (now 38)" after "CS 1st year, I use <site>")
    lacks = not key(0)[0]
    peers = [
        i
        for i in range(len(texts))
        if (lacks or when[i] == when[0] or when[i] > when[0] and key(i)[1] and not key(0)[1])
        and (i == 0 or movable[i] and sims[i] >= low)
    ]

    best = max(peers, key=lambda i: (key(i), -i))
    return best if best != 0 and key(best) > key(0) else None


_DAYS = frozenset(day.lower() for day in calendar.day_name)
"""The days of the week, from the calendar (a closed class)."""


def weekly_slots(text: str) -> frozenset[str]:
    """The days of the week ``text`` names as a slot that recurs, lower-cased and singular.

    "on Tuesday evenings", "Thursday mornings before 10", "Mondays", "every Friday": a plural day or
    a day before a plural noun of a part of it, or "every" before it (read from the tagger, no list of
    parts of a day); "my exam is on Friday" names one day, no slot.
    """
    found = set()
    for token in parse(text):
        day = token.lower_.removesuffix("s")
        if day not in _DAYS:
            continue
        after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
        before = token.doc[token.i - 1] if token.i > 0 else None
        plural = token.lower_ != day or (after is not None and after.tag_ == "NNS")
        if plural or (before is not None and before.lower_ == "every"):
            found.add(day)
    return frozenset(found)


def another_slot(text: str, slots: frozenset[str]) -> bool:
    """``text`` names a weekly slot on another day than the best answer's ``slots`` (``weekly_slots``).

    "Thursday mornings are the only slot that works for me now" beside "I usually do these sessions
    on Tuesday evenings": a schedule restated, though the question's words ("sessions") are not in it.
    """
    return bool(slots) and bool(weekly_slots(text) - slots)
