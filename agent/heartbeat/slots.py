"""Working memory task slots: what the heartbeat is holding in mind for the current request.

Slots live in graph state next to the FIFO queue (``HeartbeatState.slots``) and render
in the compiled prompt after core memory. They never replace core memory or the queue:
they are the request's scratchpad (the question, the plan, retrieved facts, evaluations,
triggered reminders) and they are cleared when the request is answered.

The rules (issue 13, design §4: capacity, dedupe by id, the clear sentinel) are the reducer's,
``merge_slots``; the types are ``SLOT_TYPES``.

The rendered block is a contract with the offline policy (its format and ``read_slots``, which
parses it, are in ``agent.models.slot_block``)::

    WORKING MEMORY (task slots)
    - [question id=question relevance=1.00] Where do I live now?
    - [retrieved_fact id=r-fact-42 relevance=0.90] I moved to Hanoi (from 2026-03-01)

One line per slot, in state order; content is flattened to one line and capped at
``MAX_CONTENT_CHARS``.

Slots from memory (``hit_slots``, ``tool_hits``) get a **relevance** of
``0.3 + 0.6 * score / best score`` within one result list, so a search's best hit (0.9)
ranks below the question, reminders and evaluations and the weakest hits are evicted first.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from langchain_core.messages import ToolMessage
from typing_extensions import TypedDict  # typing.TypedDict has no JSON schema on Python < 3.12

from agent.models.slot_block import HEADER, slot_line
from agent.search.results import SearchHit

SLOT_TYPES: tuple[str, ...] = (
    "question",
    "retrieved_fact",
    "reasoning_step",
    "context",
    "plan",
    "evaluation",
)
MAX_SLOTS = 20
"""Working memory capacity (design §4)."""
MAX_CONTENT_CHARS = 500
"""A slot's content is cut to this many characters, so slots stay small in the prompt."""
CLEAR_ID = "__clear_slots__"
"""Id of the sentinel slot that empties working memory inside an update."""


class Slot(TypedDict):
    """One working memory slot."""

    id: str
    """Stable id (no spaces or brackets): ``question``, ``reminder-<id>``, ``r-<kind>-<hit id>``…"""
    type: str
    """One of ``SLOT_TYPES``."""
    content: str
    """What the slot holds, one line, at most ``MAX_CONTENT_CHARS``."""
    relevance: float
    """0..1: how much the slot matters for the request; the lowest is evicted first."""
    source: str
    """Where it came from: ``request``, ``appraise``, ``reminders``, a tool name…"""
    meta: dict[str, Any]
    """Structured extras (hit kind and score, coverage figures, reminder priority…)."""


def slot_id(text: str) -> str:
    """``text`` made safe as a slot id (whitespace and brackets become ``_``)."""
    return "_".join(str(text).replace("[", " ").replace("]", " ").split()).strip("_")[:120] or "slot"


def make_slot(
    type: str,  # noqa: A002 - the slot field is called type
    content: str,
    *,
    id: str,  # noqa: A002 - the slot field is called id
    relevance: float = 0.5,
    source: str = "heartbeat",
    meta: Mapping[str, Any] | None = None,
) -> Slot:
    """A checked slot: known type, safe id, one-line capped content, relevance clamped to 0..1."""
    if type not in SLOT_TYPES:
        raise ValueError(f"unknown slot type {type!r}; known: {', '.join(SLOT_TYPES)}")
    flat = " ".join(str(content).split())
    if len(flat) > MAX_CONTENT_CHARS:
        flat = flat[: MAX_CONTENT_CHARS - 1] + "…"
    return Slot(
        id=slot_id(id),
        type=type,
        content=flat,
        relevance=round(min(1.0, max(0.0, float(relevance))), 3),
        source=source,
        meta=dict(meta or {}),
    )


def clear_slots() -> Slot:
    """The sentinel: in a ``slots`` update it empties everything held before it."""
    return Slot(id=CLEAR_ID, type="context", content="", relevance=0.0, source="clear", meta={})


def merge_slots(left: Sequence[Slot] | None, right: Sequence[Slot] | Slot | None) -> list[Slot]:
    """Reducer of ``HeartbeatState.slots``: dedupe by id, honour the clear sentinel, cap at 20.

    A slot whose id is already held replaces it in place. When more than ``MAX_SLOTS``
    remain, the lowest relevance goes first; among equals, the oldest (earliest in order).
    """
    if isinstance(right, Mapping):
        right = [right]  # type: ignore[list-item]
    held: dict[str, Slot] = {}
    for slot in [*(left or []), *(right or [])]:
        if slot.get("id") == CLEAR_ID:
            held = {}
            continue
        held[slot["id"]] = slot  # same id: replaced in place (dict keeps the first position)
    slots = list(held.values())
    if len(slots) <= MAX_SLOTS:
        return slots
    order = sorted(range(len(slots)), key=lambda i: (float(slots[i].get("relevance", 0.0)), i))
    evicted = set(order[: len(slots) - MAX_SLOTS])
    return [s for i, s in enumerate(slots) if i not in evicted]


def render_slots(slots: Iterable[Slot]) -> str:
    """The prompt block: ``WORKING MEMORY (task slots)`` then one line per slot ("" when empty)."""
    lines = [
        slot_line(s["type"], s["id"], float(s.get("relevance", 0.0)), str(s.get("content", "")))
        for s in slots
        if s.get("id") != CLEAR_ID
    ]
    return "\n".join([HEADER, *lines]) if lines else ""


# ----- slots from search results and fired reminders -----
SEARCH_TOOLS = frozenset(
    {"archival_memory_search", "conversation_search", "search_facts", "recall_procedure"}
)
"""Tools whose results become ``retrieved_fact`` slots."""


TOOL_HITS = 3
"""Retrieved slots per search tool call (its top hits)."""


def describe_hit(kind: str, text: str, meta: Mapping[str, Any], created_at: str | None) -> str:
    """A retrieved slot's content: kind, when it held (facts) or happened, the text."""
    when = meta.get("valid_from") or created_at
    stamp = f"({str(when)[:10]}) " if when else ""
    ended = meta.get("valid_to")
    status = f" [superseded {str(ended)[:10]}]" if ended else (" [current]" if meta.get("current") else "")
    return f"{kind}: {stamp}{text}{status}"


def _cut(text: str, chars: int) -> str:
    return text if len(text) <= chars else text[: max(1, chars - 1)] + "…"


def _relevances(scores: Sequence[float]) -> list[float]:
    best = max((s for s in scores if s > 0), default=0.0)
    return [0.3 + 0.6 * (s / best if best else 0.0) for s in scores] if best else [0.5] * len(scores)


def hit_slots(
    hits: Sequence[SearchHit],
    source: str,
    meta: Mapping[str, Any] | None = None,
    *,
    chars: int = MAX_CONTENT_CHARS,
) -> list[Slot]:
    """``retrieved_fact`` slots for ``hits`` (ids ``r-<kind>-<hit id>``), content cut at ``chars``."""
    rels = _relevances([float(h.score or 0.0) for h in hits])
    return [
        make_slot(
            "retrieved_fact",
            _cut(describe_hit(h.kind, h.text, h.metadata or {}, h.created_at), chars),
            id=f"r-{h.kind}-{h.id}",
            relevance=rel,
            source=source,
            meta={"kind": h.kind, "hit_id": h.id, "score": round(float(h.score or 0.0), 6), **(meta or {})},
        )
        for h, rel in zip(hits, rels, strict=True)
    ]


def tool_hits(message: ToolMessage) -> list[SearchHit]:
    """The top ``TOOL_HITS`` hits of a search tool's JSON result (``{"results": [...]}``)."""
    try:
        data = json.loads(message.text)
    except ValueError:
        return []
    rows = data.get("results") if isinstance(data, Mapping) else None
    hits = []
    for row in (rows or [])[:TOOL_HITS]:
        if not isinstance(row, Mapping) or not (row.get("text") or row.get("content")):
            continue
        meta = {k: row[k] for k in ("valid_from", "valid_to", "current") if k in row}
        hits.append(
            SearchHit(
                id=str(row.get("id", "")),
                text=str(row.get("text") or row.get("content")),
                score=float(row.get("score") or 0.0),
                created_at=row.get("created_at"),
                kind=str(row.get("kind") or message.name),
                metadata=meta,
            )
        )
    return hits


def reminder_slot(reminder: Any) -> Slot:
    """A fired reminder as a ``plan`` slot (``REMINDER <id>: <description>``, relevance 1.0)."""
    action = getattr(reminder, "action", None) or ""
    action = (
        ""
        if not action or action == f"Remind the learner to {reminder.description}"
        else f" (action: {action})"
    )
    return make_slot(
        "plan",
        f"REMINDER {reminder.id}: {reminder.description}{action}. Act on it, then resolve_reminder.",
        id=f"reminder-{reminder.id}",
        relevance=1.0,
        source="reminders",
        meta={"priority": reminder.priority, "trigger_kind": reminder.trigger_kind},
    )
