"""What a stored conversational turn looks like: its kinds, ids and text forms.

The heartbeat writes recall messages, the kernel derives a ``turn_context`` memory and its
sentences from them (``agent.kernel.derive``, ``agent.kernel.sentences``), memory blends and
search rank them, and the offline policy reads them back. They all need the same few facts
about a turn, and none of them should import the others for it, so those facts live here,
below every concern (this module imports nothing of KAG):

- a tool call rendered in recall storage starts with :data:`CALL_MARK`;
- a turn context is an archival memory of kind :data:`TURN_KIND`, id
  ``<message id>-ctx`` (:func:`turn_context_id`), text
  ``"<date>. <the turn> (replying to <the turn before it>)"`` (:func:`turn_context_text`,
  dates by :func:`date_text`; :func:`turn_of` takes the turn back out);
- a turn sentence's id is ``<turn context id>~<n>`` (:func:`sentence_id`,
  :func:`turn_of_sentence`).
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime

CALL_MARK = "[calls "
"""How the heartbeat renders a tool call in recall storage (``agent.heartbeat.turn``)."""

TURN_KIND = "turn_context"
"""The archival ``kind`` of a derived turn context."""
MAX_PART_CHARS = 3800
"""Each of the turn and the turn replied to is cut to this many characters (the whole
memory stays under the archival store's 32 KB text limit in any encoding)."""
SEPARATOR = "~"
"""Between a turn context id and a sentence's number in the sentence's id."""
_MAX_ID = 256


def date_text(created_at: str | None) -> str | None:
    """``created_at`` as ``"8:56 pm on 20 July, 2023"`` (UTC; naive times are UTC).

    Unparsable text gives its first 10 characters (a plain ISO date), ``None`` gives ``None``.
    """
    if not created_at:
        return None
    try:
        moment = datetime.fromisoformat(created_at)
    except (TypeError, ValueError):
        return str(created_at)[:10]
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    hour = moment.hour % 12 or 12
    half = "am" if moment.hour < 12 else "pm"
    return f"{hour}:{moment.minute:02d} {half} on {moment.day} {moment:%B}, {moment.year}"


def _cut(text: str) -> str:
    text = text.strip()
    return text if len(text) <= MAX_PART_CHARS else text[: MAX_PART_CHARS - 1] + "…"


def turn_context_text(date: str | None, content: str, previous: str | None = None) -> str:
    """``"<date>. <content> (replying to <previous>)"``; the date and the reply part when known."""
    text = f"{date}. {_cut(content)}" if date else _cut(content)
    return f"{text} (replying to {_cut(previous)})" if previous else text


_DATED = re.compile(r"^\d{1,2}:\d{2} [ap]m on \d{1,2} \w+, \d{4}\. ", re.IGNORECASE)
_REPLY = re.compile(r" \(replying to .*\)$", re.DOTALL)


def turn_of(text: str) -> str:
    """The turn itself in a turn context's text: the inverse of :func:`turn_context_text`.

    Readers that judge what was said (a statement or a question) look at the turn, not at
    its date or the turn it replies to. A date that is not in :func:`date_text`'s style stays.
    """
    return _REPLY.sub("", _DATED.sub("", text, count=1), count=1).strip()


def turn_context_id(message_id: str) -> str:
    """The turn context's memory id: ``<message id>-ctx`` (a hash when that would be too long)."""
    derived = f"{message_id}-ctx"
    if len(derived) <= _MAX_ID:
        return derived
    return f"ctx-{hashlib.sha256(message_id.encode()).hexdigest()[:40]}"


def sentence_id(turn_context_id: str, n: int) -> str:
    """The ``n``-th sentence's id: ``<turn context id>~<n>``."""
    return f"{turn_context_id}{SEPARATOR}{n}"


def turn_of_sentence(sentence_node_id: str) -> str:
    """The turn context id a sentence id belongs to (the inverse of :func:`sentence_id`)."""
    return sentence_node_id.rsplit(SEPARATOR, 1)[0]
