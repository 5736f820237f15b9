"""Dates, durations and amounts in learner text, relative to the session's clock (``dateparser``).

- ``dates_in``: the date phrases of a sentence and the instants they name, as of ``now``;
- ``due_time``: the instant a time phrase names ("tomorrow", "next Monday at 9", "in two
  days", "tonight"), in ``now``'s time zone, or None;
- ``shift``: a change stated as a difference, a duration ("by a week", "two days earlier") or
  an amount ("by 200 euros", "up by 120"): its signed size. The sign is read by similarity
  with the ``CHANGE_DIRECTION`` exemplars (``agent.language.exemplars``), not from a verb list.
"""

from __future__ import annotations

import calendar
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache

import dateparser
from dateparser.search import search_dates

from agent.clock import as_aware

_UNIT = r"(?:minute|hour|day|week|month|year)s?"
_COUNT = r"(?:\d+(?:\.\d+)?|an?|one|two|three|four|five|six|seven|eight|nine|ten|a couple of|a few)"
_DURATION = re.compile(rf"\b(?P<count>{_COUNT})\s+(?P<unit>{_UNIT})\b", re.I)
_BY_AMOUNT = re.compile(r"\bby\s+(?:another\s+)?(?P<n>\d+(?:[.,]\d+)?)\b", re.I)
_CALENDAR = re.compile(
    r"\b(?:"
    + "|".join(n[:3] for n in (*calendar.month_name[1:], *calendar.day_name))
    + r")[a-z]*\b|\d[/.-]\d",
    re.I,
)
"""A date phrase names a month or weekday, or is written with digits ("2026-06-12"), not "a week"."""
_NUMBER = re.compile(r"(?<![\w.])\d+(?:[.,]\d+)?(?![\w.]*\d)")


def _settings(now: datetime) -> dict[str, object]:
    base = as_aware(now)
    return {
        "RELATIVE_BASE": base.replace(tzinfo=None),
        "PREFER_DATES_FROM": "future",
        "RETURN_AS_TIMEZONE_AWARE": False,
    }


def _aware(found: datetime, now: datetime) -> datetime:
    return found.replace(tzinfo=as_aware(now).tzinfo) if found.tzinfo is None else found


def dates_in(text: str, now: datetime) -> list[tuple[str, datetime]]:
    """``(phrase, instant)`` of each date phrase with a month or weekday in ``text`` (not bare numbers)."""
    found = search_dates(text, languages=["en"], settings=_settings(now)) or []
    return [(phrase, _aware(when, now)) for phrase, when in found if _CALENDAR.search(phrase)]


@lru_cache(maxsize=512)
def _parse(phrase: str, base: datetime) -> datetime | None:
    return dateparser.parse(phrase, languages=["en"], settings=_settings(base))


def due_time(phrase: str, now: datetime) -> datetime | None:
    """The instant ``phrase`` names as of ``now`` (a time of day alone means its next occurrence)."""
    text = phrase.strip(" ,.;:!?")
    if not text or not re.search(r"[A-Za-z]", text):
        return None
    text = re.sub(r"^(?:on|at|by)\s+", "", text, flags=re.I)
    text = re.sub(r"\btonight\b", "today at 20:00", text, flags=re.I)
    found = _parse(text, as_aware(now).replace(second=0, microsecond=0))
    if found is None:
        return None
    due = _aware(found, now)
    return due if due > as_aware(now) else None


def duration(text: str) -> tuple[str, timedelta] | None:
    """``(phrase, length)`` of the first duration in ``text`` ("a week", "two days")."""
    match = _DURATION.search(text)
    if match is None:
        return None
    base = datetime(2000, 1, 1)
    count = re.sub(r"^a couple of$", "2", match["count"].lower())
    count = re.sub(r"^a few$", "3", count)
    later = _parse(f"in {count} {match['unit']}", base)
    return (match.group(0), later - base) if later is not None else None


@dataclass(frozen=True)
class Shift:
    """A change stated as a difference."""

    time: timedelta | None
    """A duration, signed (None: an amount)."""
    amount: float | None
    """An amount, signed (None: a duration)."""


def shift(text: str, sign: int) -> Shift | None:
    """The signed difference ``text`` states ("by a week" → +7 days with ``sign`` +1), or None.

    A duration counts only with "by" before it or "earlier"/"later" after it, and an amount
    only after "by": "for two weeks" or "in 3 days" are not differences.
    """
    found = duration(text)
    if found is not None:
        phrase, length = found
        at = text.lower().find(phrase.lower())
        before, after = text[:at].lower(), text[at + len(phrase) :].lower()
        if re.search(r"\bby\s*$", before) or re.match(r"\s*(?:earlier|later|sooner|back|forward)\b", after):
            return Shift(time=length * sign, amount=None)
    match = _BY_AMOUNT.search(text)
    if match is not None:
        return Shift(time=None, amount=float(match["n"].replace(",", ".")) * sign)
    return None


def numbers_in(text: str) -> list[str]:
    """The numbers written in ``text`` ("5.5", "600"; not inside words or versions)."""
    return _NUMBER.findall(text)


def month_day(when: datetime) -> str:
    """``"June 19"``: how a resolved date is written into a fact."""
    return f"{when:%B} {when.day}"
