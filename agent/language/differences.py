"""Changes stated as a difference, and the value they lead to (``dateparser`` for dates).

A learner often tells a new value as a change of the old one: "the professor postponed the
final by a week", "my employer cut the course budget by 200 euros", "the exam moved two
days earlier". ``resolve_change`` reads such a statement against the earlier statement it
changes ("My statistics final is on June 12.") and gives the new value ("June 19"), so the
fact store can write it into the new fact.

- a **duration** counts only after "by" or before "earlier"/"later" ("for two weeks", "in 3
  days" are no differences); an **amount** only after "by" ("by 200 euros", "by 2");
- the **direction** is read from the verb or adverb of the change (``_UP``/``_DOWN``).
  This one is a short word list on purpose: MiniLM does not encode which way a change goes
  (leave-one-out over direction exemplars was 0%, docs/decisions/language-layer.md);
  with no direction word the change is not resolved (never a guess);
- dates are read relative to when the earlier statement was said (``dateparser``,
  future dates preferred), and only phrases with a month, a weekday or digits count.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from dateparser.search import search_dates

_UNIT_DAYS = {"day": 1, "week": 7, "fortnight": 14}
_WORD_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_WORD_NUMBERS |= {"seven": 7, "eight": 8, "nine": 9, "ten": 10, "a couple of": 2, "a few": 3}
_COUNT = r"\d+|a couple of|a few|an?|one|two|three|four|five|six|seven|eight|nine|ten"
_DURATION = re.compile(rf"\b(?P<count>{_COUNT})\s+(?P<unit>day|week|fortnight)s?\b", re.I)
_BY_AMOUNT = re.compile(r"\bby\s+(?:another\s+)?(?P<n>\d+(?:[.,]\d+)?)\b(?!\s*(?:day|week|fortnight))", re.I)
_UP = re.compile(
    r"\b(?:later|postpone[sd]?|delay(?:ed|s)?|(?:push(?:ed)?|put)\s+(?:\w+\s+){0,4}?back|extend(?:ed|s)?|rais(?:ed|es)"
    r"|increas(?:ed|es)|up|grew|gain(?:ed)?|rose|added|more)\b",
    re.I,
)
_DOWN = re.compile(
    r"\b(?:earlier|sooner|(?:brought|moved|pulled)\s+(?:\w+\s+){0,4}?forward|cut|reduc(?:ed|es)|lower(?:ed)?"
    r"|down|shr[au]nk|shorten(?:ed)?|dropp?(?:ed)?|fell|decreas(?:ed|es)|fewer|less|lost)\b",
    re.I,
)
_CALENDAR = re.compile(
    r"\b(?:"
    + "|".join(n[:3] for n in (*calendar.month_name[1:], *calendar.day_name))
    + r")[a-z]*\b|\d[/.-]\d",
    re.I,
)
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.]*\d)")


@dataclass(frozen=True)
class Shift:
    """A change stated as a difference, signed: a duration or an amount."""

    time: timedelta | None = None
    amount: float | None = None


def _count(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _WORD_NUMBERS[word]


def _sign(text: str, at: int) -> int | None:
    """The direction of the change stated around ``at``: the nearest direction word wins.

    "After the rent went up I reduced the budget by 100": "reduced" is nearer to "by 100"
    than "up", whose change is the rent's. A tie (or no word) is no direction.
    """
    nearest: dict[int, int] = {}
    for sign, pattern in ((1, _UP), (-1, _DOWN)):
        spans = [m.end() if m.end() <= at else m.start() for m in pattern.finditer(text)]
        if spans:
            nearest[sign] = min(abs(at - s) for s in spans)
    if not nearest or (len(nearest) == 2 and nearest[1] == nearest[-1]):
        return None
    return min(nearest, key=lambda k: nearest[k])


def shift(text: str) -> Shift | None:
    """The signed difference ``text`` states ("postponed by a week" -> +7 days), or None."""
    if not isinstance(text, str):
        return None
    for match in _DURATION.finditer(text):
        before, after = text[: match.start()].lower(), text[match.end() :].lower()
        if re.search(r"\bby\s*$", before) or re.match(r"\s*(?:earlier|later|sooner)\b", after):
            sign = _sign(text, match.start())
            if sign is None:
                return None
            return Shift(
                time=timedelta(days=_count(match["count"]) * _UNIT_DAYS[match["unit"].lower()] * sign)
            )
    match = _BY_AMOUNT.search(text)
    sign = None if match is None else _sign(text, match.start())
    if match is not None and sign is not None:
        return Shift(amount=float(match["n"].replace(",", ".")) * sign)
    return None


def dates_in(text: str, said_at: datetime) -> list[datetime]:
    """The calendar dates ``text`` names (a month, a weekday or digits), read as of ``said_at``."""
    settings = {"RELATIVE_BASE": said_at.replace(tzinfo=None), "PREFER_DATES_FROM": "future"}
    found = search_dates(text, languages=["en"], settings=settings) or []  # type: ignore[arg-type]
    return [when for phrase, when in found if _CALENDAR.search(phrase)]


def numbers_in(text: str) -> list[str]:
    """The numbers written in ``text`` ("5.5", "600"; not inside words such as "HSK3")."""
    return _NUMBER.findall(text)


def resolve_change(new: str, old: str, *, old_at: datetime, new_at: datetime) -> str | None:
    """The value ``new`` gives ``old`` by a stated difference ("June 19", "400"), or None.

    None unless ``new`` states a difference with a direction and ``old`` holds exactly one
    value of its kind (one date for a duration, one number for an amount); None too when
    ``new`` names its own date ("moved to May 15"): nothing to compute.
    """
    change = shift(new)
    if change is None:
        return None
    if change.time is not None:
        if dates_in(new, new_at):
            return None
        found = dates_in(old, old_at)
        if len(found) != 1:
            return None
        when = found[0] + change.time
        return f"{when:%B} {when.day}"
    values = numbers_in(old)
    if len(values) != 1 or change.amount is None:
        return None
    value = float(values[0].replace(",", ".")) + change.amount
    return str(int(value)) if value == int(value) else f"{value:g}"


def value_kind(text: str) -> str | None:
    """The kind of value ``text`` states: ``"date"`` (a month, a weekday, 3/14), ``"number"`` or None.

    Two statements of one kind can hold one thing's old and new value.
    """
    if _CALENDAR.search(text):
        return "date"
    return "number" if _NUMBER.search(text) else None


def states_a_value(text: str) -> bool:
    """True when ``text`` states a difference, a date or a number (what a changed fact carries)."""
    return shift(text) is not None or bool(_CALENDAR.search(text)) or bool(_NUMBER.search(text))
