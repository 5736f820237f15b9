"""Kernel events: what producers put on a learner's stream, and how it is encoded.

An event is one deferred write: an operation name (the store that applies it says
which ones it handles), the learner it belongs to, a JSON payload, and an
idempotency key. The same key enqueued twice is stored once; the worker's writes
are idempotent too (MERGE on ids), so a redelivered event changes nothing.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

OP_RECALL = "recall.log"
"""Messages to log in recall storage: ``{learner_id, session_id, messages: [...]}``."""


@dataclass(frozen=True)
class KernelEvent:
    """One deferred write as read back from a learner's stream."""

    op: str
    """Operation name, routed to the store or handler that applies it."""
    learner_id: str
    """The learner whose stream holds the event (every write is scoped to one learner)."""
    payload: dict[str, Any]
    """The operation's arguments (JSON)."""
    key: str
    """Idempotency key: enqueuing the same key again is a no-op."""
    entry_id: str = ""
    """The Redis Stream entry id (empty before it is enqueued)."""
    parked: bool = False
    """True for a write parked while Neo4j was down (newer direct writes must not overtake it)."""
    at: float = 0.0
    """Enqueue time (epoch seconds), for lag."""
    tail_ids: tuple[str, ...] = field(default=())
    """Ids of the read-your-writes tail items this event carries (removed once it commits)."""


def event_key(op: str, learner_id: str, parts: Iterable[str]) -> str:
    """A deterministic idempotency key from the operation, learner and the item ids it writes."""
    digest = hashlib.sha256("\x1f".join([op, learner_id, *parts]).encode("utf-8")).hexdigest()
    return digest[:32]


def random_key() -> str:
    """A fresh key for writes that are not retried by their producer."""
    return uuid.uuid4().hex


def encode(event: KernelEvent) -> dict[str, str]:
    """Stream fields of ``event``."""
    return {
        "op": event.op,
        "learner": event.learner_id,
        "key": event.key,
        "payload": json.dumps(event.payload, separators=(",", ":")),
        "parked": "1" if event.parked else "0",
        "at": repr(event.at),
        "tail": json.dumps(list(event.tail_ids)),
    }


def decode(entry_id: str, fields: Mapping[str, str]) -> KernelEvent:
    """The event stored as ``fields`` (``ValueError`` when they are not one of ours)."""
    try:
        payload = json.loads(fields["payload"])
        return KernelEvent(
            op=fields["op"],
            learner_id=fields["learner"],
            payload=payload,
            key=fields["key"],
            entry_id=entry_id,
            parked=fields.get("parked") == "1",
            at=float(fields.get("at") or 0.0),
            tail_ids=tuple(str(t) for t in json.loads(fields.get("tail") or "[]")),
        )
    except (KeyError, TypeError, json.JSONDecodeError) as exc:
        raise ValueError(f"stream entry {entry_id} is not a kernel event: {exc}") from exc
