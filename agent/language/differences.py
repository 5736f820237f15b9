"""Changes stated as a difference, and the value they lead to (``dateparser`` for dates).

A learner often tells a new value as a change of the old one: "the professor postponed the
final by a week", "my employer cut the course budget by 200 euros", "the exam moved two
days earlier", "another 60 Polish words went into the deck", "the credit is cut in half".
``resolve_change`` reads such a statement against the earlier statement it changes ("My
statistics final is on June 12.") and gives the new value ("June 19"), so the fact store can
write it into the new fact ("… (now June 19)"); a fact changed before is changed from that
resolved value, not from its first number.

- a **duration** counts after "by", before "earlier"/"later", or as "N more days" /
  "another week" with a direction verb ("slips by three more days", "pushed back another
  week"); "for two weeks", "in 3 days" are no differences;
- an **amount** counts after "by" ("by 200 euros", "by 2") or as an increment without "by"
  (``agent.language.quantities.amount_change``: "another 60", "12 more", "18 new stars",
  "added 150 euros", "cut 250 euros from", "doubled", "cut in half"); numbers in words too;
- the **direction** is read from the verb or adverb of the change (``agent.language.directions``).
  This one is a short word list on purpose: MiniLM does not encode which way a change goes
  (leave-one-out over direction exemplars was 0%, docs/decisions/language-layer.md);
  with no direction word the change is not resolved (never a guess), except a date moved *by* a
  span with a verb of motion and no direction ("shift the draft deadline by two weeks"): English
  tells an earlier date ("brought forward", "earlier"), so such a move is put off (``_moved_by``);
- a date in digits is written back in the learner's format (``when.date_like``: "2026-07-14");
- an amount applies to the old fact's number that counts the same thing (``agent.language.old_amounts``
  chooses it: a value held, not a price, a label or a threshold): when both name
  what they count ("60 Polish words" and "150 words"), the two are compared by MiniLM
  (``old_amounts.UNIT_MIN``, chosen by leave-one-out: ``python -m bench.increment_knobs``);
- an increment told as an ellipsis ("Did eleven more over the weekend", "Lost 20 last night")
  is far by meaning from the total it changes: ``counts_alike`` and ``agent.language.change_owner``
  (``names_a_thing``, ``names_another_owner``, ``names_another_thing``) let the fact store take the newest
  value it can change (``LOOSE_CHANGE_MIN``), never another owner's ("My dog gained 2 kilos");
- dates are read relative to when the earlier statement was said (``dateparser``,
  future dates preferred), and only phrases with a month, a weekday or digits count.
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from dateutil.relativedelta import relativedelta

from agent.language.amount_directions import direction
from agent.language.number_owners import number_owner
from agent.language.number_roles import names_a_bound, stated_as_bound
from agent.language.numerals import current_value, number_text, numbers, without_current
from agent.language.old_amounts import LEFT_AFTER, NONE_DONE, TARGET_NAMED, a_span, old_amount, scaled
from agent.language.portions import REMAINING
from agent.language.shifts import Shift, amount_shift, shift
from agent.language.units import duration_factor, is_money, same_head, unit_of
from agent.language.when import date_like, dates_in

CHANGE_MIN = 0.42
"""A change applies to a current fact at least this close to it (MiniLM cosine of the statements;
``agent.memory.fact_changes.changed_fact``). Leave-one-out: ``python -m bench.increment_knobs`` (284
statements, session 40: 0.42 with ``UNIT_MIN`` 0.6; "my dog gained 2 kilos", 0.43 from "I weigh 82
kilos", is kept apart by its owner, ``change_owner.names_another_owner``)."""
DATE_CHANGE_MIN = 0.4
"""… for a date moved by a duration: "The tutor moved the portfolio deadline two days earlier"
changes "My portfolio is due on June 10" at 0.44; another thing's date moved ("my brother's
driving lessons moved a week later") reached 0.39 over the learner's test date."""
NEWER_MARGIN = 0.18
"""… or to a newer open fact about the same thing as the closest, at most this much less close
(``changed_fact``: the older of two open values is not the one a change applies to)."""
LOOSE_CHANGE_MIN = 0.0
"""… or, when no fact is that close, the newest fact at least this close whose number counts what
the change counts (or the change names nothing: "Did eleven more over the weekend", 0.17 from "I've
solved 85 LeetCode problems") and whose owner the change does not contradict ("My dog gained 2 kilos")."""
NAMED_LOOSE_MIN = 0.02
"""… and when the change names its thing ("HR cut everyone's training budget by €300", 0.35 from "My
employer gives me a training budget of €800"), at least this close: naming the old fact's thing is the
evidence ("They pushed the final back four days", 0.13 from "My organic chemistry final is on December
10"; "The football final" names another), so leave-one-out left only a floor (0.32 before session 40)."""
LOOSE_MARGIN = 0.08
"""… and when several facts are that loose a fit, the closest only when at least this much closer than the
next (else the newest when it is newer than all the others, else none): "My supervisor granted me a
two-week extension" is 0.22 from the thesis defence and 0.19 from the dissertation's due date."""
DONE_MIN = 0.4
"""Work done with no direction word ("Translated 15 pages on the plane") adds to a total of the same
counted word told with the same verb ("I've translated 120 pages", 0.6) at least this close."""


_OF_REMAINING = re.compile(rf"\bof\s+(?:{REMAINING.pattern})", re.I)
"""A part of what is left ("a third of what was left"), not a span ("cut by 25% for the rest of the year")."""


def _told_left(base: str) -> bool:
    """True when ``base`` tells what is left of something ("$400 left", "none of the 40 started yet")."""
    return bool(NONE_DONE.search(base)) or any(LEFT_AFTER.match(base[n.end :]) for n in numbers(base))


def counts_alike(new: str, old: str) -> bool:
    """False when every number of ``old`` names what it counts and none is what the change counts.

    "My dog gained 2 kilos" counts kilos like "I weigh 82 kilos"; "Lost 40 rating points" is no
    change of "34 story points" only by its unit when "My rating is 1210" names none.
    """
    change = shift(new)
    if change is None or change.unit is None:
        return change is not None
    if change.unit == "percent" and not _PART_OF.search(new):
        return True  # "15% more", "up 10 percent": a part of whatever the old value counts (``_relative``)
    base, now = without_current(old), current_value(old) or ""
    units = [unit_of(base, n) for n in numbers(base) if not a_span(base, n)]  # "over 3 weeks" counts nothing
    units += [unit_of(now, n) for n in numbers(now)]  # "(now $480)": dollars
    # "a 90-minute session" of "30 hours into the course": a time in another unit (``_in_the_old_unit``)
    alike = [u for u in units if u and (same_head(u, change.unit) or duration_factor(change.unit, u))]
    return not all(units) or bool(alike)


def only_bounds(new: str, old: str) -> bool:
    """True when every number of ``old`` is a target, a bound or a price and ``new`` names none.

    "Churned out 730 more" continues the learner's count, not "The word limit for the thesis is 25,000"
    (``number_roles.stated_as_target``); "The limit went up by 5,000" names it.
    """
    if TARGET_NAMED.search(new) or names_a_bound(new):
        return False  # "knocks 800,000 off the fee": the change names the bound it changes
    base = without_current(old)
    found = numbers(base)
    return bool(found) and current_value(old) is None and all(stated_as_bound(base, n) for n in found)


def anothers_count(old: str) -> bool:
    """True when every number of ``old`` is another person's ("My friend has solved 310 problems")."""
    base = without_current(old)
    found = numbers(base)
    theirs = [number_owner(base, n.start) == "another" for n in found]
    return bool(found) and current_value(old) is None and all(theirs)


_A_PERCENT = re.compile(r"%|\bper\s*cent\b|\bpercent\b", re.I)
_POINTS = re.compile(r"(?:percentage\s+)?(?:points?|pts)\b", re.I)
"""A percentage changes by percent or points only; a count added to it is no change of it."""
_PART_OF = re.compile(r"\d\s*(?:%|per\s*cent|percent)\s+of\b", re.I)
"""A percentage of a named whole ("another 10% of the course"): progress in points, not a relative change."""


def _relative(change: Shift, old: str, new: str) -> Shift:
    """A change in percent of a value that is no percent is relative to it: "15% more pages" is x1.15.

    Points add to a percent only ("another 15%" of "I'm 40% through the course"); of a count, an amount
    of money or a time a percentage is a part of the value itself, whoever changes it.
    """
    if change.unit != "percent" or change.amount is None or _PART_OF.search(new):
        return change
    base = without_current(old)
    if current_value(old) is None and any(unit_of(base, n) == "percent" for n in numbers(base)):
        return change
    if (current_value(old) or "").strip().endswith("%"):
        return change
    return Shift(factor=1 + change.amount / 100)


def _in_the_old_unit(change: Shift, old: str) -> Shift:
    """An amount of time told in another unit than the old value's, in the old value's unit.

    "90 minutes" of "14 hours" is 1.5 hours; the old unit is its only timed number's. A value KAG computed
    names no unit of its own: no conversion (missed beats wrong).
    """
    if change.amount is None or change.factor is not None:
        return change
    if current_value(old) is not None:
        return change  # "… 90 minutes each (now 17)": the 17 counts a unit this fact never names
    units = [unit_of(old, n) for n in numbers(old)]
    timed = [(u, f) for u in units if (f := duration_factor(change.unit, u)) is not None]
    if len(timed) != 1:
        return change
    unit, factor = timed[0]
    return replace(change, amount=round(change.amount * factor, 4), unit=unit)


def resolve_change(
    new: str, old: str, *, old_at: datetime, new_at: datetime, close: bool = False
) -> str | None:
    """The value ``new`` gives ``old`` by a stated difference ("June 19", "400"), or None.

    None unless ``new`` states a difference with a direction and ``old`` holds exactly one
    value of its kind (one date for a duration, one number counting the same thing for an
    amount; a fact changed before: its resolved "(now …)" value); None too when ``new`` names
    its own date ("moved to May 15"): nothing to compute. ``close``: the two statements are close by
    meaning (``CHANGE_MIN``), so money spent may draw from a sum held (``old_amount``).
    """
    change = shift(new)
    if change is None:
        return None
    if change.time is not None:
        if dates_in(new, new_at, days_only=True):
            return None  # "moved to May 15": its own date, nothing to compute
        found = dates_in(current_value(old) or without_current(old), old_at)
        if len(found) == 1:
            when = found[0] + change.time + relativedelta(months=change.months)
            return date_like(when, found[0], current_value(old) or without_current(old))
        if found or (change := amount_shift(new)) is None:
            return None  # "Another 9 days done" of "I'm at 61 days": days counted, not a date moved
    change = _in_the_old_unit(_relative(change, old, new), old)
    if _OF_REMAINING.search(new) and current_value(old) is None and not _told_left(without_current(old)):
        return None  # "a third of what was left": something was drawn before that KAG never read
    amount = old_amount(change, old, new, close=close)
    if amount is None:
        return None
    value, like = amount
    points = change.unit == "percent" or bool(_POINTS.match(change.unit or ""))
    if change.factor is None and not points and _A_PERCENT.search(like):
        return None  # "learned 25 new ones" is no change of "10% of my kanji are gone": a count, no percent
    now, base = current_value(old), without_current(old)
    # money left is a fund, told spent or added by its own words ("took $380 of it")
    left = now.endswith(" left") if now else any(LEFT_AFTER.match(base[n.end :]) for n in numbers(base))
    left = left or (not now and bool(NONE_DONE.search(base)))  # "has 40 questions and I haven't started any"
    left = left and not is_money(unit_of(base, numbers(base)[0]) if numbers(base) else None)
    tail = " left" if left else ""  # what is left stays what is left through the changes that follow
    if change.factor is not None:
        return number_text(scaled(value, change.factor, like), like) + tail
    amount = change.amount or 0.0
    if left:
        # "Memorised 45 more" of "I have 320 verses left": work done uses up what is left
        amount = _left_change(new) or (abs(amount) if _adds(new) else -abs(amount))
    total = value + amount
    # a count or an amount held goes no lower than zero: "spent another $35" is no change of "costs $12"
    return None if total < 0 <= value else number_text(total, like) + tail


_ADDS = frozenset(
    {"add", "import", "put", "gain", "receive", "buy", "download", "assign", "give", "join", "borrow", "top"}
)
"""Lemmas of verbs that add to what is left ("Added 20 new cards to the pile"); other work uses it up."""


_ARRIVED = re.compile(
    r"^\s+(?:new\s+)?(?:[a-z]+\s+){0,2}?(?:became|become|come|came|arrived|showed\s+up|popped\s+up|piled\s+up|"
    r"were\s+added|got\s+added|landed)\b",
    re.I,
)
"""After an amount: things that came onto a pile by themselves ("30 new ones became due", "12 arrived")."""
_CLAUSE_CUT = re.compile(r"\s*(?:[,;]|\bbut\b|\band\b|\bwhile\b)\s*", re.I)


def _left_change(new: str) -> float | None:
    """A statement's change of what is left when it tells work through it and things added, else None.

    "did 50 more but 30 new ones became due": 50 worked through and 30 come in, -20 in all; each
    amount read in its own clause (a verb that adds, or things that arrived: ``_adds``, ``_ARRIVED``).
    """
    found = [n for n in numbers(new) if direction(new, n) is not None or _ARRIVED.match(new[n.end :])]
    if len(found) < 2:
        return None
    total = 0.0
    for n in found:
        cuts = [m.end() for m in _CLAUSE_CUT.finditer(new, 0, n.start)]
        end = next((m.start() for m in _CLAUSE_CUT.finditer(new, n.end)), len(new))
        clause = new[cuts[-1] if cuts else 0 : end]
        arrived = _ARRIVED.match(new[n.end :]) is not None
        total += n.value if arrived or _adds(clause) else -n.value
    return total


def _adds(new: str) -> bool:
    """True when the verb of the change adds to a pile rather than working through it (``_ADDS``)."""
    import simplemma  # noqa: PLC0415

    return any(simplemma.lemmatize(w.lower(), lang="en") in _ADDS for w in re.findall(r"[A-Za-z]+", new))
