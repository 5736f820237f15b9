"""Times in learner text, relative to the session's clock (``dateparser``).

``due_time``: the instant a time phrase names ("tomorrow", "next Monday at 9", "in two days",
"the day after tomorrow", "tonight"), in ``now``'s time zone, or None when the phrase names
no future instant. ``dateparser`` reads the phrase; nothing here lists dates by hand.
"""

from __future__ import annotations

import re
from datetime import datetime
from functools import lru_cache

from agent.clock import as_aware
from agent.language.grammar import holds_text

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
