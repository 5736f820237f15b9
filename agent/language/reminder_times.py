"""When a time reminder is due: the time phrase that ends a request, read against the session's clock.

"tomorrow [at HH:MM]", "tonight", "next week", "in N minutes|hours|days|weeks", "at HH:MM" (today,
or tomorrow when it has passed), "on <weekday>", "at the start | end of this | next week | month |
year"; any other phrase through ``agent.language.when.due_time`` (``dateparser``: "the day after
tomorrow", "next Friday at 5pm"). Used by ``agent.language.reminders.parse_reminder`` and by a
store resolving a request's phrase (``agent.memory.reminders.resolve_due``).
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from agent.clock import as_aware
from agent.language.when import due_time

_TIME_UNITS = {"minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_IN = re.compile(r"\s+in\s+(?P<n>\d{1,3}|an?|one|two|three)\s+(?P<unit>minute|hour|day|week)s?\s*$", re.I)
_AT = re.compile(r"\s+(?:at\s+)?(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>am|pm)?\s*$", re.I)
_DAY = re.compile(r"\s+(?P<day>tomorrow|tonight|next\s+week)(?:\s+at\s+(?P<time>.+))?\s*$", re.I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_EDGE = re.compile(
    r"\s+(?:(?:at|by|on|from|around|in|for)\s+)?(?:the\s+)?(?P<edge>start|beginning|end)\s+of\s+"
    r"(?P<which>next|this|the)\s+(?P<unit>week|month|year)\s*$",
    re.I,
)
_ON_DAY = re.compile(r"\s+(?:on\s+)?(?P<wd>" + "|".join(_WEEKDAYS) + r")\s*$", re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}


def _edge_of(match: re.Match[str], now: datetime) -> datetime:
    """The first (start) or last (end) day of this or next week, month or year, at 09:00.

    dateparser reads "next month" as a month from now and "the start of next month" not at all.
    """
    unit, ahead = match["unit"].lower(), match["which"].lower() == "next"
    day = now.replace(hour=9, minute=0, second=0, microsecond=0)
    if unit == "week":
        start = day - timedelta(days=day.weekday()) + timedelta(days=7 * ahead)
        following = start + timedelta(days=7)
    elif unit == "month":
        start = day.replace(day=1)
        if ahead:
            start = (start + timedelta(days=32)).replace(day=1)
        following = (start + timedelta(days=32)).replace(day=1)
    else:
        start = day.replace(month=1, day=1, year=day.year + ahead)
        following = start.replace(year=start.year + 1)
    due = start if match["edge"].lower() != "end" else following - timedelta(days=1)
    return max(due, now)


def phrase_due(phrase: str, now: datetime) -> datetime | None:
    """The instant a time phrase names as of ``now`` ("at the start of next month", "next Friday at 5pm").

    What a store resolves a request's ``when`` against its own clock with (``ReminderStore.set``).
    """
    match = _EDGE.search(" " + phrase.strip())
    return _edge_of(match, as_aware(now)) if match else due_time(phrase, now)


def time_due(rest: str, now: datetime) -> tuple[str, datetime] | None:
    """``(rest without the time phrase, due time)`` when ``rest`` ends with one."""
    match = _EDGE.search(rest)
    if match:
        return rest[: match.start()], _edge_of(match, now)
    match = _IN.search(rest)
    if match:
        count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
        return rest[: match.start()], now + timedelta(seconds=count * _TIME_UNITS[match["unit"].lower()])
    match = _DAY.search(rest)
    if match:
        day = match["day"].lower()
        base = now + (timedelta(days=7) if day == "next week" else timedelta(days=1))
        if day == "tonight":
            base = max(now, now.replace(hour=20, minute=0, second=0, microsecond=0))
        clock = _AT.match(" " + match["time"]) if match["time"] else None
        return rest[: match.start()], _at(base, clock) if clock else base
    match = _ON_DAY.search(rest)
    if match:
        ahead = (_WEEKDAYS.index(match["wd"].lower()) - now.weekday() - 1) % 7 + 1
        return rest[: match.start()], now + timedelta(days=ahead)
    match = _AT.search(rest)
    if match and re.search(r"\bat\s+\d", rest[match.start() :], re.I):
        due = _at(now, match)
        return rest[: match.start()], due if due > now else due + timedelta(days=1)
    for cut in re.finditer(r"\s+(?=(?:on|at|by|next|this|the|tomorrow|in)\b)", rest, re.I):
        due = due_time(rest[cut.end() :], now)
        if due is not None:  # the rest of the request names a time dateparser reads
            return rest[: cut.start()], due
    return None


def _at(day: datetime, match: re.Match[str]) -> datetime:
    hour = int(match["h"]) % 24
    if (match["ampm"] or "").lower() == "pm" and hour < 12:
        hour += 12
    return day.replace(hour=hour, minute=int(match["m"] or 0) % 60, second=0, microsecond=0)
