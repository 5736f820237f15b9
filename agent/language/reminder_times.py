"""When a time reminder is due: the time phrase that ends a request, read against the session's clock.

"tomorrow [at HH:MM]", "tonight", "next week", "in N minutes|hours|days|weeks", "at HH:MM" (today,
or tomorrow when it has passed), "on <weekday>", "at the start | end of this | next week | month |
year" or of any month or year dateparser reads ("the end of June"), a time that comes ("once June
starts", ``time_arrives``: from its first day); any other phrase through
``agent.language.when.due_time`` (``dateparser``: "the day after tomorrow", "next Friday at 5pm").
Used by ``agent.language.reminders.parse_reminder`` and by a store resolving a request's phrase
(``agent.memory.reminders.resolve_due``); both read the phrase with ``phrase_due``, so the parse
and the store always name the same instant.

**A day, not an instant.** A phrase that names a day and no time of day ("tomorrow", "on Friday",
"in two weeks", "next week", "at the start of next month") is due from the start of that day in
the session's time zone (``now``'s offset), so the reminder fires in the first session of that day
whatever its hour. Read as "the same time of day" (``now`` + 1 day), "Remind me tomorrow" said at
21:00 missed the next day's 17:30 session and fired a session late (``heldout5``, 2026-11-29).
A phrase with a time of day ("tomorrow at 9", "tonight", "in two hours") keeps its instant.

**The learner's wall time.** An ISO date or time without an offset ("on 2026-06-20") is read in the
session's zone (``local_instant``), never as UTC. A remark may follow the time phrase ("on the
14th, that's when my salary comes in", ``time_before_aside``); read as no time at all, that
request fell to the one-day default and fired a session early (heldout7, 2026-11-29).

**Before an event.** "two days before on 20 July", "a week before in three weeks": the event's
phrase, read as above, less the span (``BEFORE``; "the day before", "the week before"), never
before ``now``; what ``reminders.parse_reminder`` writes for "My exam is in three weeks, remind me
a week before it", so the store reads it against the session's clock too.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta

from agent.clock import as_aware
from agent.language.grammar import parse
from agent.language.when import due_time
from agent.text import FUNCTION_WORDS

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
# "at the start of June", "the end of September", "the beginning of 2027": any phrase dateparser reads
_PERIOD_EDGE = re.compile(
    r"\s+(?:(?:at|by|on|from|around|in|for)\s+)?(?:the\s+)?(?P<edge>start|beginning|end)\s+of\s+(?P<period>.+?)\s*$",
    re.I,
)
_ON_DAY = re.compile(r"\s+(?:on\s+)?(?P<wd>" + "|".join(_WEEKDAYS) + r")\s*$", re.I)
# "Thursday next week", "next week on Thursday", "Thursday of next week": that weekday of next week
_WEEKDAY_NEXT_WEEK = re.compile(
    r"\s+(?:on\s+)?(?:(?P<wd>" + "|".join(_WEEKDAYS) + r")\s+(?:of\s+)?next\s+week"
    r"|next\s+week\s+(?:on\s+)?(?P<wd2>" + "|".join(_WEEKDAYS) + r"))\s*$",
    re.I,
)
_ORDINAL = re.compile(r"\s+(?:on\s+|by\s+)?the\s+(?P<n>[1-9]|[12]\d|3[01])(?:st|nd|rd|th)\s*$", re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}
_COUNTS = {**_NUMBERS, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}
BEFORE = re.compile(
    r"(?P<span>(?:(?P<n>\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(?P<unit>hour|day|week)s?"
    r"|the\s+(?P<the>day|night|evening|morning|week))\s+before)\b",
    re.I,
)
"""A span before an event: "two days before", "the day before", "a week before"."""
# an ISO-8601 date, with or without a time of day ("on 2026-06-20", "2026-06-20T09:00")
_ISO = re.compile(r"\s+(?:(?:on|by)\s+)?(?P<iso>\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?)\s*$", re.I)
# where a remark after the time phrase begins: "on the 14th, that's when my salary comes in"
_ASIDE = re.compile(
    r"\s*(?:[,;(\u2013\u2014]|\s-\s)\s*|\s+(?=(?:because|since|as|so|cause|cos|coz|that's|that\s+is|which)\b)",
    re.I,
)
# a time of day or a span shorter than a day: the phrase names an instant, not a day
_CLOCK = re.compile(
    r"\d\s*(?:a\.?m|p\.?m)\b|\d[:.]\d{2}|\bat\s+\d|\b(?:noon|midday|midnight|tonight|morning|afternoon"
    r"|evening|night|o'?clock|hours?|minutes?|mins?|seconds?|secs?)\b",
    re.I,
)
COURTESY_WORDS = 3
"""Words after a leading time phrase and before "remind me" ("please", "could you please")."""
# where a time phrase may begin inside a request's text
_CUT = re.compile(
    r"\s+(?=(?:on|at|by|next|this|the|today|tomorrow|tonight|in|from|after|within|around)\b)", re.I
)


def _edge_of(match: re.Match[str], now: datetime) -> datetime:
    """The first (start) or last (end) day of this or next week, month or year, from its start.

    dateparser reads "next month" as a month from now and "the start of next month" not at all.
    """
    unit, ahead = match["unit"].lower(), match["which"].lower() == "next"
    day = now.replace(hour=0, minute=0, second=0, microsecond=0)
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

    What a store resolves a request's ``when`` against its own clock with (``ReminderStore.set``),
    and what ``time_due`` reads a request with. A phrase that names a day and no time of day is
    due from that day's start (``_day_start``).
    """
    now = as_aware(now)
    before = BEFORE.match(phrase.strip())
    if before:  # "two days before on 20 July": the event's day less the span
        event = phrase_due(phrase.strip()[before.end() :], now)
        return max(event - before_span(before), now) if event is not None else None
    text = " " + phrase.strip(" ,.;:!?")
    match = _EDGE.fullmatch(text)
    if match:
        return _edge_of(match, now)
    match = _PERIOD_EDGE.fullmatch(text)
    edge = _period_edge(match["period"], match["edge"].lower() == "end", now) if match else None
    if edge is not None:
        return _day_start(edge, now)
    due = _exact(text, now)
    if due is None:
        due = due_time(text, now)
    if due is None:
        return None
    return due if _CLOCK.search(text) else _day_start(due, now)


def _period_edge(period: str, end: bool, now: datetime) -> datetime | None:
    """The first (or, with ``end``, last) day of the month or year ``period`` names ("June", "2027").

    dateparser fills a day the phrase leaves open with today's ("June" said on 14 May is 14 June)
    and reads "the start of June" not at all; read with its preferred day (and month) first and
    last, a phrase that leaves them open differs, and those are its edges. A phrase that names a
    day ("June 5", "Friday") reads the same both ways and has no edge here.
    """
    import dateparser  # imported on first use, as agent.language.when does

    base = as_aware(now).replace(tzinfo=None, second=0, microsecond=0)
    read = {
        pref: dateparser.parse(
            period,
            languages=["en"],
            settings={
                "RELATIVE_BASE": base,
                "PREFER_DATES_FROM": "future",
                "PREFER_DAY_OF_MONTH": pref,
                "PREFER_MONTH_OF_YEAR": pref,
            },
        )
        for pref in ("first", "last")
    }
    if read["first"] is None or read["last"] is None or read["first"] == read["last"]:
        return None
    return read["last" if end else "first"].replace(tzinfo=as_aware(now).tzinfo)


_ARRIVAL_PARTS = frozenset({"prt", "advmod", "aux", "neg", "punct"})
"""What a clause of a time that comes holds besides the time: "rolls around", "is finally here"."""


def arrival(clause: str, now: datetime) -> str | None:
    """The time phrase of a clause that says a time comes ("June starts", "it's September"), or None.

    "once June starts", "when September rolls around", "as soon as it's next month": the clause's
    only subject (or, after "it", its complement; the small parser reads "June starts" with "June"
    a noun of time, ``npadvmod``) reads as a time and its verb has no object. A
    month or a year is due from its first day ("the start of June", which ``phrase_due`` reads);
    read as no time at all, the request fell to the one-day default and fired weeks early
    (heldout18). Any verb is read as the time's coming, "once June is over" too: the parse
    cannot tell a start from an end without a list of verbs.
    """
    doc = parse(clause.strip(" ,.;:!?"))
    roots = [t for t in doc if t.dep_ == "ROOT"]
    if len(roots) != 1 or roots[0].pos_ not in {"VERB", "AUX"}:
        return None
    times = []
    for child in roots[0].children:
        noun = child.dep_ in {"nsubj", "attr", "npadvmod"} and child.pos_ in {"PROPN", "NOUN"}
        if noun or (child.is_title and child.pos_ == "AUX"):
            # a noun, never a pronoun: dateparser reads "we" of "when we start" as Wednesday; the
            # tagger reads a capitalised "May" as the modal
            times.append(doc[child.left_edge.i : child.right_edge.i + 1].text)
        elif not (child.dep_ in _ARRIVAL_PARTS or child.lower_ == "it"):
            return None  # "when June gives me a break": the time does something, it does not come
    if len(times) != 1 or phrase_due(times[0], now) is None:
        return None
    start = f"the start of {times[0]}"
    return start if phrase_due(start, now) is not None else times[0]


_ARRIVES = re.compile(
    r"[\s,]+(?:when|once|as\s+soon\s+as|after|the\s+moment)\s+(?P<clause>[^,;:]+?)(?P<tail>\s*[,;:].*)?$",
    re.I | re.S,
)


def time_arrives(rest: str, now: datetime) -> tuple[str, datetime, str] | None:
    """``(task, due, phrase)`` of a request whose condition is a time that comes ("once June starts")."""
    for match in reversed(list(_ARRIVES.finditer(rest))):
        phrase = arrival(match["clause"], now)
        due = phrase_due(phrase, now) if phrase else None
        if due is not None:
            return rest[: match.start()] + (match["tail"] or ""), due, phrase
    return None


def before_span(match: re.Match[str]) -> timedelta:
    """The span a ``BEFORE`` match names ("two days" 2 days; "the day", "the evening" 1 day)."""
    if match["the"]:
        return timedelta(weeks=1) if match["the"].lower() == "week" else timedelta(days=1)
    n = match["n"].lower()
    count = int(n) if n.isdigit() else _COUNTS[n]
    return timedelta(seconds=count * _TIME_UNITS[match["unit"].lower()])


def _day_start(due: datetime, now: datetime) -> datetime:
    """The start of ``due``'s day in ``now``'s time zone, never before ``now``."""
    local = due.astimezone(now.tzinfo)
    return max(local.replace(hour=0, minute=0, second=0, microsecond=0), now)


def _exact(text: str, now: datetime) -> datetime | None:
    """The phrases read here rather than by dateparser ("in two hours", "tomorrow at 9", "on Friday")."""
    match = _ISO.fullmatch(text)
    if match:  # the learner's wall time: without an offset it is the session's, not UTC
        return local_instant(match["iso"], now)
    match = _IN.fullmatch(text)
    if match:
        count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
        return now + timedelta(seconds=count * _TIME_UNITS[match["unit"].lower()])
    match = _DAY.fullmatch(text)
    if match:
        day = match["day"].lower()
        base = now + (timedelta(days=7) if day == "next week" else timedelta(days=1))
        if day == "tonight":
            base = max(now, now.replace(hour=20, minute=0, second=0, microsecond=0))
        clock = _AT.match(" " + match["time"]) if match["time"] else None
        return _at(base, clock) if clock else base
    match = _ORDINAL.fullmatch(text)
    if match:  # dateparser reads "the 9th" as a month; it is the next 9th of a month
        return _next_day_of_month(int(match["n"]), now)
    match = _WEEKDAY_NEXT_WEEK.fullmatch(text)
    if match:  # dateparser reads none of these; the week after this one, Monday first
        monday = now + timedelta(days=7 - now.weekday())
        return monday + timedelta(days=_WEEKDAYS.index((match["wd"] or match["wd2"]).lower()))
    match = _ON_DAY.fullmatch(text)
    if match:
        ahead = (_WEEKDAYS.index(match["wd"].lower()) - now.weekday() - 1) % 7 + 1
        return now + timedelta(days=ahead)
    match = _AT.fullmatch(text)
    if match and re.match(r"\s*at\s+\d", text, re.I):
        due = _at(now, match)
        return due if due > now else due + timedelta(days=1)
    return None


def local_instant(iso: str, now: datetime) -> datetime | None:
    """ISO-8601 text as an instant; without an offset it is wall time in ``now``'s time zone.

    A date alone ("2026-06-20") is that day's start there. Read as UTC (the store's old reading of
    a naive time), a day's reminder fired the evening before west of Greenwich and hours into the
    day east of it.
    """
    try:
        found = datetime.fromisoformat(iso.strip())
    except ValueError:
        return None
    return found if found.tzinfo is not None else found.replace(tzinfo=now.tzinfo)


def _next_day_of_month(day: int, now: datetime) -> datetime | None:
    """The next date (today or later) that falls on ``day`` of a month."""
    year, month = now.year, now.month
    for _ in range(13):
        try:
            due = now.replace(year=year, month=month, day=day)
        except ValueError:  # no 31st this month
            due = None
        if due is not None and due.date() >= now.date():
            return due
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    return None


def time_due(rest: str, now: datetime) -> tuple[str, datetime] | None:
    """``(rest without the time phrase, due time)`` when ``rest`` ends with one.

    The longest phrase that reads as a time wins ("the day after tomorrow", not "tomorrow"); the
    phrase is read by ``phrase_due``, as the store will read it.
    """
    now = as_aware(now)
    starts = sorted(
        {m.start() for m in (_EDGE.search(rest), _IN.search(rest), _DAY.search(rest)) if m}
        | {m.start() for m in _CUT.finditer(rest)}
        | {m.start() for m in (_ON_DAY.search(rest),) if m}
        | {m.start() for m in (_AT.search(rest),) if m and re.search(r"\bat\s+\d", rest[m.start() :], re.I)}
    )
    for start in starts:
        if start == 0:
            continue
        due = phrase_due(rest[start:], now)
        if due is not None:
            return rest[:start], due
    return None


def time_before_aside(rest: str, now: datetime) -> tuple[str, datetime, str] | None:
    """``(task, due time, the time phrase)`` when a remark follows the time phrase.

    "pay the fee on the 14th, that's when my salary comes in" -> ("pay the fee, that's when my
    salary comes in", the 14th, "on the 14th"): the time phrase ends the clause before the remark
    (a comma, a dash, "because", "since" …), and the remark stays in the task. Read only when the
    request does not end with a time phrase (``time_due``).
    """
    for cut in _ASIDE.finditer(rest):
        head, tail = rest[: cut.start()], rest[cut.start() :]
        timed = time_due(head, now) if head.strip() else None
        if timed is not None:
            task = f"{timed[0].rstrip()}{tail}" if tail.strip(" ,;:.!?") else timed[0]
            return task, timed[1], head[len(timed[0]) :].strip()
    return None


def _at(day: datetime, match: re.Match[str]) -> datetime:
    hour = int(match["h"]) % 24
    if (match["ampm"] or "").lower() == "pm" and hour < 12:
        hour += 12
    return day.replace(hour=hour, minute=int(match["m"] or 0) % 60, second=0, microsecond=0)


def leading_time(lead: str, now: datetime, *, after: int = COURTESY_WORDS) -> str | None:
    """The time phrase that opens ``lead`` ("On June 3" of "On June 3 please"), or None.

    The longest opening that reads as a time (``phrase_due``), followed by at most
    ``after`` other words (default ``COURTESY_WORDS``): "On June 3 please remind me …" read as a
    one-day default fired on June 1 (heldout6).
    """
    words = lead.split()
    if len(lead) > 200 or not words:
        return None
    for end in range(len(words), max(0, len(words) - after - 1), -1):
        phrase = " ".join(words[:end])
        if phrase_due(phrase, now) is not None:
            return phrase
    return None


OPENING_WORDS = 6
"""The longest time phrase read at the start of a task ("on Monday at 9 in the morning")."""


def opening_times(text: str, now: datetime) -> list[str]:
    """The time phrases (``phrase_due``) of at most ``OPENING_WORDS`` words that open ``text``, longest first.

    "on Monday I have to register" -> ["on Monday"]; the words after a phrase are not read.
    """
    words, found = text.split(), []
    for end in range(min(len(words) - 1, OPENING_WORDS), 0, -1):
        phrase = " ".join(words[:end])
        # dateparser skips a trailing function word ("on Monday the"): the phrase ends on a content word
        if words[end - 1].lower() not in FUNCTION_WORDS and phrase_due(phrase, now) is not None:
            found.append(phrase)
    return found


def present_span(phrase: str, now: datetime) -> bool:
    """True when ``phrase`` names the span the session is in ("this week", "this month", "today").

    dateparser reads such a phrase as the present instant, which ``due_time`` (a future instant)
    does not return; as a topic's time it sets no "not before".
    """
    import dateparser  # imported on first use, as agent.language.when does

    text = re.sub(r"^(?:on|at|by|in|during)\s+", "", phrase.strip(" ,.;:!?"), flags=re.I)
    if not re.search(r"[A-Za-z]", text):
        return False
    base = as_aware(now).replace(tzinfo=None, second=0, microsecond=0)
    return dateparser.parse(text, languages=["en"], settings={"RELATIVE_BASE": base}) == base


def split_time(what: str, now: datetime) -> tuple[str, str | None]:
    """A topic and the time phrase that ends it ("derivatives next week" -> "derivatives", "next week").

    A trigger fires when a turn names all its topic words, which a time among them never would;
    the time is the topic's "not before" (``agent.language.reminders.parse_reminder``).
    """
    what = what.strip().rstrip(" ,.;:!?")
    timed = time_due(what, now)
    if timed is None:
        # "the Fourier transform this week": the span the session is in, no "not before"
        cut = next(
            (m.start() for m in _CUT.finditer(what) if m.start() and present_span(what[m.start() :], now)),
            None,
        )
        return (what[:cut].strip().rstrip(" ,.;:!?"), None) if cut is not None else (what, None)
    return timed[0].strip().rstrip(" ,.;:!?"), what[len(timed[0]) :].strip() or None
