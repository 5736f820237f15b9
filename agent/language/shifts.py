"""A change stated as a difference: "postponed by a week", "another 9", "cut by 25%" (``Shift``).

What a statement says moved, and by how much, read from the statement alone; which stored value
it moves is ``agent.language.differences``'s. Kept apart from that module because the readers of
whose value a statement gives (``agent.language.own_values``, ``whose_value``) ask whether a
statement holds a value at all (``states_a_value``) and must not import the change resolver,
which asks them in turn.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import timedelta

from agent.language.directions import gives_time, sign
from agent.language.number_roles import not_done
from agent.language.portions import REMAINING
from agent.language.quantities import amount_change
from agent.language.when import CALENDAR


@dataclass(frozen=True)
class Shift:
    """A change stated as a difference, signed: a duration, an amount or a factor (and its unit)."""

    time: timedelta | None = None
    months: int = 0
    """A duration in months or years ("by a month"), added to a date as calendar months."""
    amount: float | None = None
    factor: float | None = None
    unit: str | None = None
    """What an amount counts ("Polish words", "euros"), when the statement names it."""
    done: str | None = None
    """Told only as work done: its verb ("write" for "Wrote 1,350 words", ``quantities.Amount.done``)."""
    mine: bool = False
    """The learner's share of a group's count ("11 of those were mine"): the learner's, whoever the group."""
    stock: str | None = None
    """Drawn from or given to a stock ("used 3 of them"): a change of a value held (``quantities.Amount``)."""


_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_UNIT_MONTHS = {"month": 1, "year": 12}
_WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WORD_NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_COUNT = r"\d+|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten"
_DURATION = re.compile(
    rf"\b(?P<another>another\s+)?(?P<count>{_COUNT})[\s-]+(?P<more>(?:more|extra|additional)\s+)?"
    r"(?P<unit>day|week|fortnight|month|year)s?\b(?P<later>\s+(?:more|extra)\b)?",
    re.I,
)
_AFTER_DURATION = re.compile(r"'?\s*(?:earlier|later|sooner|extension|delay|postponement)\b", re.I)
"""After a duration that is a difference: "two days earlier", "a two weeks' extension"."""
_BEFORE_DURATION = re.compile(r"\b(?:by|back|forward)\s*$|\bpush\w*\s+(?:\w+\s+){0,3}?out\s*$", re.I)
"""Before a duration that is a difference: "by a week", "back a week", "brought the final forward three
days", "pushed it out two weeks" (not "moved out three weeks ago")."""
_GIVEN_BEFORE = re.compile(r"\b(?:gave|given|got|gotten|granted|allowed|have|has)\b(?:\s+\w+){0,3}\s*$", re.I)
"""Before a duration told "a week extra": time given or had, whoever gets it (the parse reads no dative)."""
_ANOTHER_DURATION = re.compile(r"\banother\s+(?P<unit>day|week|fortnight|month)\b", re.I)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.]*\d)")


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _WORD_NUMBERS[word]


def _time_shift(count: int, unit: str, sign: int) -> Shift:
    """A signed duration: days, weeks and fortnights as days, months and years as months."""
    unit = unit.lower()
    if unit in _UNIT_MONTHS:
        return Shift(time=timedelta(0), months=count * _UNIT_MONTHS[unit] * sign)
    return Shift(time=timedelta(days=count * _UNIT_DAYS[unit] * sign))


def _duration_sign(text: str, match: re.Match[str], more: bool) -> int | None:
    way = sign(text, match.start(), match.span() if more else (0, 0))
    if way is None and more and gives_time(text, match.start("unit")):
        return 1  # "Haddad gave the whole class an extra week on the essay"
    if way is None and match.groupdict().get("later") and _GIVEN_BEFORE.search(text[: match.start()]):
        return 1  # "the TA gave everyone a week extra on the essay": more time had is a later date
    if way is None and _moved_by(text, match.start("unit")):
        return 1  # "The lab decided to shift the draft deadline by two weeks": moved by a span is put off
    return way


_MOVES = frozenset({"move", "shift", "push", "reschedule", "bump", "slide", "change", "adjust", "delay"})
"""Verbs that move a date without saying which way (lemmas, a closed set of motion verbs)."""


def _moved_by(text: str, at: int) -> bool:
    """True when the duration at ``at`` is what a date is moved *by* with no direction word (the parse).

    "shift the draft deadline by two weeks", "the exam was moved by three days", "it slides another week"
    (a span the parse reads as the verb's measure, told with "another"/"more"): moving a date by a
    span and naming no direction is a postponement (an earlier date is told so: "brought forward",
    "earlier"), as a deadline moved for a reason is almost always put off.
    """
    from agent.language.grammar import parse, token_at  # noqa: PLC0415 - the parser loads only when needed

    token = token_at(parse(text), at)
    if token is not None and token.dep_ == "npadvmod" and token.head.lemma_.lower() in _MOVES:
        return True  # "it slides another week", "pushed it another two days": the span measures the move
    by = None if token is None else token.head
    return bool(
        by is not None
        and by.lower_ == "by"
        and by.dep_ in {"prep", "agent"}
        and by.head.lemma_.lower() in _MOVES
    )


def _duration(text: str) -> tuple[bool, Shift | None]:
    """``(states a duration, its shift)``; with no direction it shifts nothing (but ``_moved_by``)."""
    for match in _DURATION.finditer(text):
        before, after = text[: match.start()].lower(), text[match.end() :].lower()
        more = bool(match["more"] or match["another"] or match["later"])  # "two days extra on the essay"
        # "by a week", "back a week", "brought the final forward three days", "pushed it out two weeks"
        stated = re.search(_BEFORE_DURATION, before) or re.match(_AFTER_DURATION, after)
        if (stated or more) and not_done(text, match.start()):
            return True, None  # "they might push it back a week", "if they postpone it by a week"
        if stated or more:
            way = _duration_sign(text, match, more)
            return True, None if way is None else _time_shift(_count(match["count"]), match["unit"], way)
    match = _ANOTHER_DURATION.search(text)
    if match is not None and not_done(text, match.start()):
        return True, None
    if match is not None:
        way = _duration_sign(text, match, True)
        return True, None if way is None else _time_shift(1, match["unit"], way)
    return False, None


def shift(text: str) -> Shift | None:
    """The signed difference ``text`` states ("postponed by a week" -> +7 days), or None."""
    if not isinstance(text, str):
        return None
    found, time = _duration(text)
    if found:
        return time
    return amount_shift(text)


def amount_shift(text: str) -> Shift | None:
    """The difference ``text`` states as an amount, a duration read as a count ("Another 9 days done")."""
    change = amount_change(text, lambda at: sign(text, at))
    if change is None:
        return None
    return Shift(
        amount=change.delta,
        factor=change.factor,
        unit=change.unit,
        done=change.done,
        mine=change.mine,
        stock=change.stock,
    )


_VALUE_ROLE = re.compile(
    r"\b(?:(?:the|that|this)\s+(?:new\s+)?(?:deadline|due\s+date|date|total|amount|figure|count|sum)"
    r"|(?:my|our)\s+(?:total|count|tally|number))\b"
    r"(?!\s+(?:for|of|on|at)\b|'s)",
    re.I,
)
"""A noun that names the role of a value, not a thing ("pushed the deadline back", "the total went up", "I
doubled my count"): a closed class, as a pronoun refers to what the conversation is about."""


def names_its_value(text: str) -> bool:
    """True when ``text`` names what it changes only by the value's role ("the deadline"), as "it" does.

    "a fifth of what was left" names the value as what remains of it (``portions.REMAINING``), whoever ate it.
    """
    if not isinstance(text, str):
        return False
    return bool(_VALUE_ROLE.search(text) or REMAINING.search(text))


def numbers_in(text: str) -> list[str]:
    """The numbers written in ``text`` ("5.5", "600"; not inside words such as "HSK3")."""
    return _NUMBER.findall(text)


def value_kind(text: str) -> str | None:
    """The kind of value ``text`` states: ``"date"`` (a month, a weekday, 3/14), ``"number"`` or None.

    Two statements of one kind can hold one thing's old and new value.
    """
    if CALENDAR.search(text):
        return "date"
    return "number" if _NUMBER.search(text) else None


def states_a_value(text: str) -> bool:
    """True when ``text`` states a difference, a date or a number (what a changed fact carries)."""
    return shift(text) is not None or bool(CALENDAR.search(text)) or bool(_NUMBER.search(text))
