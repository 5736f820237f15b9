"""Which number of an earlier statement a change applies to, and how it is written (``old_amount``).

"another 60 words" of "My draft is at 8,200 words", "spent 240 on the flights" of "my conference travel budget
is 900": of the numbers an old statement holds, the one that counts what the change counts, is a value held
(not a price, a threshold, a label, a span or another's), and, for work done with no direction word, is a
total of the same work. ``agent.language.differences`` computes the new value from it. Split from that
module by concern (the choice of the old number; that module reads the change and computes the result).
"""

from __future__ import annotations

import re

from agent.language.number_owners import change_is_anothers, number_owner
from agent.language.number_roles import (
    PRO_VERBS,
    of_a_total,
    stated_as_target,
    stated_by,
    work_got_done,
)
from agent.language.numerals import SIGNS, Number, current_value, number_written, numbers, without_current
from agent.language.portions import fraction_of
from agent.language.shifts import Shift, shift
from agent.language.stocks import a_price, held
from agent.language.units import similar_units, unit_of

UNIT_MIN = 0.6
"""An amount applies to an old number whose unit is at least this close (MiniLM cosine, or the
same counted word)."""


def old_amount(change: Shift, old: str, new: str = "", *, close: bool = False) -> tuple[float, str] | None:
    """The number of ``old`` that ``change`` applies to and how it is written (its resolved value first).

    A whole another number is part of ("8 of the 20 mediums": 20) is never the value, nor a target
    unless the change names one ("cut the listening target in half"); an amount in percent without
    "by" ("another 15%") adds points to a percent only; a change told before and never resolved
    ("Gained 45 points", no "(now …)") holds no total. Money spent draws from a sum held only when the
    statement is ``close`` by meaning to it ("spent 240 on the flights" of "my travel budget is 900").
    """
    base = without_current(old)
    # spent on what the sum is for ("on the flights" of "my travel budget"): the sum is a budget
    spent_close = close and change.stock == "spent" and _spent_on_its_purpose(new, old, change.unit)
    # "A full course costs 6,500": a price is no sum held, whatever is paid towards it
    spent_close = spent_close and not any(stated_by(base, n) in _PRICED for n in numbers(base))
    if change.stock == "of_them" and not _told_left(old):
        return None  # "listened to 5 of them" of "60 episodes in my queue": worked through what is left only
    drawn = change.stock not in (None, "of_it") and not spent_close
    if drawn and not _a_stock(old, money=change.stock == "spent"):
        return None  # "used 3 of them" of "I've finished 18 novels": a tally of work is no stock
    told = shift(base) if current_value(old) is None else None
    # "I prepaid 20 lessons" reads as work done, but what was bought is the stock a draw changes
    bought = told is not None and (told.done is not None or told.stock == "given") and bool(change.stock)
    # "read 34 pages tonight": one amount of work of a counted word is a tally a change continues
    tally = told is not None and bool(told.done) and told.unit is not None and len(numbers(base)) == 1
    into = any(_I_AM.search(base[: n.start]) and _INTO.match(base[n.end :]) for n in numbers(base))
    if told is not None and not _A_TOTAL.search(base) and not bought and not tally and not into:
        return None  # "Gained 45 points over the weekend", never resolved: no total to change
    # "burned a third of it in two days", "chapter four is at 5,100 words", "between the five of us"
    found = [n for n in numbers(base) if not a_span(base, n) and not _OF_US.match(base[n.end :])]
    # "I'm on page 61", "up to lesson 14": a position in a run of things counts the things done up to it
    position = {n.start: m["noun"] for n in found if (m := _POSITION.search(base[: n.start]))}
    if len(found) > 1 or (found and _LABELS_A_THING.match(base[found[0].end :])):
        found = [n for n in found if n.start in position or not _a_label(base, n)]  # "the unit 4 drills"
    # "calc 1 is eating me alive"; "bought the atlas for 40 euros": a price is no sum held
    found = [
        n for n in found if n.start in position or (not _names_after_noun(base, n) and not a_price(base, n))
    ]
    if len(found) > 1 and not change_is_anothers(new):
        # "My stipend is 500 euros; my flatmate gets 650": the learner's change, the learner's number
        found = [n for n in found if number_owner(base, n.start) != "another"] or found
    if len(found) == 1 and not TARGET_NAMED.search(new) and _THRESHOLD.search(_clause_of(base, found[0])):
        return None  # "I'm studying endgames to get past 1500": a threshold, no total
    totals = of_a_total(base, found)
    units = [position.get(n.start) or unit_of(base, n) for n in found]
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
        _RUNNING.search(base) or LEFT_AFTER.match(base[found[0].end :]) or NONE_DONE.search(base)
    )  # work done uses up what is left, or the whole when none is done yet
    verb = stated_by(base, found[0])
    # "I did 6" of "I've worked through 18" or "I'm at 95 problems solved": a pro-verb stands for the work
    # "I have 14 hours of practice logged": the participle after the count is the work it counts
    done_after = _DONE_AFTER.match(base[found[0].end :]) or work_got_done(base, found[0])
    worked = change.done in PRO_VERBS and (verb != "be" or bool(done_after))
    # "my draft is at 8,200 words" and "wrote 900 words": a text's length, which writing adds to
    at_level = verb == "be" and bool(_AT_LEVEL.search(base[: found[0].start]))
    # "I'm at 152 kanji", "I'm 30 hours into the course" and "learned 6 more kanji": the learner's own level
    into = into and verb == "be" and bool(_I_AM.search(base[: found[0].start]))
    mine_at = (at_level and bool(_I_AM_AT.search(base[: found[0].start]))) or into
    worked = worked or (change.done in _WRITES and at_level) or mine_at
    if change.done and now is None and verb != change.done and not running and not worked:
        # "I analysed 3 games" is no change of "I've played 300 games", nor "Reviewed 200 cards" of "My
        # deck has 900 cards" (a state: MiniLM does not tell work that adds from work that uses)
        return None
    if now is None and (part := fraction_of(base, found[0].start)) is not None:
        # "I've done 2/5 of the 60 exercises": the count is that part of the named total
        return scaled(found[0].value, part, number_written(base, found[0])), number_written(base, found[0])
    return found[0].value, written[0] if now is not None else number_written(base, found[0])


_POSITION = re.compile(
    r"\b(?:I'm|I\s+am|I've\s+(?:got|gotten|made\s+it)|I\s+got|now|currently|just)\s+(?:(?:[a-z]+ly|actually|now)\s+)?"
    r"(?:on|at|up\s+to|past|to)\s+"
    r"(?P<noun>(?-i:[a-z]+))\s+$",  # a common noun, never a name ("on Python 3")
    re.I,
)
"""Before a number: the learner's place in a run of numbered things ("I'm on page 61"): the count done."""
_PRICED = frozenset({"cost", "charge", "price"})
"""Lemmas of the verb of a price ("costs 6,500", "they charge 80"): what is paid, not a sum held."""
_PURPOSE_WORD = re.compile(r"[A-Za-z]{4,}")


def _spent_on_its_purpose(new: str, old: str, unit: str | None) -> bool:
    """True when what money was spent on shares a word with the sum ``old`` holds (its purpose).

    "spent 240 on the conference flights" of "my conference travel budget is 900"; not "spent 90 on a pizza"
    of "I've saved 2,000 for driving lessons" (a fund is drawn for its purpose; a purse for anything is told
    as money left). Lemmas of four letters or more, one inside the other ("print" and "printing").
    """
    import simplemma  # noqa: PLC0415

    def lemmas(text: str) -> set[str]:
        return {simplemma.lemmatize(w.lower(), lang="en") for w in _PURPOSE_WORD.findall(text)}

    found = numbers(new)
    spent_on = lemmas(new[found[0].end :] if found else new) - lemmas(unit or "")
    held_for = lemmas(without_current(old)) - lemmas(unit or "")
    return any(a == b or a in b or b in a for a in spent_on for b in held_for)


_AT_LEVEL = re.compile(r"\bat\s+(?:about\s+|around\s+|roughly\s+)?$", re.I)
"""Right before a count: the level a thing is at ("the draft is at 8,200 words")."""
_I_AM_AT = re.compile(r"\b(?:I'm|I\s+am)\s+(?:[a-z]+\s+){0,2}?at\s+(?:about\s+|around\s+|roughly\s+)?$", re.I)
"""Right before a count: the learner's own level ("I'm actually at 152 kanji")."""
_I_AM = re.compile(r"\b(?:I'm|I\s+am)\s+(?:[a-z]+\s+)?$", re.I)
_INTO = re.compile(r"^\s*(?:[A-Za-z]+\s+)?into\b", re.I)
"""After the count: how far the learner is into a thing ("I'm 30 hours into the course"): their level."""
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
TARGET_NAMED = re.compile(r"\b(?:target|goal|aim|limit|cap|quota)s?\b", re.I)
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


def _told_left(old: str) -> bool:
    """True when ``old`` tells what is left ("150 cards left", "350 overdue cards", "(now 230 left)")."""
    base, now = without_current(old), current_value(old)
    if now is not None:
        return now.endswith(" left")
    return bool(NONE_DONE.search(base)) or any(LEFT_AFTER.match(base[n.end :]) for n in numbers(base))


def _a_stock(old: str, *, money: bool = False) -> bool:
    """True when ``old`` holds a stock a draw or a gift changes (``Shift.stock``).

    What is left ("We have $1,500 left", "has 40 questions and I haven't started any"), a number held by
    its verb ("I prepaid 20 lessons", ``stocks.held``; not for ``money`` spent: "I have $620 in my
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
    return bool(NONE_DONE.search(base)) or any(
        LEFT_AFTER.match(base[n.end :]) or (held(base, n) and not money) for n in found
    )


_OF_US = re.compile(r"\s+of\s+us\b", re.I)
"""After a number of people ("between the five of us"): who did it, no count of the thing."""
_LABELS_A_THING = re.compile(r"\s+(?!(?:so|now|and|or|to|in|of|at|by|for|is|was|are|were)\b)[A-Za-z]", re.I)
"""After a label's number, a noun it names ("the unit 4 drills"): the label is part of a name."""
_LABEL_BEFORE = re.compile(r"\b(?:chapter|unit|lesson|level|part|section|module|volume|grade)\s+$", re.I)
"""A number that names, not counts: "chapter four", "unit 3", "level 2" (its noun before it)."""


_SPAN = re.compile(r"\b(?:in|within|over|after)\s+(?:the\s+(?:last|past)\s+)?$", re.I)
_SPAN_UNIT = re.compile(r"^(?:days?|weeks?|fortnights?|months?|years?)\b", re.I)


def a_span(text: str, n: Number) -> bool:
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


LEFT_AFTER = re.compile(
    r"^\s*(?:[\w'-]+\s+){0,4}?(?:left|remaining|to\s+go)\b"
    r"|^\s*(?:overdue|outstanding|pending|unread|unanswered|unreviewed|unmarked|ungraded)\b",
    re.I,
)
"""After a number: what is still to do ("320 verses of the poem left", "14 chapters remaining")."""
NONE_DONE = re.compile(
    r"\b(?:haven't|have\s+not|hasn't|has\s+not|not)\s+(?:yet\s+)?(?:started|begun|touched|done|opened|attempted)\b",
    re.I,
)
"""A size told with none of it done yet: all of it is what is left."""


def scaled(value: float, factor: float, like: str) -> float:
    """``value`` times ``factor`` as precise as the learner's number ("40" less a third is "27", not "26.67").

    A whole number keeps one decimal only when the product has exactly one ("45" up 10% is "49.5").
    """
    product = value * factor
    if re.search(r"\d[.,]\d{1,2}(?!\d)", like) and not re.search(r"\d,\d{3}", like):
        return round(product, 2)
    return round(product, 1) if abs(product * 10 - round(product * 10)) < 1e-6 else float(round(product))
