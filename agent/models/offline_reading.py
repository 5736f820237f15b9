"""How the offline policy reads what it is given: the prompt, tool results and search hits.

- ``read_core_memory``: the CORE MEMORY sections of the compiled system prompt
  (``<section>…</section>``, see ``agent/heartbeat/prompts.core_memory_block``);
- ``reminder_slots``: the fired reminders in the WORKING MEMORY block
  (``agent.models.slot_block.read_slots``);
- ``result_data`` / ``call_args``: a tool message's JSON and the arguments of its call;
- ``learner_statements`` / ``best_statement`` (the policy's rule 6): what the learner
  *stated* in search hits: hits whose ``role`` is ``user``/``human`` (or have no role:
  archival inserts) and the ``- user:`` lines of archived summaries; questions, the
  policy's own replies and banner, tool-call renderings (``[calls …]``) and
  assistant/tool lines never count. The statement sharing the most query word stems
  wins (ties: the higher-ranked hit).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import BaseMessage, SystemMessage, ToolMessage

from agent.language.questions import is_question
from agent.models.slot_block import read_slots
from agent.text import QUERY_STOP_WORDS, light_stem
from agent.turns import CALL_MARK, TURN_KIND, turn_of

OFFLINE_BANNER = "[offline policy, not an LLM]"

LEARNER_ROLES = frozenset({"user", "human"})  # recall storage says "user", LangChain "human"

_CORE_SECTION = re.compile(r"<([a-z][a-z0-9_]*)>\n(.*?)\n</\1>", re.S)
_ROLE_LINE = re.compile(r"^\s*-?\s*(user|assistant|tool|summary):\s*(.*)$", re.I)

_REMINDER_SLOT = re.compile(
    r"^REMINDER\s+(?P<id>[\w.:-]+):\s*(?P<description>.+?)"
    r"(?:\s+\(action:.*?\))?(?:\.?\s*Act on it\b.*)?$"
)
"""A fired reminder's slot: ``REMINDER <id>: <description>[ (action: …)]. Act on it, …``."""


def read_core_memory(messages: Sequence[BaseMessage]) -> dict[str, str]:
    """The CORE MEMORY sections rendered in the system message(s) of a prompt."""
    sections: dict[str, str] = {}
    for message in messages:
        if isinstance(message, SystemMessage) and "CORE MEMORY" in message.text:
            block = message.text[message.text.index("CORE MEMORY") :]
            for name, text in _CORE_SECTION.findall(block):
                if text.strip() and text.strip() != "(empty)":
                    sections[name] = text.strip()
    return sections


def query_stems(text: str) -> set[str]:
    """The light stems of ``text``'s words, without function and recall words (for matching a question)."""
    return {light_stem(w) for w in re.findall(r"[\w+#]+", text.lower()) if w not in QUERY_STOP_WORDS}


def _is_boilerplate(text: str) -> bool:
    return OFFLINE_BANNER in text or CALL_MARK in text or text.startswith("From your memory")


def learner_statements(hit: Mapping[str, Any]) -> list[str]:
    """What the learner stated in one search hit (rule 6): no questions, replies or tool calls."""
    role = str(hit.get("role") or "user").lower()
    text = str(hit.get("text") or "")
    if hit.get("kind") == TURN_KIND:
        text = turn_of(text)  # judge the turn, not its date or the turn it replies to
    if role not in LEARNER_ROLES or not text.strip():
        return []
    found: list[str] = []
    for line in text.splitlines():
        match = _ROLE_LINE.match(line)
        if match:
            if match.group(1).lower() != "user":
                continue
            line = match.group(2)
        line = line.strip()
        if line and not is_question(line) and not _is_boilerplate(line):
            found.append(line)
    return found


def best_statement(query: str, hits: Sequence[Mapping[str, Any]]) -> str | None:
    """The learner statement sharing the most query stems (ties: the higher-ranked hit)."""
    wanted = query_stems(query)
    best, best_score = None, 0
    for hit in hits:
        if not isinstance(hit, Mapping):
            continue
        for statement in learner_statements(hit):
            score = len(wanted & query_stems(statement))
            if score > best_score:
                best, best_score = statement, score
    return best


def result_data(message: ToolMessage) -> Any:
    """A tool message's content parsed as JSON, else its text."""
    text = message.text if isinstance(message.content, list) else str(message.content)
    try:
        return json.loads(text)
    except (TypeError, ValueError):
        return text


def call_args(messages: Sequence[BaseMessage], call_id: str | None) -> dict[str, Any]:
    """The arguments of the tool call ``call_id`` among ``messages`` (``{}`` when not found)."""
    for message in messages:
        for call in getattr(message, "tool_calls", None) or []:
            if call.get("id") == call_id:
                return dict(call.get("args") or {})
    return {}


def reminder_slots(messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
    """``(reminder id, description)`` of each REMINDER slot in the prompt's WORKING MEMORY."""
    matches = (_REMINDER_SLOT.match(str(slot.get("content", "")).strip()) for slot in read_slots(messages))
    return [(match["id"], match["description"].strip()) for match in matches if match]
