"""Offline rules for prospective memory: when a reminder fires.

Requests are read by the language layer (``agent.language.reminders``: ``parse_reminder``,
``is_reminder_request``, ``split_keywords``, ``is_trigger_word``). **Firing**
(``trigger_matches``), designed for ≤ 2 % false fires:

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
from datetime import datetime
from typing import Any

from agent.clock import as_aware
from agent.language.reminders import MAX_KEYWORDS, is_reminder_request, is_trigger_word, parse_reminder
from agent.text import STOP_WORDS, light_stem

__all__ = ["MAX_KEYWORDS", "is_reminder_request", "is_trigger_word", "mentions", "parse_reminder"]
__all__ += ["trigger_matches"]

TERM_WORDS = frozenset({"clause", "keyword", "statement", "function", "operator", "command"})
_TOKEN = re.compile(r"`[^`]*`|[^\W_]+(?:['\u2019][^\W_]+)?")


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
