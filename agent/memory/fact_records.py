"""Fact values: the record, the validated write payload, and row conversions (``agent.memory.facts``)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from typing import Any

from agent.errors import InvalidInputError
from agent.graphdb.store import check_text, normalise_time
from agent.language.facts import fact_slot, replaced_values
from agent.memory.records import ID
from agent.search.results import SearchHit
from agent.validation import validate_text

SOURCES = ("learner", "tutor", "tool", "import", "inferred")
"""Where a fact came from."""
_SLOT_PART = re.compile(r"^[^\x00-\x1f\x7f]{1,128}$")


def normalise_fact(text: str) -> str:
    """Lower-cased text with single spaces and no trailing punctuation (the idempotency key)."""
    return re.sub(r"\s+", " ", text.strip().lower()).rstrip(" .!;,")


def utc_iso(value: str | datetime | None, name: str) -> str | None:
    """``value`` as UTC ISO-8601 (naive times are UTC); bad input -> InvalidInputError."""
    if isinstance(value, datetime):
        value = value.isoformat()
    text = normalise_time(value, name)
    return None if text is None else datetime.fromisoformat(text).astimezone(UTC).isoformat()


def names_value(text: str, value: str) -> bool:
    """True when ``text`` names ``value`` as whole words (case-insensitive)."""
    return re.search(rf"(?<!\w){re.escape(value.lower())}(?!\w)", text.lower()) is not None


@dataclass(frozen=True)
class FactRecord:
    """One version of a fact."""

    id: str
    subject: str
    predicate: str
    content: str
    concept: str | None
    confidence: float
    source: str
    valid_from: str
    valid_to: str | None
    recorded_at: str
    superseded: list[str] = field(default_factory=list)
    """Ids of the facts this one closed (``SUPERSEDES``)."""
    degraded: bool = False
    """True when the write was parked (Neo4j down): it applies on replay."""

    @property
    def current(self) -> bool:
        """True while the fact is still valid."""
        return self.valid_to is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {**asdict(self), "current": self.current}


def fact_payload(learner_id: str, recorded_at: str, content: str, **args: Any) -> dict[str, Any]:
    """The validated write payload of ``FactStore.remember`` (what is parked and replayed)."""
    text = check_text(content, "fact content").strip()
    norm = normalise_fact(text)
    subject, predicate = args["subject"], args["predicate"]
    if (subject is None) != (predicate is None):
        raise InvalidInputError("give both subject and predicate, or neither")
    slotted = subject is not None
    if subject is None:
        slot = fact_slot(text)
        digest = hashlib.sha256(norm.encode()).hexdigest()[:16]
        subject, predicate = slot or ("learner", f"fact:{digest}")
    for name, value in (("subject", subject), ("predicate", predicate)):
        if not isinstance(value, str) or not _SLOT_PART.match(value.strip()):
            raise InvalidInputError(f"{name} must be 1-128 printable characters")
    concept = args["concept"]
    if concept is not None:
        concept = validate_text(concept, "concept", 1024).strip()
    confidence = args["confidence"]
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not 0 <= confidence <= 1:
        raise InvalidInputError(f"confidence must be a number from 0 to 1, got {confidence!r}")
    if args["source"] not in SOURCES:
        raise InvalidInputError(f"source must be one of {', '.join(SOURCES)}, got {args['source']!r}")
    episode_id = args["episode_id"]
    if episode_id is not None and (not isinstance(episode_id, str) or not ID.match(episode_id)):
        raise InvalidInputError(f"invalid episode_id {str(episode_id)[:80]!r}")
    valid_from = utc_iso(args["valid_from"], "valid_from") or recorded_at
    subject, predicate = subject.strip().lower(), predicate.strip().lower()
    key = "\x1f".join((learner_id, subject, predicate, norm, valid_from))
    return {
        "learner_id": learner_id,
        "id": "fact-" + hashlib.sha256(key.encode()).hexdigest()[:32],
        "text": text,
        "norm": norm,
        "subject": subject,
        "predicate": predicate,
        "slotted": slotted,
        "replaced": replaced_values(text),
        "concept": concept,
        "confidence": float(confidence),
        "source": args["source"],
        "valid_from": valid_from,
        "recorded_at": recorded_at,
        "episode_id": episode_id,
    }


def parked_record(p: dict[str, Any]) -> FactRecord:
    """The record of a parked write (``degraded=True``: it applies on replay)."""
    return FactRecord(
        id=p["id"],
        subject=p["subject"],
        predicate=p["predicate"],
        content=p["text"],
        concept=p["concept"],
        confidence=p["confidence"],
        source=p["source"],
        valid_from=p["valid_from"],
        valid_to=None,
        recorded_at=p["recorded_at"],
        degraded=True,
    )


def pairs(rows: list[dict[str, Any]]) -> list[tuple[str, float]]:
    """``(id, score)`` pairs of query rows (a ranked list for RRF)."""
    return [(str(r["id"]), float(r["score"] or 0.0)) for r in rows]


def record_from_row(row: dict[str, Any]) -> FactRecord:
    """A ``FACT_FIELDS`` row as a record."""
    return FactRecord(
        id=row["id"],
        subject=row["subject"],
        predicate=row["predicate"],
        content=row["text"],
        concept=row["concept"],
        confidence=float(row["confidence"] if row["confidence"] is not None else 1.0),
        source=row["source"] or "learner",
        valid_from=row["valid_from"],
        valid_to=row["valid_to"],
        recorded_at=row["recorded_at"],
        superseded=sorted(row["superseded"] or []),
    )


def hit_from_row(row: dict[str, Any], score: float, scores: dict[str, float]) -> SearchHit:
    """A ``FACT_FIELDS`` row as a search hit (``kind="fact"``, ``created_at = valid_from``)."""
    keys = (
        "subject",
        "predicate",
        "valid_from",
        "valid_to",
        "recorded_at",
        "concept",
        "confidence",
        "source",
    )
    meta = {k: row[k] for k in keys}
    meta.update(
        current=row["valid_to"] is None,
        label="Fact",
        access_count=row["access_count"],
        superseded=sorted(row.get("superseded") or []),
    )
    return SearchHit(
        id=row["id"],
        text=row["text"] or "",
        score=score,
        created_at=row["valid_from"],
        kind="fact",
        tags=["fact"],
        scores=scores,
        metadata=meta,
    )


def expand_hit(row: dict[str, Any]) -> SearchHit:
    """A hit of ``FACT_EXPAND``: nearer (fewer hops, better seed) scores higher."""
    score = 1.0 / (1 + row["best"] + row["distance"])
    return SearchHit(
        id=row["id"],
        text=row["text"] or "",
        score=score,
        created_at=row["created_at"],
        kind=row["kind"],
        scores={"expand": score},
        metadata={"distance": row["distance"], "session_id": row["session_id"], "label": "expand"},
    )
