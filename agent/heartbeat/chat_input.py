"""The learner's message of a run: KAG's ``request``, or the LangGraph chat convention's ``messages``.

KAG's own clients send ``{"request": "…"}``; LangGraph chat clients (Agent Chat UI, Studio,
the SDK) send the new message in ``messages``, which lands in the display channel through
its reducer before ``receive`` runs. So the learner's message is the **pending** message,
the last one of ``messages`` when that is a human message the FIFO queue has not taken yet;
``receive`` serves it under its own id and appends no second copy.

When a run sends both, ``request`` is served, and it takes the place of the pending message
(same id), so the conversation shows what the tutor answered. A run with neither fails with
an error that names both. ``receive`` consumes ``request`` (it empties it), so a run that fails
later leaves no request behind for a later run to serve again; the request being served is
then the last human message of the queue (``served_request``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import HumanMessage

from agent.errors import InvalidInputError
from agent.validation import MAX_REQUEST_BYTES, validate_request, validate_text

NEITHER = (
    "this run has neither 'request' nor 'messages': request must be a non-empty string, or messages a list "
    'in the LangGraph chat convention ending with the learner\'s message (e.g. [{"role": "user", '
    '"content": "hello"}])'
)


@dataclass(frozen=True)
class LearnerMessage:
    """What ``receive`` serves: the text, and the id it has in ``messages``."""

    text: str
    id: str
    pending: bool
    """True when ``messages`` already holds it (sent by a chat client): nothing is appended."""

    def human(self) -> HumanMessage:
        """The message for the queue and the display channel (same id in both)."""
        return HumanMessage(content=self.text, id=self.id)


def pending_message(state: Mapping[str, Any]) -> HumanMessage | None:
    """The human message a client put in ``messages`` for this run, or None.

    It is the last message of ``messages`` when that is a human message whose id the FIFO
    queue does not hold: a served message is in the queue, an answered one is followed by
    the answer. So a message that a failed run already took is not served twice.
    """
    shown = state.get("messages") or []
    if not shown or not isinstance(shown[-1], HumanMessage):
        return None
    queued = {m.id for m in state.get("fifo_queue") or []}
    return None if shown[-1].id in queued else shown[-1]


def served_request(state: Mapping[str, Any]) -> str:
    """The text of the request being served: the last human message of the FIFO queue ("" if none)."""
    queue = state.get("fifo_queue") or []
    return next((m.text for m in reversed(queue) if isinstance(m, HumanMessage)), "")


def learner_message(state: Mapping[str, Any]) -> LearnerMessage:
    """The run's message: ``request`` when sent, else the pending message's text.

    Raises ``InvalidInputError``: neither was sent, the pending message has no text (an
    image alone), or the text breaks the request rule (blank, over 32 KB, not Unicode).
    """
    pending = pending_message(state)
    request = state.get("request")
    if request not in (None, ""):
        text = validate_request(request)
        return LearnerMessage(text, str(pending.id) if pending else str(uuid.uuid4()), pending is not None)
    if pending is None:
        raise InvalidInputError(NEITHER)
    text = pending.text  # a string, or the text blocks joined (images and other blocks ignored)
    if not text.strip():
        raise InvalidInputError(
            "the last message in 'messages' has no text: send it as a string or as "
            '[{"type": "text", "text": "…"}] blocks (or send \'request\')'
        )
    return LearnerMessage(
        validate_text(text, "the last message of 'messages'", MAX_REQUEST_BYTES), str(pending.id), True
    )
