"""Times in learner text, relative to the session's clock (``dateparser``).

``due_time``: the instant a time phrase names ("tomorrow", "next Monday at 9", "in two days",
"the day after tomorrow", "tonight"), in ``now``'s time zone, or None when the phrase names
no future instant. ``dateparser`` reads the phrase; nothing here lists dates by hand.

``dates_in``: the calendar dates a text names (a month, a weekday or digits, ``CALENDAR``), read as of
when it was said (a change told as a difference is applied to them: ``agent.language.differences``).

``date_like``: a date written the way the learner wrote another ("2026-06-30" moved by two weeks is
"2026-07-14", "30.06.2026" is "14.07.2026", "June 30" is "July 14", "30 June" is "14 July").
"""

from __future__ import annotations

import calendar
import re
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING

from agent.clock import as_aware
from agent.language.grammar import holds_text

if TYPE_CHECKING:
    from spacy.tokens import Token

TONIGHT = "today at 20:00"
"""What "tonight" means (dateparser reads it as now)."""


def _settings(now: datetime) -> dict[str, object]:
    return {
        "RELATIVE_BASE": as_aware(now).replace(tzinfo=None),
        "PREFER_DATES_FROM": "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }


@holds_text
@lru_cache(maxsize=512)
def _parse(phrase: str, base: datetime) -> datetime | None:
    import dateparser  # about two seconds to import: only when a time phrase is read

    return dateparser.parse(phrase, languages=["en"], settings=_settings(base))


def due_time(phrase: str, now: datetime) -> datetime | None:
    """The future instant ``phrase`` names as of ``now`` (a time of day alone: its next occurrence)."""
    text = phrase.strip(" ,.;:!?") if isinstance(phrase, str) else ""
    if not text or not re.search(r"[A-Za-z]", text):
        return None
    text = re.sub(r"^(?:on|at|by)\s+", "", text, flags=re.I)
    text = re.sub(r"\btonight\b", TONIGHT, text, flags=re.I)
    # a bare hour ("at 9") is a time of day; dateparser would read "monday at 9" as September
    text = re.sub(r"\bat\s+(\d{1,2})\b(?![:.]?\d|\s*[ap]\.?m)", r"at \1:00", text, flags=re.I)
    base = as_aware(now)
    found = _parse(text, base.replace(second=0, microsecond=0))
    if found is None:
        return None
    due = found.replace(tzinfo=base.tzinfo) if found.tzinfo is None else found
    return due if due > base else None


_DAY_FIRST = re.compile(
    r"\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?(?:"
    + "|".join(n[:3] for n in calendar.month_name[1:])
    + r")[a-z]*\b",
    re.I,
)
"""A date written day first ("10 June", "3rd of May")."""


_DIGIT_DATE = re.compile(r"(?<![\w.])(\d{1,4})([-/.])(\d{1,2})\2(\d{1,4})(?![\w.]*\d)")
"""A date in digits with a year: "2026-06-30", "30.06.2026", "6/30/2026"."""


def date_like(when: datetime, was: datetime, old: str) -> str:
    """``when`` as the learner wrote the date ``was`` in ``old``: "2026-07-14", "14.07.2026", "July 14".

    A date in digits keeps its order, separator, zero padding and year (which part is the day is read
    from ``was``, the date it was parsed to); a date in words keeps its order ("10 June", "June 10").
    """
    for match in _DIGIT_DATE.finditer(old):
        parts = [match[1], match[3], match[4]]
        values = [int(p) for p in parts]
        order = _date_order(values, was)
        if order is None:
            continue
        new = {"y": when.year, "m": when.month, "d": when.day}
        padded = any(p.startswith("0") for k, p in zip(order, parts, strict=True) if k != "y")
        return match[2].join(
            (str(new[k]).zfill(2) if padded else str(new[k])) if k != "y" else str(new[k])[-len(p) :]
            for k, p in zip(order, parts, strict=True)
        )
    day_first = _DAY_FIRST.search(old)
    return f"{when.day} {when:%B}" if day_first else f"{when:%B} {when.day}"  # as the learner wrote it


def _date_order(values: list[int], was: datetime) -> str | None:
    """Which of three date parts is the year, the month and the day ("ymd", "dmy", "mdy"), or None."""
    for order in ("ymd", "dmy", "mdy"):
        want = {"y": was.year, "m": was.month, "d": was.day}
        if all(v == want[k] or (k == "y" and v == want[k] % 100) for k, v in zip(order, values, strict=True)):
            return order
    return None


CALENDAR = re.compile(
    r"\b(?:"
    + "|".join(f"{n}|{n[:3]}" for n in (*calendar.month_name[1:], *calendar.day_name))
    + r"|sept|tues|thurs?)s?\b"
    + r"|(?<![\w.])(?:\d{1,4}[/-]\d{1,2}(?:[/-]\d{1,4})?|\d{1,2}\.\d{1,2}\.\d{2,4})(?![\w.,]*\d|\s*%)",
    re.I,
)
"""A month or a weekday, in full or abbreviated ("Mon", not "monad"), or a date in digits: "3/14",
"2026-05-09", "14.03.2026"; never a decimal ("0.77", "90.1%": two parts with a dot are a number)."""


def dates_in(text: str, said_at: datetime, *, days_only: bool = False) -> list[datetime]:
    """The calendar dates ``text`` names (a month, a weekday or digits), read as of ``said_at``.

    ``days_only``: only a day ("May 15", "Friday", "3/14"), not a month alone ("all March exams").
    """
    from dateparser.search import search_dates  # about two seconds to import: only when a date is read

    settings = {"RELATIVE_BASE": said_at.replace(tzinfo=None), "PREFER_DATES_FROM": "future"}
    # "due March 13, 2,500 words": a number with a thousands separator is no year nor a day of a date
    masked = re.sub(r"(?<![\w.,])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\w.]*\d)", "many", text)
    found = search_dates(masked, languages=["en"], settings=settings) or []  # type: ignore[arg-type]
    day = re.compile(r"\d|" + "|".join(f"{d[:3]}" for d in calendar.day_name), re.I)
    return [
        when for phrase, when in found if CALENDAR.search(phrase) and (not days_only or day.search(phrase))
    ]


EVENT_HEADS = frozenset({"ROOT", "advcl", "ccomp", "parataxis"})
"""Where a clause of its own is headed (a conjoined verb shares its head's subject)."""
SUBJECTS = frozenset({"nsubj", "nsubjpass", "csubj", "expl", "aux", "auxpass"})
"""A subject or an auxiliary: the clause says who, or is no bare past ("was told", "I got home")."""
TIME_DEPS = frozenset({"npadvmod", "prep", "advmod", "tmod"})
_ANY_BASE = datetime(2000, 1, 1)
"""Whether a phrase names a time does not depend on when it is read."""


def tells_own_event(text: str) -> bool:
    """A past event the learner tells diary style, with when it happened.

    "got home on Monday, …", "moved out two weeks ago", "sat the oral exam this morning". Chat drops
    the "I" of the one who speaks: a clause of its own whose verb is in the past, with no subject nor
    auxiliary, and a modifier of that verb that ``dateparser`` reads as a time. What is told is the
    learner's, and when it happened is what a "when did …" question asks.
    """
    from agent.language.grammar import parse

    for verb in parse(text):
        if verb.tag_ not in {"VBD", "VBN"} or verb.dep_ not in EVENT_HEADS:
            continue
        if any(c.dep_ in SUBJECTS for c in verb.children):
            continue
        # the parse may hang the time on the clause the event leads into ("got here yesterday, it rains")
        around = [c for c in verb.head.children if verb.i < c.i < verb.head.i] if verb.dep_ == "advcl" else []
        if any(_names_time(c) for c in [*verb.children, *around] if c.dep_ in TIME_DEPS):
            return True
    return False


def _names_time(token: Token) -> bool:
    """``token``'s phrase ("yesterday", "on Friday", "two days ago", "late last night") names a time."""
    words = [t for t in token.subtree if not t.is_punct]
    phrase = re.sub(r"^(?:on|at|in|late|early)\s+", "", " ".join(t.text for t in words), flags=re.I)
    if not re.search(r"[A-Za-z]", phrase) and not re.fullmatch(r"(?:19|20)\d\d", phrase):
        return False  # a bare number is no time ("ran 5"), a year is ("moved in 2019")
    return _parse(phrase, _ANY_BASE) is not None
