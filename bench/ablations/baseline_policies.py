"""Logic of the design's baselines (bench/ablations/baseline_graphs.py wires them).

- **Fixed window**: the model sees the *first* tokens of the conversation that
  fit its budget, plus the current turn; nothing is archived, later turns fall
  off the end.
- **Sliding window**: the model sees the *last* tokens that fit, plus the
  current turn; older turns are dropped for good (no archival memory).
- **RAG-only**: no core memory, no queue and no loop: every request retrieves
  the top-k past messages (recall storage) and the model answers once.

The budget is the run's ``max_tokens``, the same as the heartbeat's, so the
comparison is about what each policy keeps, not how much. A window keeps the
dialogue (learner messages and final answers); tool traffic of a turn is not
retained. A window's content is also searchable with ``search_window`` (the
window tools bind it as ``conversation_search``): the offline policy cannot read
its prompt, so this is how it "sees" the window; a real model can do both.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from typing import Any, Literal

from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from agent.heartbeat.tokens import count_messages
from agent.models.offline_policy import OFFLINE_BANNER
from agent.search.results import keyword_rank

Keep = Literal["first", "last"]
RETRIEVE_TOOL = "retrieve"

WINDOW_SYSTEM = """You are a patient tutor for one learner.
You have no long-term memory: you see only {which} of the conversation that fits your
context window, and conversation_search searches exactly that part, nothing older or newer.
If something is not in view, say you do not know; never invent it."""
RAG_SYSTEM = """You are a patient tutor for one learner.
You have no working memory between requests. Before each answer, past messages that match
the request were retrieved from the learner's history (the retrieve result below).
Answer from them; if they do not contain the answer, say you do not know."""


def window_system(keep: Keep) -> SystemMessage:
    """The baseline's system prompt."""
    which = "the first part" if keep == "first" else "the most recent part"
    return SystemMessage(content=WINDOW_SYSTEM.format(which=which))


def rag_system() -> SystemMessage:
    """The RAG-only system prompt."""
    return SystemMessage(content=RAG_SYSTEM)


def select_window(history: Sequence[AnyMessage], budget: int, keep: Keep) -> list[AnyMessage]:
    """The longest prefix (``first``) or suffix (``last``) of ``history`` within ``budget`` tokens."""
    ordered = list(history) if keep == "first" else list(reversed(history))
    chosen: list[AnyMessage] = []
    used = 0
    for message in ordered:
        cost = count_messages([message])
        if used + cost > budget:
            break
        chosen.append(message)
        used += cost
    return chosen if keep == "first" else list(reversed(chosen))


def remaining_budget(max_tokens: int, *fixed: Sequence[BaseMessage]) -> int:
    """Tokens left for the window once the ``fixed`` parts of the prompt are counted."""
    return max(0, max_tokens - sum(count_messages(part) for part in fixed))


def dialogue(turn: Sequence[AnyMessage]) -> list[AnyMessage]:
    """The messages a window keeps from one turn: the learner's and the final answer."""
    kept: list[AnyMessage] = [m for m in turn if isinstance(m, HumanMessage)]
    answers = [m for m in turn if isinstance(m, AIMessage) and not m.tool_calls]
    return kept + answers[-1:]


def retain(
    history: Sequence[AnyMessage], turn: Sequence[AnyMessage], budget: int, keep: Keep
) -> list[AnyMessage]:
    """The history after a turn: ``history`` plus the turn's dialogue, cut to ``budget``."""
    return select_window([*history, *dialogue(turn)], budget, keep)


def search_window(window: Sequence[AnyMessage], query: str, k: int = 5) -> list[dict[str, Any]]:
    """Rank the window's messages by query-word overlap (newest first on ties); top ``k`` hits."""
    docs = [
        {"id": str(i), "text": m.text.replace(OFFLINE_BANNER, "").strip(), "role": m.type}
        for i, m in reversed(list(enumerate(window)))
    ]
    by_id = {d["id"]: d for d in docs}
    ranked = keyword_rank(query, docs, text_key="text")[:k]
    return [{**by_id[f.id], "score": round(f.score, 4), "kind": "window"} for f in ranked]


def rag_exchange(hits: Sequence[dict[str, Any]], query: str) -> list[AnyMessage]:
    """The retrieval as a tool call and its result, the way the model reads tool output."""
    call_id = f"{RETRIEVE_TOOL}-{uuid.uuid4().hex[:8]}"
    call = AIMessage(
        content="",
        tool_calls=[{"name": RETRIEVE_TOOL, "args": {"query": query}, "id": call_id, "type": "tool_call"}],
    )
    rows = [{"text": str(h.get("text", "")), "score": h.get("score")} for h in hits]
    result = ToolMessage(content=json.dumps({"results": rows}), tool_call_id=call_id, name=RETRIEVE_TOOL)
    return [call, result]
