"""What the archival store keeps: records, stable ids and validated memory payloads (no I/O)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from agent.errors import InvalidInputError
from agent.graphdb.store import check_text, normalise_time
from agent.validation import validate_text

MAX_TAGS = 20
KIND = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,31}$")
ID = re.compile(r"^[^\x00-\x1f\x7f]{1,256}$")  # ids only ever travel as parameters


@dataclass(frozen=True)
class ArchivalRecord:
    """What ``insert`` stored (or parked, when ``degraded``)."""

    id: str
    learner_id: str
    text: str
    kind: str
    tags: list[str]
    created_at: str
    seq: int | None = None
    """Monotonic per learner; None while the write is parked in the backlog."""
    session_id: str | None = None
    occurred_at: str | None = None
    source_ids: list[str] = field(default_factory=list)
    created: bool | None = None
    """False when the memory already existed (idempotent insert); None when parked."""
    linked_sources: int = 0
    degraded: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


@dataclass(frozen=True)
class WriteResult:
    """The id of a written record, and whether the write was parked in the backlog."""

    id: str
    degraded: bool = False
    """True when Neo4j was down and the write was parked in Redis (replayed later)."""


def memory_id_for(learner_id: str, content: str, kind: str) -> str:
    """Stable id of a memory: the same learner, kind and content give the same id."""
    digest = hashlib.sha256(f"{learner_id}\x00{kind}\x00{content}".encode()).hexdigest()
    return f"mem-{digest[:32]}"


def summary_id_for(learner_id: str, text: str, message_ids: Sequence[str], previous: str | None) -> str:
    """Stable id of a summary: a retried archive step writes the same node."""
    material = "\x00".join([learner_id, text, previous or "", *sorted(message_ids)])
    return f"sum-{hashlib.sha256(material.encode()).hexdigest()[:32]}"


def valid_ids(values: Sequence[str], name: str) -> list[str]:
    """``values`` as distinct ids in order; a string or a malformed id is an error."""
    if isinstance(values, str):
        raise InvalidInputError(f"{name} must be a sequence of ids, not a string")
    out = []
    for value in values:
        if not isinstance(value, str) or not ID.match(value):
            raise InvalidInputError(f"{name}: invalid id {str(value)[:80]!r}")
        out.append(value)
    return list(dict.fromkeys(out))


def memory_payload(
    learner_id: str,
    created_at: str,
    *,
    content: str,
    tags: Sequence[str] = (),
    kind: str = "memory",
    source_ids: Sequence[str] = (),
    occurred_at: str | None = None,
    session_id: str | None = None,
    memory_id: str | None = None,
    disclosure: bool | None = None,
) -> dict[str, Any]:
    """Validate one memory and return its stored (and parked) form.

    ``disclosure``: set on turn contexts only (``agent.kernel.derive.is_disclosure``);
    None leaves the memory without the flag, which search treats as neutral.
    """
    check_text(content, "content")
    if not isinstance(kind, str) or not KIND.match(kind):
        raise InvalidInputError(f"kind must match {KIND.pattern}, got {kind!r}")
    if memory_id is not None and not ID.match(str(memory_id)):
        raise InvalidInputError(f"invalid memory_id {str(memory_id)[:80]!r}")
    if session_id is not None and not ID.match(str(session_id)):
        raise InvalidInputError(f"invalid session_id {str(session_id)[:80]!r}")
    return {
        "learner_id": learner_id,
        "id": memory_id or memory_id_for(learner_id, content, kind),
        "text": content,
        "tags": _tags(tags),
        "kind": kind,
        "source_ids": valid_ids(source_ids, "source_ids"),
        "occurred_at": normalise_time(occurred_at, "occurred_at") or created_at,
        "session_id": session_id,
        "created_at": created_at,
        **({"disclosure": bool(disclosure)} if disclosure is not None else {}),
    }


def _tags(tags: Sequence[str]) -> list[str]:
    if isinstance(tags, str):
        tags = [tags]
    cleaned = [validate_text(t, "tags", 256).strip() for t in tags if isinstance(t, str) and t.strip()]
    if len(cleaned) > MAX_TAGS or any(len(t) > 64 for t in cleaned):
        raise InvalidInputError(f"at most {MAX_TAGS} tags of at most 64 characters")
    return list(dict.fromkeys(cleaned))
