"""What the dashboard shows, in a learner's words: dates, what a fact is about, a session's name.

A learner never reads an internal id: a fact's slot ``learner · fact:d9a01b8f…`` becomes
"Something you said", ``learner · residence`` becomes "Where you live", an ISO time
becomes "12 May" (with the year when it is not this year), and a session is named by
its date and topic (the concept of its first note, else its first words).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

ASPECT_WORDS = {
    "residence": "Where you live",
    "job": "Your work",
    "study": "What you study",
    "device": "Your device",
    "language": "Your language",
    "tool": "Tools you use",
    "goal": "Your goal",
    "level": "Your level",
    "name": "Your name",
}
"""The single-valued slots a fact can fill (``agent.language.facts``) as a learner says them."""
SAID = "Something you said"
TOPIC_WORDS = 7
_HEX_ID = re.compile(r"^(fact|note|msg|mem)?[:_-]?[0-9a-f]{8,}$")


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 time (naive is UTC) or None."""
    if not value:
        return None
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def day_words(value: object, now: datetime | None = None) -> str:
    """``12 May`` (``12 May 2025`` outside the current year); empty when ``value`` is no time."""
    moment = parse_time(value)
    if moment is None:
        return ""
    year = (now or datetime.now(UTC)).year
    text = f"{moment.day} {moment.strftime('%b')}"
    return text if moment.year == year else f"{text} {moment.year}"


def aspect_words(subject: str, predicate: str, concept: str | None = None) -> str:
    """What a fact is about, without ids: the aspect's words, a readable predicate, or the concept."""
    if predicate in ASPECT_WORDS and subject in {"learner", "user", ""}:
        return ASPECT_WORDS[predicate]
    if not _HEX_ID.match(predicate) and not predicate.startswith("fact:"):
        who = "" if subject in {"learner", "user", ""} else subject.replace("_", " ") + ": "
        return who + predicate.replace("_", " ")
    return f"About {concept}" if concept else SAID


def topic_words(text: str, words: int = TOPIC_WORDS) -> str:
    """The first ``words`` words of ``text`` (an ellipsis when cut)."""
    parts = str(text or "").split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def session_name(started: object, concept: str | None, first_words: str | None, now: datetime) -> str:
    """``12 May · left join``: the session's date and topic."""
    topic = (concept or "").strip() or topic_words(first_words or "") or "a session"
    day = day_words(started, now)
    return f"{day} · {topic}" if day else topic
