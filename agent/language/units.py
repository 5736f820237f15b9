"""What a number counts: the words after it, its currency or percent, and whether two counts are alike.

"60 Polish words", "€800" (euros), "62%" (percent): an amount changes an old number only when both count
the same thing (``agent.language.differences``), compared by their head word or, for other pairs
("euros", "dollars"), by MiniLM. The words after a number end at a verb, an adverb or a function word
by the parse (``agent.language.grammar``): what is counted is a noun and its modifiers.
"""

from __future__ import annotations

import calendar
import re

from agent.language.numerals import CURRENCY, PERCENT_AFTER, SYMBOL_BEFORE, Number, numbers, without_current

_COUNTED_AS = re.compile(r"^(?:more|new|extra|additional|further|fewer|less)$", re.I)
_UNIT_STOP = re.compile(
    r"^(?:more|new|extra|additional|further|fewer|less|of|to|in|into|on|at|for|from|by|with|and|or|but|so|the"
    r"|a|an|my|our|this|that|these|those|is|are|was|were|went|got|get|have|has|had|since|after|before"
    r"|today|tonight|yesterday|now|far|per|than|this|last|over|up|down|off|away|out|it|them|dropped|joined|left|quit"
    r"|ones?|those|these|some|each|all|both)$",
    re.I,
)


def unit_after(text: str, end: int) -> str | None:
    """The thing a number at ``text[:end]`` counts: up to two words after it ("Polish words", "bpm").

    A word the parse reads as a verb, an adverb or a function word ends it ("another 300 aside", "4,25 km
    done before breakfast", "by 30 because of exams"): what is counted is a noun and its modifiers.
    """
    words: list[str] = []
    segment = re.split(r"[,;:!?()]|\.(?!\d)", text[end:], maxsplit=1)[0]
    for match in list(re.finditer(r"[^\s,.;:!?()]+", segment))[:4]:
        token = match.group()
        if not words and _COUNTED_AS.match(token):
            continue  # "12 more problems": the unit follows
        if _UNIT_STOP.match(token) or _no_unit_word(text, end + match.start()):
            break
        if not re.match(r"^[A-Za-z][\w+#'-]*$", token):
            break
        words.append(token)
        if len(words) == 2:
            break
    rate = (
        re.match(
            r"\s*(?:per|an?)\s+(hour|minute|day|week|month|year|term|second)\b",
            text[end:].split(words[-1], 1)[-1],
        )
        if words
        else None
    )
    return " ".join(words) + (f" per {rate.group(1)}" if rate else "") if words else None


_NO_UNIT_TAGS = frozenset(
    {"VB", "VBD", "VBG", "VBN", "VBP", "MD", "IN", "RB", "RBR", "RBS", "RP", "DT", "PRP", "PRP$", "CC", "TO"}
    | {"WDT", "WP", "WRB"}
)
"""Penn tags that never name what a number counts: verbs, adverbs and function words. Not ``VBZ``: the
small parser reads a plural noun after a number as one ("1,200 CPD points" -> "points"/VBZ)."""


def _no_unit_word(text: str, at: int) -> bool:
    """True when the parse reads the word at ``at`` as a verb, an adverb or a function word.

    Or as the predicate of its clause when no noun: "10 more matured today" (the small parser tags a
    participle after "more" as an adjective at the root), which tells what the 10 did, not what they count.
    """
    from agent.language.grammar import parse  # noqa: PLC0415 - the parser loads only when needed

    token = next((t for t in parse(text) if t.idx == at), None)
    if token is None:
        return False
    return token.tag_ in _NO_UNIT_TAGS or (token.dep_ == "ROOT" and token.tag_ == "JJ")


def unit_of(text: str, n: Number) -> str | None:
    """What the number ``n`` of ``text`` counts: its currency ("€800": euros), percent, or the words after."""
    symbol = SYMBOL_BEFORE.search(text[: n.start])
    if symbol is not None:
        return CURRENCY[symbol.group(1)]
    if PERCENT_AFTER.match(text[n.end :]):
        return "percent"
    return unit_after(text, n.end)


_MONEY = frozenset(name.removesuffix("s") for name in CURRENCY.values())


def is_money(unit: str | None) -> bool:
    """True when ``unit`` names a currency, by its sign or its name ("€": euros, "cedis", "lira tutoring")."""
    return _money_word(unit) is not None


_TIME = re.compile(
    r"^(?:sec(?:ond)?|min(?:ute)?|hour|hr|h|day|night|evening|morning|afternoon|weekend|week|month|year)s?\b",
    re.I,
)


def spent_money(unit: str | None) -> bool:
    """True when what a learner spent or paid counts money: its currency known, or any unit but time.

    One spends money or time, so "spent 240 lari on the flights" or "paid 650 kr" counts money by its verb
    though no table knows the currency; "spent 4 hours on the audiobook" counts time, work done.
    """
    return is_money(unit) or (unit is not None and not _TIME.match(unit))


def _money_word(unit: str | None) -> str | None:
    """The currency ``unit`` names in its first two words ("lira tutoring": "lira"), or None."""
    words = [w.lower().removesuffix("s") for w in (unit or "").split()[:2]]
    return next((w for w in words if w in _MONEY), None)


def _head(unit: str) -> str:
    """The word a unit counts by ("LeetCode problems" -> "problem", "words per minute" -> "word")."""
    return unit.lower().split(" per ")[0].split()[-1].removesuffix("s")


def similar_units(unit: str, others: list[str]) -> list[float]:
    """How close ``unit`` is to each of ``others``: 1 for the same head word, else the MiniLM cosine.

    MiniLM alone reads short units poorly ("LeetCode problems" and "problems": 0.25, "bpm" and
    "wpm": 0.41), so the same counted word is the same unit; other pairs ("euros", "dollars")
    are compared by meaning.
    """
    from agent.language.encoder import encode  # loads MiniLM: only when an amount is resolved

    vectors = encode([unit, *others])
    cosines = [float(v) for v in vectors[1:] @ vectors[0]]
    return [1.0 if same_head(other, unit) else c for other, c in zip(others, cosines, strict=True)]


def same_head(one: str, other: str) -> bool:
    """The same counted word (or its short form: "12k" of "km"); points of a percentage count percent.

    A unit of time and its short form are one ("hrs", "41 hours total") when one of them names nothing
    else; two that name what they count ("hours of sleep", "hours of practice") are compared by meaning.
    """
    heads = {_head(one), _head(other)}
    short, long = sorted(heads, key=len)[0], sorted(heads, key=len)[-1]
    # "12k" of "km": a unit's short form is its first letters
    money = _money_word(one)
    same_money = money is not None and money == _money_word(other)  # "lira tutoring" of "₺": liras
    abbreviated = len(short) <= 2 and long.startswith(short)
    # "3 hrs" of "41 hours total": one unit of time, its short form or not, when one of the two names
    # nothing else; "hours of sleep" and "hours of practice" count other things, compared by meaning
    times = [_time_told(u) for u in (one, other)]
    same_time = all(times) and len({t[0] for t in times if t}) == 1 and any(t[1] for t in times if t)
    return len(heads) == 1 or heads == {"point", "percent"} or abbreviated or same_money or same_time


def _time_told(unit: str) -> tuple[float, bool] | None:
    """The length of the unit of time ``unit`` counts in (in minutes) and whether it names nothing else.

    After the unit only "total" or what it counts ("of practice") may follow: "second place" is no time.
    """
    match = _DURATION.match(unit.strip())
    rest = unit.strip()[match.end() :].strip().lower() if match else ""
    if match is None or not (rest in ("", "total") or rest.startswith("of ")):
        return None
    return _DURATIONS[match.group(1).lower()], rest in ("", "total")


_PERIODS = r"hour|day|week|fortnight|month|term|semester|quarter|year"
_PER_AFTER = re.compile(
    rf"^\s*(?:%|per\s*cent|percent)?\s*(?:[A-Za-z]+\s+){{0,2}}?(?:per|an?|each|every)\s+({_PERIODS})\b", re.I
)
"""After a number: the period it counts per ("1,500 euros a month", "10% more per month")."""
_PERIODIC = re.compile(r"\b(hour|dai|week|fortnight|month|quarter|year|annual)l?y\b", re.I)
"""Before a number in its clause: its period as an adjective ("my monthly stipend", "a weekly 300")."""


def period_of(text: str, n: Number) -> str | None:
    """The period the number ``n`` of ``text`` is counted per ("month"), or None: a recurring amount.

    After it ("1,500 euros a month", "10% more per month") or as an adjective of its thing ("My monthly
    stipend is …"). A share told per period changes the learner's amount of that period, whatever the
    event that brought it is called ("The grant renewal came through with 10% more per month").
    """
    after = _PER_AFTER.match(text[n.end :])
    if after is not None:
        return after.group(1).lower()
    clause = re.split(r"[.;!?]", text[: n.start])[-1]
    adjective = _PERIODIC.search(clause)
    if adjective is None:
        return None
    return _period_word(adjective.group(1))


def same_period(new: str, old: str) -> bool:
    """True when an amount ``new`` gives and a number of ``old`` are counted per the same period ("a month").

    Given, not a measure of a named thing (``given``): "The gym membership went up 5% a month"
    is the membership's change, whatever else the learner pays monthly.
    """
    base = without_current(old)
    periods = {period_of(base, n) for n in numbers(base)} - {None}
    return any(period_of(new, n) in periods and given(new, n) for n in numbers(new))


def _period_word(word: str) -> str:
    word = word.lower()
    return {"dai": "day", "annual": "year"}.get(word, word)


def given(text: str, n: Number) -> bool:
    """True when the amount at ``n`` is what a verb gives, not how much a named thing moved (the parse).

    The object of the verb or of a preposition other than "by" ("The grant renewal came through with
    10% more per month", "the foundation added 15% per month"): who or what names the clause is the
    event or the giver, not the thing changed; "The gym membership went up 5% a month" (a measure of
    the verb) and "goes up by 5%" name the thing that moved.
    """
    from agent.language.grammar import parse, token_at  # noqa: PLC0415 - the parser loads only when needed

    token = token_at(parse(text), n.start)
    while token is not None and token.pos_ not in {"VERB", "AUX"} and token.head.i != token.i:
        if token.dep_ == "dobj" or (token.dep_ == "pobj" and token.head.lower_ != "by"):
            return True
        token = token.head
    return False


_DURATIONS = {"second": 1 / 60, "sec": 1 / 60, "minute": 1.0, "min": 1.0, "hour": 60.0, "hr": 60.0, "h": 60.0}
_DURATION = re.compile(r"^(sec(?:ond)?|min(?:ute)?|hour|hr|h)s?\b", re.I)


def duration_factor(unit: str | None, other: str | None) -> float | None:
    """What one ``unit`` of time is in ``other`` ("minutes", "hours": 1/60), or None when either is no time.

    "two more sessions, 90 minutes each" adds 1.5 to "14 hours of speaking practice": the same work told in
    another unit of time. The same unit gives None (nothing to convert).
    """
    one, two = _DURATION.match(unit or ""), _DURATION.match(other or "")
    if one is None or two is None:
        return None
    a, b = one.group(1).lower(), two.group(1).lower()
    factor = _DURATIONS[a] / _DURATIONS[b]
    return None if factor == 1 else factor


_DAY_NAMES = "|".join(
    rf"{abbr}(?:{name[len(abbr) :]})?"
    for name, abbr in zip(calendar.day_name, calendar.day_abbr, strict=True)
)
_WEEKDAY_RANGE = re.compile(
    rf"\b(?:from\s+)?(?P<first>{_DAY_NAMES})\.?\s*(?:to|through|thru|till|until|-|\u2013|and)\s*(?P<last>{_DAY_NAMES})\b",
    re.I,
)
"""A run of weekdays ("Monday to Wednesday", "Tue-Thu"): the stdlib's day names, not a table of ours."""
_SPAN_BEFORE = re.compile(r"\b(?:for|over|during)\s+(?:the\s+(?:last|past|whole)\s+|a\s+whole\s+)?$", re.I)
_SPAN_AFTER = re.compile(r"^\s*(?:in\s+a\s+row|straight|running)\b", re.I)
_SPAN_PERIOD = re.compile(r"^\s*(day|week)s?\b", re.I)
_DAYS_IN = {"day": 1, "week": 7}


def days_told(text: str, period: str) -> int | None:
    """How many of ``period`` ("day", "week") ``text`` says a rate was kept up for, or None.

    "3 hours a day Monday to Wednesday" (a run of weekdays: 3 days), "20 words a day for two weeks" (14),
    "an hour a day, five days in a row" (5): a rate told over a span is the rate times the span. A span in
    the other period converts when whole ("for two weeks" of a daily rate); a run of weekdays counts days.
    """
    if period not in _DAYS_IN or not isinstance(text, str):
        return None
    spans: list[int] = []
    for match in _WEEKDAY_RANGE.finditer(text):
        first, last = (_weekday(match[k]) for k in ("first", "last"))
        spans.append(2 if match.group(0).lower().split()[-2:-1] == ["and"] else (last - first) % 7 + 1)
    for n in numbers(text):
        unit = _SPAN_PERIOD.match(text[n.end :])
        if unit is None:
            continue
        if not (_SPAN_BEFORE.search(text[: n.start]) or _SPAN_AFTER.match(text[n.end + unit.end() :])):
            continue
        spans.append(round(n.value * _DAYS_IN[unit.group(1).lower()]))
    if period == "week":
        spans = [d // 7 for d in spans if d % 7 == 0]
    return spans[0] if len(spans) == 1 and spans[0] > 0 else None


def _weekday(name: str) -> int:
    """The index of a weekday named in full or by its first three letters (Monday: 0)."""
    return [d.lower() for d in calendar.day_abbr].index(name[:3].lower())
