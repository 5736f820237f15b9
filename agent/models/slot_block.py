"""The WORKING MEMORY slot block of a prompt: its text format, written and read back.

The heartbeat renders its task slots into the system prompt (``agent.heartbeat.slots``)
and the offline policy reads them back (``agent.models.offline_reading``). The format is
their contract, so it lives here, at the model's floor, and the heartbeat imports it::

    WORKING MEMORY (task slots)
    - [question id=question relevance=1.00] Where do I live now?
    - [retrieved_fact id=r-fact-42 relevance=0.90] I moved to Hanoi (from 2026-03-01)
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage

HEADER = "WORKING MEMORY (task slots)"
"""First line of the rendered block."""

_LINE = re.compile(r"^- \[(?P<type>[a-z_]+) id=(?P<id>\S+) relevance=(?P<rel>[0-9.]+)\] ?(?P<content>.*)$")


def slot_line(slot_type: str, slot_id: str, relevance: float, content: str) -> str:
    """One slot's line: ``- [<type> id=<id> relevance=<0.00>] <content on one line>``."""
    return f"- [{slot_type} id={slot_id} relevance={relevance:.2f}] {' '.join(content.split())}"


def read_slots(messages: Sequence[BaseMessage | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Parse the slot block out of a prompt's system message (what ``render_slots`` wrote).

    Returns ``[{type, id, relevance, content}]`` in rendered order; ``[]`` when the prompt
    has no slot block. Dict messages (``{"role": "system", "content": ...}``) are accepted.
    """
    for message in messages:
        text = _system_text(message)
        if text is None or HEADER not in text:
            continue
        block = text[text.index(HEADER) + len(HEADER) :].splitlines()[1:]
        out = []
        for line in block:
            match = _LINE.match(line)
            if match is None:
                break
            out.append(
                {
                    "type": match["type"],
                    "id": match["id"],
                    "relevance": float(match["rel"]),
                    "content": match["content"],
                }
            )
        return out
    return []


def _system_text(message: BaseMessage | Mapping[str, Any]) -> str | None:
    if isinstance(message, SystemMessage):
        return message.text
    if isinstance(message, Mapping) and message.get("role") == "system":
        return str(message.get("content", ""))
    return None
