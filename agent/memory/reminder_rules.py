"""Offline rules for prospective memory: read a reminder request, decide when a reminder fires.

**Requests** (``parse_reminder``): "remind me to <task> <condition>" (also "remind me
about / that …", "don't let me forget to …", "can you remind me to …"). The description
is the task; the condition sets the trigger:

- *concept*: "when/once/after we study | learn | cover | start | begin | do <concept>";
- *keywords*: "when/once/if/as soon as we get to | reach | talk about | discuss | come to |
  move on to | look at | mention <X>", "when/if/whenever I mention | ask about <X>",
  "when/whenever <X> comes up". ``X`` may list several keywords ("HAVING or window
  functions"), any of which fires;
- *time* (``due_at``, ISO-8601, from ``now``): "tomorrow [at HH:MM]", "tonight", "next week",
  "in N minutes|hours|days|weeks", "at HH:MM" (today, or tomorrow when that time has
  passed), "on <weekday>";
- no condition: a time trigger one day later (``DEFAULT_DELAY``).

**Firing** (``trigger_matches``), designed for ≤ 2 % false fires:

- time: ``due_at <= now``;
- concept: the turn's concept has the same light stems as the reminder's concept, or the
  message mentions the concept as a keyword (rules below);
- keywords: the message contains one keyword as whole words: tokens are compared by
  light stem (``agent.text.light_stem``: "window functions" matches "window function"),
  in order and adjacent, never as a substring ("behaving" never matches "having");
- **code terms**: a keyword the learner wrote in capitals ("HAVING", "GROUP BY") is a code
  term. It matches written in capitals, inside backticks, or followed by "clause(s)",
  "keyword(s)", "statement(s)", "function(s)" or "operator(s)". So "I'm having trouble"
  never fires a HAVING reminder, while "ready for HAVING clauses" does;
- keywords that are only stop words never fire (``is_trigger_word``);
- the message that *sets* a reminder ("remind me to …") never fires one, so a condition
  named in the request does not trigger at once.

Each reminder fires at most once: the store moves it pending → triggered atomically.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from agent.clock import as_aware, system_clock
from agent.text import FUNCTION_WORDS, STOP_WORDS, light_stem

DEFAULT_DELAY = timedelta(days=1)
MAX_KEYWORDS = 20
TERM_WORDS = frozenset({"clause", "keyword", "statement", "function", "operator", "command"})

_REQUEST = re.compile(
    r"(?:remind\s+me|don't\s+let\s+me\s+forget|do\s+not\s+let\s+me\s+forget|"
    r"make\s+sure\s+I\s+(?:remember|don't\s+forget))\s+(?:later\s+)?(?:(?P<link>to|about|that|of)\s+)?"
    r"(?P<rest>.+)",
    re.I | re.S,
)
_WE = r"(?:we|I|you)(?:\s*'re|\s+are|\s+am|\s*'m)?"
_CONCEPT = re.compile(
    rf"\s*,?\s+(?:when|once|after|before)\s+{_WE}\s+(?:start(?:ing)?\s+|begin(?:ning)?\s+)?"
    r"(?:study(?:ing)?|learn(?:ing)?|cover(?:ing)?|start(?:ing)?|begin(?:ning)?|do(?:ing)?)\s+"
    r"(?P<what>.+)$",
    re.I | re.S,
)
_KEYWORDS = re.compile(
    rf"\s*,?\s+(?:when(?:ever)?|once|if|as\s+soon\s+as|before)\s+{_WE}\s+(?:get(?:ting)?\s+to|"
    r"reach(?:ing)?|talk(?:ing)?\s+about|discuss(?:ing)?|come\s+to|move\s+on\s+to|look(?:ing)?\s+at|"
    r"mention(?:ing)?|ask(?:ing)?\s+about|see|use)\s+(?P<what>.+)$"
    r"|\s*,?\s+(?:when(?:ever)?|once|if)\s+(?P<what2>.+?)\s+comes?\s+up\s*$",
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
_TOKEN = re.compile(r"`[^`]*`|[^\W_]+(?:['\u2019][^\W_]+)?")


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
    return None


def _at(day: datetime, match: re.Match[str]) -> datetime:
    hour = int(match["h"]) % 24
    if (match["ampm"] or "").lower() == "pm" and hour < 12:
        hour += 12
    return day.replace(hour=hour, minute=int(match["m"] or 0) % 60, second=0, microsecond=0)


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
    match = _REQUEST.search(text)
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


# ----- firing -----


def _tokens(text: str) -> list[tuple[str, str, bool]]:
    """``(stem, original, in_backticks)`` per word of ``text``."""
    out = []
    for token in _TOKEN.findall(text):
        if token.startswith("`"):
            out.extend((light_stem(w), w, True) for w in re.findall(r"[^\W_]+", token))
        else:
            out.append((light_stem(token), token, False))
    return out


def _is_code_term(keyword: str) -> bool:
    letters = [c for c in keyword if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def mentions(message: str, keyword: str) -> bool:
    """True when ``message`` mentions ``keyword`` by the whole-word and code-term rules."""
    words = _tokens(message)
    wanted = [light_stem(w) for w in re.findall(r"[^\W_]+", keyword)]
    if not wanted:
        return False
    code = _is_code_term(keyword)
    for i in range(len(words) - len(wanted) + 1):
        window = words[i : i + len(wanted)]
        if [w[0] for w in window] != wanted:
            continue
        if not code:
            return True
        if all(orig.isupper() or tick for _, orig, tick in window):
            return True
        after = words[i + len(wanted)][1].lower() if i + len(wanted) < len(words) else ""
        if after in TERM_WORDS or (after.endswith("s") and after[:-1] in TERM_WORDS):
            return True
    return False


def _same_concept(a: str, b: str) -> bool:
    stems_a = [light_stem(w) for w in re.findall(r"[^\W_]+", a) if w.lower() not in STOP_WORDS]
    stems_b = [light_stem(w) for w in re.findall(r"[^\W_]+", b) if w.lower() not in STOP_WORDS]
    return bool(stems_a) and stems_a == stems_b


def trigger_matches(
    reminder: Mapping[str, Any],
    message: str | None,
    concept: str | None,
    now: datetime,
) -> bool:
    """True when a pending ``reminder`` (a dict or record fields) should fire on this turn."""
    kind = reminder.get("trigger_kind")
    if kind == "time":
        due = reminder.get("due_at")
        return bool(due) and datetime.fromisoformat(str(due)) <= as_aware(now)
    if message and is_reminder_request(message):
        return False
    if kind == "concept" and concept and _same_concept(str(reminder.get("concept") or ""), concept):
        return True
    keywords: Sequence[str] = list(reminder.get("keywords") or [])
    if kind == "concept" and reminder.get("concept"):
        keywords = [*keywords, str(reminder["concept"])]
    if not message or kind not in ("keywords", "concept"):
        return False
    return any(is_trigger_word(k) and mentions(message, k) for k in keywords)
