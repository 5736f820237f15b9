"""A reminder request: its task and its trigger, wherever the trigger clause stands.

**Requests**: "remind me to <task> <condition>", also "remind me about / that …", "don't let
me forget to …", "make sure I remember …", "ping / nudge me about …", "I need a reminder to
…", "give me a heads-up about …", "jog my memory about …". The condition may come first:
"Before we start recursion, remind me to …", "Tomorrow, remind me to …" are read as
"remind me to … before we start recursion" (``_lead_first``). The condition sets the trigger:

- *concept*: "when/once/after we study | learn | cover | start | begin | do <concept>";
- *keywords*: a subordinate clause with any connective (when, whenever, once, as soon as,
  if, before, after, next time) and any verb: "<connective> we|I|you [ever] <verb>
  [on|to|into|about|…] <X>", or "<connective> <X> comes up". ``X`` may list several
  keywords ("HAVING or window functions"), any of which fires;
- *time* (``due_at``, ISO-8601, from ``now``): "tomorrow [at HH:MM]", "tonight", "next week",
  "in N minutes|hours|days|weeks", "at HH:MM" (today, or tomorrow when that time has
  passed), "on <weekday>"; any other date phrase through ``agent.language.when.due_time``
  (``dateparser``: "next Monday at 9", "the day after tomorrow");
- no condition: a time trigger one day later (``DEFAULT_DELAY``).

Firing is ``agent.memory.reminder_rules.trigger_matches``.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any

from agent.clock import as_aware, system_clock
from agent.language.when import due_time
from agent.text import FUNCTION_WORDS, STOP_WORDS

DEFAULT_DELAY = timedelta(days=1)
MAX_KEYWORDS = 20

_REQUEST = re.compile(
    r"(?:remind\s+me|(?:do\s+not|don't)\s+let\s+me\s+forget|make\s+sure\s+I\s+(?:remember|don't\s+forget)"
    r"|(?:ping|nudge|prompt)\s+me|I(?:'d)?\s+(?:need|like|want)\s+a\s+reminder|give\s+me\s+a\s+heads[- ]up"
    r"|jog\s+my\s+memory)\s+(?:later\s+)?(?:(?P<link>to|about|that|of)\s+)?(?P<rest>.+)",
    re.I | re.S,
)
_CONNECTIVE = r"(?:when(?:ever)?|once|if|as\s+soon\s+as|before|after|(?:the\s+)?next\s+time)"
_LEAD = re.compile(rf"^\s*(?P<cond>{_CONNECTIVE}\s+[^,]+?|[^,]{{1,40}}?),\s*(?P<rest>.+)$", re.I | re.S)
_POLITE = re.compile(r"^\s*(?:please|can\s+you|could\s+you|would\s+you|and)\s+", re.I)
_WE = r"(?:we|I|you)(?:\s*'re|\s+are|\s+am|\s*'m)?"
_CONCEPT = re.compile(
    rf"\s*,?\s+(?:when|once|after|before)\s+{_WE}\s+(?:start(?:ing)?\s+|begin(?:ning)?\s+)?"
    r"(?:study(?:ing)?|learn(?:ing)?|cover(?:ing)?|start(?:ing)?|begin(?:ning)?|do(?:ing)?)\s+"
    r"(?P<what>.+)$",
    re.I | re.S,
)
_KEYWORDS = re.compile(
    rf"\s*,?\s+{_CONNECTIVE}\s+{_WE}\s+(?:ever\s+|finally\s+|first\s+)?(?!comes?\b)[^\W\d_]+"
    r"(?:\s+(?:on|to|into|about|with|at|over|through|up|around))*\s+(?P<what>.+)$"
    rf"|\s*,?\s+{_CONNECTIVE}\s+(?P<what2>.+?)\s+(?:comes?|is|are)\s+(?:up|discussed|covered|next)\s*$",
    re.I | re.S,
)
_TIME_UNITS = {"minute": 60, "hour": 3600, "day": 86400, "week": 604800}
_IN = re.compile(r"\s+in\s+(?P<n>\d{1,3}|an?|one|two|three)\s+(?P<unit>minute|hour|day|week)s?\s*$", re.I)
_AT = re.compile(r"\s+(?:at\s+)?(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>am|pm)?\s*$", re.I)
_DAY = re.compile(r"\s+(?P<day>tomorrow|tonight|next\s+week)(?:\s+at\s+(?P<time>.+))?\s*$", re.I)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_ON_DAY = re.compile(r"\s+(?:on\s+)?(?P<wd>" + "|".join(_WEEKDAYS) + r")\s*$", re.I)
_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}
_LIST_SPLIT = re.compile(r"\s*(?:,|\bor\b|\band\b|/)\s*", re.I)
_LEADING = re.compile(r"^(?:the|a|an|some|any|our|my)\s+", re.I)
_TRAILING = re.compile(r"\s+(?:clauses?|keywords?|part|topic|section|lesson|chapter)$", re.I)


def _strip_end(text: str) -> str:
    return re.sub(r"[\s.!?,;:]+$", "", text.strip())


def _time_due(rest: str, now: datetime) -> tuple[str, datetime] | None:
    """``(rest without the time phrase, due time)`` when ``rest`` ends with one."""
    match = _IN.search(rest)
    if match:
        count = _NUMBERS.get(match["n"].lower()) or int(match["n"])
        return rest[: match.start()], now + timedelta(seconds=count * _TIME_UNITS[match["unit"].lower()])
    match = _DAY.search(rest)
    if match:
        day = match["day"].lower()
        base = now + (timedelta(days=7) if day == "next week" else timedelta(days=1))
        if day == "tonight":
            base = now.replace(hour=20, minute=0, second=0, microsecond=0)
            base = base if base > now else now
        if match["time"]:
            clock = _AT.match(" " + match["time"])
            if clock:
                base = _at(base, clock)
        return rest[: match.start()], base
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


def _lead_first(text: str) -> str:
    """A condition written before the request, moved after it ("Before X, remind me to Y")."""
    text = _POLITE.sub("", text)
    match = _LEAD.match(text)
    if match is None:
        return text
    rest = _POLITE.sub("", match["rest"])
    if not _REQUEST.match(rest):
        return text
    return f"{_strip_end(rest)} {match['cond'].strip()}"


def split_keywords(what: str) -> list[str]:
    """Keywords of a condition ("HAVING or window functions" -> ["HAVING", "window functions"])."""
    keywords = []
    for part in _LIST_SPLIT.split(_strip_end(what)):
        part = _TRAILING.sub("", _LEADING.sub("", part.strip().strip("`'\"")))
        if part and is_trigger_word(part) and part not in keywords:
            keywords.append(part)
    return keywords[:MAX_KEYWORDS]


def is_trigger_word(keyword: str) -> bool:
    """False for keywords made only of stop words (they would fire on every turn)."""
    words = re.findall(r"[^\W_]+", keyword)
    return any(w.isupper() and len(w) > 1 or w.lower() not in STOP_WORDS for w in words)


def is_reminder_request(text: str) -> bool:
    """True when ``text`` asks to be reminded of something."""
    return isinstance(text, str) and _REQUEST.search(text) is not None


def parse_reminder(text: str, *, now: datetime | None = None) -> dict[str, Any] | None:
    """The reminder a request asks for (``ReminderStore.set`` arguments plus ``trigger_kind``), or None.

    Keys: description, action, trigger_kind, keywords, concept, due_at (ISO or None).
    """
    if not isinstance(text, str):
        return None
    match = _REQUEST.search(_lead_first(text))
    if match is None:
        return None
    rest = _strip_end(match["rest"])
    now = as_aware(now or system_clock())
    out: dict[str, Any] = {"keywords": [], "concept": None, "due_at": None}
    concept, keywords = _CONCEPT.search(rest), _KEYWORDS.search(rest)
    timed = _time_due(rest, now)
    if concept and (keywords is None or concept.start() <= keywords.start()):
        what = _TRAILING.sub("", _LEADING.sub("", _strip_end(concept["what"])))
        out.update(trigger_kind="concept", concept=what, keywords=split_keywords(what))
        rest = rest[: concept.start()]
    elif keywords:
        out.update(trigger_kind="keywords", keywords=split_keywords(keywords["what"] or keywords["what2"]))
        rest = rest[: keywords.start()]
        if not out["keywords"]:
            return None
    elif timed:
        rest, due = timed
        out.update(trigger_kind="time", due_at=due.isoformat())
    else:
        out.update(trigger_kind="time", due_at=(now + DEFAULT_DELAY).isoformat())
    description = _strip_end(rest)
    if not any(w.lower() not in FUNCTION_WORDS for w in re.findall(r"[^\W_]+", description)):
        return None  # "remind me to" with nothing to do
    out["description"] = description
    link = (match["link"] or "to").lower()
    out["action"] = f"Remind the learner {link} {description}"
    return out
