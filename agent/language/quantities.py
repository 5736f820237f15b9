"""Quantities in learner text: numbers in digits or words, and a change stated as an amount.

A running total is often updated without "by": "Another 60 Polish words went into the deck",
"Twelve more LeetCode problems solved", "tidy-csv got 18 new stars", "the school cut 250
euros from the budget", "the GPU credit is cut in half". ``amount_change`` reads such a
statement as a signed amount (or a factor) and the unit it counts ("Polish words",
"stars"), so ``agent.language.differences`` can apply it to the number of the fact it is
about (the unit compared by MiniLM, not by a list).

- **Numbers** in digits or in words (``agent.language.numerals``).
- **Which way** the amount goes is read from the words right around it
  (``agent.language.amount_directions``), a draw from a stock first ("used 2 more hours",
  ``agent.language.stocks``); "doubled", "tripled", "halved", "cut in half", "by N%" scale.
- **No change** when the amount is negated ("I didn't add 5 more words"), only planned or wished
  for ("I'll need 20 more"), compared, still to go or a new total (``agent.language.told_totals``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from agent.language.amount_directions import FILLER, direction, text_before
from agent.language.grammar import is_learner, parse, token_at
from agent.language.number_roles import (
    NOT_DONE,
    PRO_VERBS,
    clause_before,
    done_verb,
    joint_work,
    not_done,
    work_done,
)
from agent.language.numerals import (
    PERCENT_AFTER,
    Number,
    numbers,
)
from agent.language.portions import OTHERS, lost_portion, own_share, repeated_work, taken_back
from agent.language.stocks import drawn_again, stock_change
from agent.language.told_totals import HAVE, left_by_change, names_a_total, still_to_go
from agent.language.units import days_told, unit_of

_BY = re.compile(rf"\bby\s+{FILLER}$", re.I)
AS_MANY_AGAIN = r"\bas\s+(?:many|much)\s+(?:[a-z]+\s+)?again\b"
""""as many (words) again": the count told before once more, a change that refers back to it."""
_FACTORS = (
    (
        re.compile(r"\b(?:doubled|doubles|double[sd]?\s+(?:up|its|their)|twice\s+what\s+it\s+was)\b", re.I),
        2.0,
    ),
    (re.compile(r"\b(?:tripled|triples)\b", re.I), 3.0),
    # "as many again as I had": the count told once more; "half as many again": half of it more
    (re.compile(rf"(?<!half\s)(?<!twice\s){AS_MANY_AGAIN}", re.I), 2.0),
    (re.compile(rf"\bhalf\s+{AS_MANY_AGAIN}", re.I), 1.5),
    (re.compile(rf"\btwice\s+{AS_MANY_AGAIN}", re.I), 3.0),
    (re.compile(r"\b(?:halved|halves|in\s+half|by\s+half|by\s+50\s*%|half\s+what\s+it\s+was)\b", re.I), 0.5),
)


@dataclass(frozen=True)
class Amount:
    """A change stated as an amount: add ``delta`` or multiply by ``factor``; ``unit`` it counts."""

    delta: float | None = None
    factor: float | None = None
    unit: str | None = None
    done: str | None = None
    """Told only as work done ("Wrote 1,350 words"): the verb's lemma ("write"); no direction word, so it
    adds only to a total of the same counted word stated with the same verb ("I've written 14,200 words")."""
    mine: bool = False
    """The learner's share of a group's count ("11 of those were mine", ``portions.own_share``)."""
    stock: str | None = None
    """Drawn from or given to a stock: ``"spent"`` (money: "spent 120 on tips", a change of money left only),
    ``"used"`` ("used 3 of them") or ``"given"`` ("gave me 2 free lessons"), a change of a value held ("I
    prepaid 20 lessons"); never of a tally of work. ``"of_it"`` ("spent 35 of it"): a part of the value the
    pronoun names, whatever holds it (``stocks.stock_change``)."""


def amount_change(text: str, sign_at: Callable[[int], int | None] | None = None) -> Amount | None:
    """The amount ``text`` changes a total by, or None (module docstring).

    ``sign_at``: the direction of a change "by N" at a place of ``text``, read by
    ``agent.language.differences`` from its verbs ("went up by 120", "cut by 200");
    without it, or with no direction, "by N" is no amount.
    """
    if not isinstance(text, str):
        return None
    share = own_share(text)
    if share is not None:
        return Amount(delta=share.delta, unit=share.unit, mine=True)
    back = taken_back(text)
    if back is not None:
        return Amount(delta=back.delta)  # "2 of yesterday's were wrong, so they don't count"
    lost = lost_portion(text)
    if lost is not None:
        return None if names_a_total(text) else Amount(factor=lost.factor)
    fraction = _fraction(text, sign_at)
    if fraction is not None:
        return fraction
    for pattern, factor in _FACTORS:
        match = pattern.search(text)
        if match and not NOT_DONE.search(clause_before(text, match.start())):
            if names_a_total(text):
                return None
            pace, whose = _pace(text, match), re.match(r"\s*(\w+)", text[match.end() :])
            if pace is None and whose is not None and whose.group(1).lower() in OTHERS:
                return None  # "Ana doubled hers", "he tripled his count": another's
            if match.group().lower().endswith("again") and _anothers_clause(text, match.start()):
                return None  # "my brother has done half as many again as me": another's count
            return pace or Amount(factor=factor)
    repeated = repeated_work(text)
    if repeated is not None:
        return Amount(delta=repeated.delta, unit=repeated.unit)
    changes: list[Amount] = []
    read: set[Number] = set()  # the amounts a change was read from
    for n in numbers(text):
        before, after = text_before(text, n), text[n.end :]
        if (used := _used_of_given(text, n, changes)) is not None:
            changes.append(used)
            read.add(n)
            continue
        if text[n.start : n.end].lower() in ("one", "zero"):
            # "I have one more question": a state, no work done
            held = not_done(text, n.start) or HAVE.search(clause_before(text, n.start))
            one_more = _ONE_MORE.match(text[n.end :]) and not held
            unit = unit_of(text, n) if one_more else None
            if unit is not None:
                # "one more hour with my tutor": work done of the same counted word only, as a verb's ("do")
                changes.append(Amount(delta=1.0, unit=unit, done="do"))
            continue  # "one more question", "the new one": a pronoun as often as an amount
        if not_done(text, n.start) or left_by_change(text, n):
            continue  # not done yet, or what the change told before it leaves ("so we've got 1,650")
        than = _THAN_BEFORE.match(after)
        if than is not None:  # "the trip budget is 15% more than before": a change of the old value
            sign = 1 if than["way"].lower() in _MORE else -1
            if PERCENT_AFTER.match(after):
                return Amount(factor=1 + sign * n.value / 100)
            return Amount(delta=sign * n.value, unit=unit_of(text, n))
        if still_to_go(text, n):
            continue
        if _CONTINUES.match(before) and _verbless(text, n):
            changes.append(Amount(delta=n.value, unit=unit_of(text, n)))  # "and seven tonight": one more
            continue
        joined = _AND_THEN.search(before) if changes else None
        if joined is not None and _verbless(text, n, joined.start()):
            # "six hours yesterday and four this morning": one change, two amounts
            changes[-1] = _continued(changes[-1], n.value, unit_of(text, n))
            read.add(n)
            continue
        if _BY.search(before):
            by_sign = None if sign_at is None else sign_at(n.start)
            if by_sign is None:
                continue
            if names_a_total(text, n):
                return None
            if PERCENT_AFTER.match(after):
                return Amount(factor=1 + by_sign * n.value / 100)
            return Amount(delta=by_sign * n.value, unit=unit_of(text, n))
        if PERCENT_AFTER.match(after) and _of_a_quality(text, n):
            continue  # "I'm 20% more confident now": a quality compared, no value changed
        sign = direction(text, n)
        sign = None if sign == 1 and drawn_again(text, n) else sign  # "used 2 more hours": a draw
        if sign is not None:
            if names_a_total(text, n) or joint_work(text, n.start):
                return None  # "Me and a friend put in 4 more hours together": the pair's, no share told
            # "another 15%" of a progress adds points; ``differences`` applies it to a percent only
            changes.append(Amount(delta=sign * n.value, unit=unit_of(text, n)))
        elif PERCENT_AFTER.match(after) and sign_at is not None and _measures_a_change(text, n):
            way = sign_at(n.start)  # "I'm raising the lesson budget 15%", "they cut it 10 percent"
            if way is not None and not names_a_total(text, n):
                return Amount(factor=1 + way * n.value / 100)
        elif (drawn := stock_change(text, n)) is not None and not names_a_total(text, n):
            sign, kind = drawn
            changes.append(Amount(delta=sign * n.value, unit=unit_of(text, n), stock=kind))
            read.update(_in_its_phrase(text, n))  # "210 euros for three nights": what the price paid for
        elif (done := work_done(text, n)) and not names_a_total(text, n):
            changes.append(Amount(delta=n.value, unit=done[1], done=done[0]))
        elif (verb := _joined_work(text, n)) is not None and not names_a_total(text, n):
            changes.append(Amount(delta=n.value, unit=None, done=verb))  # "rode 15 on Tuesday and 22 …"
        elif _rate_kept_up(text, n):
            changes.append(Amount(delta=n.value, unit=unit_of(text, n)))  # "40 minutes a day for five days"
        else:
            continue
        read.add(n)
    if len(changes) > 1 and any(c.done for c in changes):
        changes = [c for c in changes if not c.done] or changes[:1]  # "Wrote 900 words and cut 200": as said
    if any(c.stock for c in changes) and len(read) < len(numbers(text)):
        return None  # "gave me 2 free lessons, and I had one more": a part unread, so no total is sure
    return _over_a_span(text, _together(changes))


def _over_a_span(text: str, change: Amount | None) -> Amount | None:
    """A rate kept up over a span it names, as the amount done ("3 hours a day Monday to Wednesday": 9 hours).

    The rate's period comes from its unit ("hours per day", ``units.unit_after``); the span is a run of
    weekdays or "for N days/weeks" (``units.days_told``). A rate with no span is left as told.
    """
    if change is None or change.delta is None or change.unit is None or " per " not in change.unit:
        return change
    counted, period = change.unit.rsplit(" per ", 1)
    times = days_told(text, period)
    # told as a rate kept up, the work is the amount of the unit whatever its verb (as ``repeated_work``'s)
    return change if times is None else replace(change, delta=change.delta * times, unit=counted, done=None)


def _anothers_clause(text: str, at: int) -> bool:
    """True when the verb of the clause at ``text[at:]`` has a subject who is not the learner (the parse)."""
    token = token_at(parse(text), at)
    while token is not None and token.pos_ not in {"VERB", "AUX"} and token.head.i != token.i:
        token = token.head
    subjects = [] if token is None else [c for c in token.children if c.dep_ in ("nsubj", "nsubjpass")]
    return any(not is_learner(c) for c in subjects)


def _rate_kept_up(text: str, n: Number) -> bool:
    """True when the amount at ``n`` is a rate over a span with no verb ("40 minutes a day for five days")."""
    unit = unit_of(text, n) or ""
    return " per " in unit and days_told(text, unit.rsplit(" per ", 1)[1]) is not None and _verbless(text, n)


def _in_its_phrase(text: str, n: Number) -> list[Number]:
    """The numbers inside the noun phrase of the amount at ``n`` (the parse): "210 euros for three nights"."""
    token = token_at(parse(text), n.start)
    if token is None:
        return []
    head = token.head if token.dep_ == "nummod" else token
    spans = [(t.idx, t.idx + len(t.text)) for t in head.subtree]
    return [m for m in numbers(text) if m != n and any(a <= m.start < b for a, b in spans)]


def _joined_work(text: str, n: Number) -> str | None:
    """The verb of work told with two amounts and no counted word ("ran 8 on Saturday and 10 this morning").

    A past verb opens the first amount's clause (``number_roles.done_verb``, the learner's or no subject)
    and a second amount follows in a clause with no verb of its own (``_verbless``): one tally in two parts.
    """
    later = [m for m in numbers(text) if m.start > n.end]
    if not later or unit_of(text, n) is not None:
        return None
    joined = _AND_THEN.search(text_before(text, later[0]))
    if joined is None or not _verbless(text, later[0], joined.start()):
        return None
    verb = done_verb(text, n)
    return None if verb is None or verb in PRO_VERBS else verb


_SPAN_UNIT = re.compile(r"^(?:days?|weeks?|fortnights?|months?|years?)\b", re.I)
_ONE_MORE = re.compile(r"\s+(?:more|extra|additional)\s+[A-Za-z]+\b(?!\s*[:,?])(?![^?]*\?)", re.I)
"""After "one": one more of a counted thing, told as work done ("one more hour with my tutor"); not a turn of
talk ("One more question: …", "one more thing, can you …")."""


def _pace(text: str, factor: re.Match[str]) -> Amount | None:
    """The amount done a pace told as a factor comes with ("doubled my pace: 10 problems!"), or None.

    A factor and an amount of its own in one statement: the factor grades a rate, the amount is the work done,
    which adds (the total itself doubled needs no number; one told "to" or "now" is ``told_totals``'). Not a
    span ("doubled in 3 weeks"), a percent, the old value ("halved from 800") or "one".
    """
    for n in numbers(text):
        if factor.start() <= n.start < factor.end() or text[n.start : n.end].lower() in ("one", "zero"):
            continue
        unit = unit_of(text, n)
        span = unit is not None and (unit == "percent" or _SPAN_UNIT.match(unit))
        if span or re.search(r"\bfrom\s+$", text_before(text, n)):
            continue
        return Amount(delta=n.value, unit=unit)
    return None


_FRACTIONS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "fifth": 0.2, "tenth": 0.1}
_BY_FRACTION = re.compile(rf"\bby\s+(?:(?:a|one)\s+)?(?P<part>{'|'.join(_FRACTIONS)})\b", re.I)
"""A change by a fraction of the value: "cut the budget by a quarter", "raised by a third"."""
_MORE = frozenset({"more", "higher", "bigger", "larger", "greater", "longer", "up"})
_THAN_BEFORE = re.compile(
    r"^\s*(?:%|per\s*cent|percent)?\s*(?:[A-Za-z]+\s+)?(?P<way>more|higher|bigger|larger|greater|longer|up|less"
    r"|lower|smaller|shorter|fewer|cheaper|down)\s+(?:than|from|on|compared\s+(?:to|with))\s+(?:before|previously"
    r"|originally|it\s+was|last\s+\w+|what\s+it\s+was|the\s+(?:old|original|previous|first)|(?:my|our|the)"
    r"\s+(?:old|original|previous|first)|(?:it|its|the)\s+(?:original|old))\b",
    re.I,
)
"""After an amount: a change against the old value ("15% more than before", "£50 less than last term")."""
_CONTINUES = re.compile(r"^\s*(?:and|plus|&|\+)\s+(?:then\s+)?$", re.I)
"""A message that opens on "and" and an amount continues a running count ("and seven tonight")."""
_AND_THEN = re.compile(r"\b(?:and|plus|then)\s+(?:then\s+)?(?:another\s+)?$|&\s*$|\+\s*$", re.I)
"""Right before an amount whose clause has no verb, after a change: its verb is the change's ("Did another
six hours yesterday and four this morning": two amounts of one change)."""


def _continued(change: Amount, value: float, unit: str | None) -> Amount:
    """``change`` with the amount of its elided second clause added the same way (its unit, or none named).

    "Did another six hours yesterday and four this morning" is +10 hours; another counted thing ("… and
    3 modules") is no part of it, so the first amount stands alone.
    """
    if change.delta is None or (unit is not None and change.unit is not None and unit != change.unit):
        return change
    way = 1.0 if change.delta > 0 else -1.0
    total = change.delta + way * value
    return Amount(delta=total, unit=change.unit or unit, done=change.done, stock=change.stock)


_FRACTION_WAY = re.compile(
    rf"\b(?:a|one)\s+(?P<part>{'|'.join(_FRACTIONS)})\s+(?P<way>more|higher|bigger|larger|greater|longer|up"
    r"|less|lower|smaller|shorter|fewer|cheaper|down)\b(?!\s+than)",
    re.I,
)
"""A fraction and its direction with no "by": "a third less", "a quarter more per week"."""


def _fraction(text: str, sign_at: Callable[[int], int | None] | None) -> Amount | None:
    """A change by a fraction of the value ("cut by a quarter": x0.75), signed by ``sign_at``, or None."""
    way = _FRACTION_WAY.search(text)
    planned = way is not None and NOT_DONE.search(clause_before(text, way.start()))
    if way is not None and not planned and not names_a_total(text):
        sign = 1 if way["way"].lower() in _MORE else -1
        return Amount(factor=1 + sign * _FRACTIONS[way["part"].lower()])
    match = _BY_FRACTION.search(text)
    if match is None or sign_at is None or NOT_DONE.search(clause_before(text, match.start())):
        return None
    sign = sign_at(match.start())
    if sign is None or names_a_total(text):
        return None
    return Amount(factor=1 + sign * _FRACTIONS[match["part"].lower()])


def _measures_a_change(text: str, n: Number) -> bool:
    """True when the percentage at ``n`` measures a verb's change (the parse): "raising the budget 15%".

    The percent is the verb's measure (``npadvmod``; of "up" in "bumped it up 10%"; or its object when
    the parse takes a noun for a verb), not an adjective's ("15% more confident"); ``amount_change`` asks
    a direction word of it too ("got 15% on the test" has none).
    """
    doc = parse(text)
    token = next((t for t in doc if t.idx >= n.end and t.lower_ in {"%", "percent", "per", "cent"}), None)
    if token is not None and token.lower_ == "per":
        token = token.head
    measure = token is not None and token.dep_ in {"npadvmod", "dobj"}  # "increasing my tutoring spend 50%"
    return bool(measure and token.head.pos_ in {"VERB", "ADP", "ADV"})


def _of_a_quality(text: str, n: Number) -> bool:
    """True when "more"/"less" after the percentage at ``n`` grades an adjective or adverb (the parse)."""
    way = next((t for t in parse(text) if t.idx >= n.end and t.lower_ in {"more", "less"}), None)
    return way is not None and way.dep_ == "advmod" and way.head.pos_ in {"ADJ", "ADV"} and way.head.i > way.i


def _verbless(text: str, n: Number, since: int = 0) -> bool:
    """True when the amount's clause from ``since`` has no verb (the parse): "and seven tonight, …"."""
    doc = parse(text)
    for token in doc:
        if token.idx < since:
            continue
        if token.idx >= n.start and token.text in {",", ".", ";", "!", "?"}:
            return True
        if token.pos_ in {"VERB", "AUX"}:
            return False
    return True


def _used_of_given(text: str, n: Number, changes: list[Amount]) -> Amount | None:
    """Units of a stock the statement gave, then used by work done ("…, and I had one more"), or None.

    "my tutor gave me 2 free sessions, and I had one more today": the second amount counts the stock's unit
    (named or left out) and its verb in the past is the work that uses it (``number_roles.done_verb``).
    """
    given = next((c for c in changes if c.stock == "given"), None)
    if given is None or not_done(text, n.start) or unit_of(text, n) not in (None, given.unit):
        return None
    return None if done_verb(text, n) is None else Amount(delta=-n.value, unit=given.unit, stock="used")


def _together(changes: list[Amount]) -> Amount | None:
    """One change for the amounts a statement adds and takes away ("4 dropped out but 9 new joined": +5).

    Two amounts of one direction are one change told twice as often as two ("another 60, so 60
    more words"), so only amounts of opposite directions are summed; the unit is theirs when they name one.
    """
    if len(changes) < 2 or len({c.delta is not None and c.delta > 0 for c in changes}) < 2:
        return changes[0] if changes else None
    units = {c.unit for c in changes}
    unit = units.pop() if len(units) == 1 else None  # "people" and "new ones": what the old fact names
    delta = sum(c.delta or 0.0 for c in changes)
    # units of a stock given and used: still a change of the stock only
    stock = None if not all(c.stock for c in changes) else "given" if delta > 0 else "used"
    return Amount(delta=delta, unit=unit, stock=stock)
