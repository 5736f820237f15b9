"""When a stored reminder fires (``trigger_matches``), designed for ≤ 2 % false fires.

What a request asks for and whether a turn names a trigger is the language layer's
(``agent.language.reminders``: ``parse_reminder``, ``mentions``). Here:

- time: ``due_at <= now``; a topic trigger with a ``due_at`` ("On Friday, when we do voice
  leading, remind me …") fires on the first turn that meets the topic at or after that time;
- concept: the turn's concept has the same light stems as the reminder's concept, or the
  message mentions the concept as a keyword;
- keywords: the message names one keyword in the sense the learner gave it
  (``agent.language.trigger_sense.names_trigger``: a code name by its whole-word mention, any
  other keyword by one of its topic words AND MiniLM similarity to the trigger as said, so
  "Any pointers for staying focused?" does not use up a reminder set for "pointers in C");
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
from agent.language.reminder_requests import is_reminder_request
from agent.language.trigger_sense import names_trigger
from agent.language.trigger_topics import is_trigger_word
from agent.text import STOP_WORDS, light_stem


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
    due = reminder.get("due_at")
    if due and datetime.fromisoformat(str(due)) > as_aware(now):
        return False  # a topic with a date ("on Friday, when we do X"): not before its date
    if kind == "concept" and concept and _same_concept(str(reminder.get("concept") or ""), concept):
        return True
    keywords: Sequence[str] = list(reminder.get("keywords") or [])
    if kind == "concept" and reminder.get("concept"):
        keywords = [*keywords, str(reminder["concept"])]
    if not message or kind not in ("keywords", "concept"):
        return False
    return any(is_trigger_word(k) and names_trigger(message, k) for k in keywords)
