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
- an amount applies to the old fact's number that counts the same thing: when both name
  what they count ("60 Polish words" and "150 words"), the two are compared by MiniLM
  (``UNIT_MIN``, chosen by leave-one-out: ``python -m bench.increment_knobs``);
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

from agent.language.number_owners import change_is_anothers, number_owner
from agent.language.number_roles import (
    PRO_VERBS,
    a_price,
    held,
    names_a_bound,
    of_a_total,
    stated_as_bound,
    stated_as_target,
    stated_by,
)
from agent.language.numerals import (
    SIGNS,
    Number,
    current_value,
    number_text,
    number_written,
    numbers,
    without_current,
)
from agent.language.portions import REMAINING, fraction_of
from agent.language.shifts import Shift, amount_shift, shift
from agent.language.units import duration_factor, is_money, same_head, similar_units, unit_of
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
UNIT_MIN = 0.6
"""An amount applies to an old number whose unit is at least this close (MiniLM cosine, or the
same counted word)."""


def _old_amount(change: Shift, old: str, new: str = "") -> tuple[float, str] | None:
    """The number of ``old`` that ``change`` applies to and how it is written (its resolved value first).

    A whole another number is part of ("8 of the 20 mediums": 20) is never the value, nor a target
    unless the change names one ("cut the listening target in half"); an amount in percent without
    "by" ("another 15%") adds points to a percent only; a change told before and never resolved
    ("Gained 45 points", no "(now …)") holds no total.
    """
    base = without_current(old)
    if change.stock not in (None, "of_it") and not _a_stock(old, money=change.stock == "spent"):
        return None  # "used 3 of them" of "I've finished 18 novels": a tally of work is no stock
    told = shift(base) if current_value(old) is None else None
    # "I prepaid 20 lessons" reads as work done, but what was bought is the stock a draw changes
    bought = told is not None and (told.done is not None or told.stock == "given") and bool(change.stock)
    # "read 34 pages tonight": one amount of work of a counted word is a tally a change continues
    tally = told is not None and bool(told.done) and told.unit is not None and len(numbers(base)) == 1
    if told is not None and not _A_TOTAL.search(base) and not bought and not tally:
        return None  # "Gained 45 points over the weekend", never resolved: no total to change
    # "burned a third of it in two days", "chapter four is at 5,100 words", "between the five of us"
    found = [n for n in numbers(base) if not _a_span(base, n) and not _OF_US.match(base[n.end :])]
    if len(found) > 1 or (found and _LABELS_A_THING.match(base[found[0].end :])):
        found = [n for n in found if not _a_label(base, n)]  # "forgot the unit 4 drills" counts nothing
    # "calc 1 is eating me alive"; "bought the atlas for 40 euros": a price is no sum held
    found = [n for n in found if not _names_after_noun(base, n) and not a_price(base, n)]
    if len(found) > 1 and not change_is_anothers(new):
        # "My stipend is 500 euros; my flatmate gets 650": the learner's change, the learner's number
        found = [n for n in found if number_owner(base, n.start) != "another"] or found
    if len(found) == 1 and not _TARGET_NAMED.search(new) and _THRESHOLD.search(_clause_of(base, found[0])):
        return None  # "I'm studying endgames to get past 1500": a threshold, no total
    totals = of_a_total(base, found)
    units = [unit_of(base, n) for n in found]
    for i in range(len(found) - 1):
        if found[i + 1] in totals and units[i] is None:
            units[i] = units[i + 1]  # "8 of the 20 LeetCode mediums": the 8 counts mediums too
    for i in range(1, len(found)):
        if units[i] is None and units[i - 1] is not None and _ELIDED.match(base[found[i].end :]):
            # "The course asks for 40 hours, and I've done 18.": the 18 counts hours too, and is the count
            # of the whole told first (a requirement, a challenge's size), as in "18 of the 40 hours";
            # not when it is the target itself ("I've read 14 books and I'm aiming for 30.")
            units[i] = units[i - 1]
            if not stated_as_target(base, found[i]):
                totals.append(found[i - 1])
    written = [number_written(base, n) for n in found]
    stated, now = found, current_value(old)
    if now is not None:
        bare = re.fullmatch(rf"\s*[{SIGNS}]?\s*([\d,.]+)\s*%?\s*(?:left\s*)?", now)
        found = [n for n in numbers(now) if bare is not None and (n.start, n.end) == bare.span(1)]
        if len(found) != 1:
            return None
        # "Cut 20% of the list (now 1,200)": the percent is the change's, the value counts what it did
        skip = {"percent"} if not now.strip().endswith("%") else set()
        units = [u for u, n in zip(units, stated, strict=True) if u and n not in totals and u not in skip]
        units = units or [None]
        written, totals = [now], []
    if change.done and not any(units) and not (change.done in PRO_VERBS and change.unit is None):
        return None  # "I did 9 myself" of "I've worked through 18 of the problems": neither names its word
    if change.unit is not None and any(units):
        named = [(i, u) for i, u in enumerate(units) if u]
        sims = similar_units(change.unit, [u for _, u in named])
        floor = 1.0 if change.done else UNIT_MIN  # work done adds to a total of the same word only
        close = {i for (i, _), s in zip(named, sims, strict=True) if s >= floor}
        if now is not None:
            return (found[0].value, written[0]) if close else None
        found = [n for i, n in enumerate(found) if i in close]
    found = [n for n in found if n not in totals]
    if len(found) > 1:
        running = [n for n in found if _RUNNING_AFTER.match(base[n.end :])]
        # "27 katas so far, the last took two nights": the running total
        found = running if len(running) == 1 else _stated_values(base, found)
    if len(found) != 1:
        return None
    running = (
        _RUNNING.search(base) or _LEFT_AFTER.match(base[found[0].end :]) or _NONE_DONE.search(base)
    )  # work done uses up what is left, or the whole when none is done yet
    verb = stated_by(base, found[0])
    # "I did 6" of "I've worked through 18" or "I'm at 95 problems solved": a pro-verb stands for the work
    worked = change.done in PRO_VERBS and (verb != "be" or _DONE_AFTER.match(base[found[0].end :]))
    # "my draft is at 8,200 words" and "wrote 900 words": a text's length, which writing adds to
    at_level = verb == "be" and bool(_AT_LEVEL.search(base[: found[0].start]))
    worked = worked or (change.done in _WRITES and at_level)
    if change.done and now is None and verb != change.done and not running and not worked:
        # "I analysed 3 games" is no change of "I've played 300 games", nor "Reviewed 200 cards" of "My
        # deck has 900 cards" (a state: MiniLM does not tell work that adds from work that uses)
        return None
    if now is None and (part := fraction_of(base, found[0].start)) is not None:
        # "I've done 2/5 of the 60 exercises": the count is that part of the named total
        return _scaled(found[0].value, part, number_written(base, found[0])), number_written(base, found[0])
    return found[0].value, written[0] if now is not None else number_written(base, found[0])


_AT_LEVEL = re.compile(r"\bat\s+(?:about\s+|around\s+|roughly\s+)?$", re.I)
"""Right before a count: the level a thing is at ("the draft is at 8,200 words")."""
_WRITES = frozenset({"write", "type", "draft"})
"""Lemmas of work that makes the text it counts (a closed class, as direction words are: MiniLM does not tell
work that adds, "wrote 900 words", from work through what is there, "reviewed 200 cards")."""
_DONE_AFTER = re.compile(r"^\s*(?:[A-Za-z]+\s+){1,3}?[a-z]+ed\b")
"""After a count: the participle of the work it counts ("95 problems solved", "40 katas completed")."""
_THRESHOLD = re.compile(
    r"\b(?:get\s+(?:past|to|above|over|below|under)|reach|hit|pass|break|above|over|below|under|at\s+least)\s+"
    r"(?:\w+\s+)?$",
    re.I,
)
"""Right before a number: a threshold to pass, not a value ("to get past 1500")."""


def _clause_of(text: str, n: Number) -> str:
    """The words before ``n`` in its clause."""
    head = re.sub(r"(?<=\d)[.,](?=\d)", "0", text[: n.start])
    return text[max(head.rfind(c) for c in ".;:!?,") + 1 : n.start]


_ELIDED = re.compile(
    r"\s*(?:of\s+(?:them|those|these|it))?\s*(?:so\s+far|already|now|to\s+date|in\s+total|total)?\s*(?:[.;!?)]|$)",
    re.I,
)
"""After a number whose counted word is left out, the clause ends ("… and I've done 18.", "18 so far")."""
_A_TOTAL = re.compile(
    r"\b(?:so\s+far|in\s+total|to\s+date|altogether|overall|have|has)\b|'ve\b"
    rf"|\b(?:got|received|given)\s+(?:[A-Za-z]+\s+)?[{SIGNS}]?\d[\d,.]*\s*(?:[A-Za-z]+\s+)?"
    r"(?:(?:in|of)\s+\w|(?:put\s+|set\s+)?(?:aside|away)\b|saved\b)",
    re.I,
)
"""A total although it reads as a change ("I've saved €2,400 so far", "I've put aside $350",
"we were given 250 USD of cloud credits", "got 90 euros put aside": a grant or savings held, not a change of
something told before)."""
_RUNNING = re.compile(r"\b(?:so\s+far|in\s+total|total|to\s+date|altogether|overall|till\s+now)\b", re.I)
"""A total marked as running ("63 km so far", "12.5 hours in total"): work done of its counted word adds
to it, whatever the verb ("Walked 8.5 km" of "I've covered 63 km so far")."""
_RUNNING_AFTER = re.compile(
    r"^\s*(?:[A-Za-z]+\s+){0,2}?(?:so\s+far|in\s+total|total|to\s+date|altogether|(?:till\s+)?now)\b", re.I
)
"""Right after a number and its counted word: the running total of several numbers ("27 katas so far")."""
_TARGET_NAMED = re.compile(r"\b(?:target|goal|aim|limit|cap|quota)s?\b", re.I)
"""A change of a target names it ("bump the weekly listening goal up by 30 minutes")."""


def _stated_values(old: str, found: list[Number]) -> list[Number]:
    """Of several numbers of ``old``, the value it states: not a target or a price ("… to get past 1500").

    Still several (none a target, or all): the first when none counts a thing of its own
    ("I read 20 pages in 2 hours" names both: no choice).
    """
    kept = [n for n in found if not stated_as_target(old, n)] or found
    if len(kept) > 1 and any(unit_of(old, n) for n in kept[1:]):
        return kept
    return kept[:1]


def _a_stock(old: str, *, money: bool = False) -> bool:
    """True when ``old`` holds a stock a draw or a gift changes (``Shift.stock``).

    What is left ("We have $1,500 left", "has 40 questions and I haven't started any"), a number held by
    its verb ("I prepaid 20 lessons", ``number_roles.held``; not for ``money`` spent: "I have $620 in my
    laptop fund" is no purse a pizza is paid from), or a value KAG computed from a draw, a gift or a loss
    of one ("Spent $200 on motors (now $1,300)").
    """
    base, now = without_current(old), current_value(old)
    if now is not None:
        before = shift(base)
        drawn = before is not None and (before.stock or (before.amount or 0) < 0 or (before.factor or 1) < 1)
        return now.endswith(" left") or drawn
    found, given = numbers(base), shift(base)
    if given is not None and given.stock == "given" and not money:
        return True  # "My tutor gave me 20 practice tests": units given to the learner are held
    return bool(_NONE_DONE.search(base)) or any(
        _LEFT_AFTER.match(base[n.end :]) or (held(base, n) and not money) for n in found
    )


_OF_REMAINING = re.compile(rf"\bof\s+(?:{REMAINING.pattern})", re.I)
"""A part of what is left ("a third of what was left"), not a span ("cut by 25% for the rest of the year")."""


def _told_left(base: str) -> bool:
    """True when ``base`` tells what is left of something ("$400 left", "none of the 40 started yet")."""
    return bool(_NONE_DONE.search(base)) or any(_LEFT_AFTER.match(base[n.end :]) for n in numbers(base))


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
    units = [unit_of(base, n) for n in numbers(base) if not _a_span(base, n)]  # "over 3 weeks" counts nothing
    units += [unit_of(now, n) for n in numbers(now)]  # "(now $480)": dollars
    return not all(units) or any(same_head(u, change.unit) for u in units if u)


def only_bounds(new: str, old: str) -> bool:
    """True when every number of ``old`` is a target, a bound or a price and ``new`` names none.

    "Churned out 730 more" continues the learner's count, not "The word limit for the thesis is 25,000"
    (``number_roles.stated_as_target``); "The limit went up by 5,000" names it.
    """
    if _TARGET_NAMED.search(new) or names_a_bound(new):
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


_OF_US = re.compile(r"\s+of\s+us\b", re.I)
"""After a number of people ("between the five of us"): who did it, no count of the thing."""
_LABELS_A_THING = re.compile(r"\s+(?!(?:so|now|and|or|to|in|of|at|by|for|is|was|are|were)\b)[A-Za-z]", re.I)
"""After a label's number, a noun it names ("the unit 4 drills"): the label is part of a name."""
_LABEL_BEFORE = re.compile(r"\b(?:chapter|unit|lesson|level|part|section|module|volume|grade)\s+$", re.I)
"""A number that names, not counts: "chapter four", "unit 3", "level 2" (its noun before it)."""


_SPAN = re.compile(r"\b(?:in|within|over|after)\s+(?:the\s+(?:last|past)\s+)?$", re.I)
_SPAN_UNIT = re.compile(r"^(?:days?|weeks?|fortnights?|months?|years?)\b", re.I)


def _a_span(text: str, n: Number) -> bool:
    """True when the number ``n`` tells when or how fast ("in two days", "over 3 weeks"), not a count."""
    unit = unit_of(text, n)
    return bool(unit and _SPAN_UNIT.match(unit) and _SPAN.search(text[: n.start]))


def _names_after_noun(text: str, n: Number) -> bool:
    """True when the number ``n`` names the noun before it, with no counted word after (the parse).

    "calc 1 is eating me alive", "Room 12 is where I study": a number told after its noun is part of a name
    ("3 chapters" counts; "chapter 3" names), not a currency's code ("CHF 1,800"). Digits only: "Season two of
    …" is left to the words.
    """
    from agent.language.grammar import parse  # noqa: PLC0415 - the parser loads only when needed

    token = next((t for t in parse(text) if t.idx == n.start), None)
    if token is None or token.i == 0 or token.dep_ != "nummod" or not token.text[:1].isdigit():
        return False
    prev, unit = token.nbor(-1), unit_of(text, n)
    if (token.head.i > token.i or (prev == token.head and unit)) and re.fullmatch(r"[A-Z]{2,6}", prev.text):
        return True  # "the HSK 4 prep course": a level of a test named by its letters, before the noun
    if unit is not None or token.head.i > token.i:
        return False
    return not re.fullmatch(r"[A-Z]{3}", token.head.text)  # "CHF 1,800": a currency's code, an amount


def _a_label(text: str, n: Number) -> bool:
    """True when the number ``n`` labels the noun before it ("part 3 is at 2,900 words": 3 is a name)."""
    return bool(_LABEL_BEFORE.search(text[: n.start]))


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


def resolve_change(new: str, old: str, *, old_at: datetime, new_at: datetime) -> str | None:
    """The value ``new`` gives ``old`` by a stated difference ("June 19", "400"), or None.

    None unless ``new`` states a difference with a direction and ``old`` holds exactly one
    value of its kind (one date for a duration, one number counting the same thing for an
    amount; a fact changed before: its resolved "(now …)" value); None too when ``new`` names
    its own date ("moved to May 15"): nothing to compute.
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
    amount = _old_amount(change, old, new)
    if amount is None:
        return None
    value, like = amount
    points = change.unit == "percent" or bool(_POINTS.match(change.unit or ""))
    if change.factor is None and not points and _A_PERCENT.search(like):
        return None  # "learned 25 new ones" is no change of "10% of my kanji are gone": a count, no percent
    now, base = current_value(old), without_current(old)
    # money left is a fund, told spent or added by its own words ("took $380 of it")
    left = now.endswith(" left") if now else any(_LEFT_AFTER.match(base[n.end :]) for n in numbers(base))
    left = left or (not now and bool(_NONE_DONE.search(base)))  # "has 40 questions and I haven't started any"
    left = left and not is_money(unit_of(base, numbers(base)[0]) if numbers(base) else None)
    tail = " left" if left else ""  # what is left stays what is left through the changes that follow
    if change.factor is not None:
        return number_text(_scaled(value, change.factor, like), like) + tail
    amount = change.amount or 0.0
    if left and not _adds(new):
        amount = -abs(
            amount
        )  # "Memorised 45 more" of "I have 320 verses left": work done uses up what is left
    total = value + amount
    # a count or an amount held goes no lower than zero: "spent another $35" is no change of "costs $12"
    return None if total < 0 <= value else number_text(total, like) + tail


_LEFT_AFTER = re.compile(r"^\s*(?:[\w'-]+\s+){0,4}?(?:left|remaining|to\s+go)\b", re.I)
"""After a number: what is still to do ("320 verses of the poem left", "14 chapters remaining")."""
_NONE_DONE = re.compile(
    r"\b(?:haven't|have\s+not|hasn't|has\s+not|not)\s+(?:yet\s+)?(?:started|begun|touched|done|opened|attempted)\b",
    re.I,
)
"""A size told with none of it done yet: all of it is what is left."""
_ADDS = frozenset(
    {"add", "import", "put", "gain", "receive", "buy", "download", "assign", "give", "join", "borrow", "top"}
)
"""Lemmas of verbs that add to what is left ("Added 20 new cards to the pile"); other work uses it up."""


def _adds(new: str) -> bool:
    """True when the verb of the change adds to a pile rather than working through it (``_ADDS``)."""
    import simplemma  # noqa: PLC0415

    return any(simplemma.lemmatize(w.lower(), lang="en") in _ADDS for w in re.findall(r"[A-Za-z]+", new))


def _scaled(value: float, factor: float, like: str) -> float:
    """``value`` times ``factor`` as precise as the learner's number ("40" less a third is "27", not "26.67").

    A whole number keeps one decimal only when the product has exactly one ("45" up 10% is "49.5").
    """
    product = value * factor
    if re.search(r"\d[.,]\d{1,2}(?!\d)", like) and not re.search(r"\d,\d{3}", like):
        return round(product, 2)
    return round(product, 1) if abs(product * 10 - round(product * 10)) < 1e-6 else float(round(product))
