"""Fact values: the record, the validated write payload, and row conversions (``agent.memory.facts``)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

import numpy as np

from agent.errors import InvalidInputError
from agent.graphdb.store import check_text, normalise_time
from agent.language.change_owner import names_a_thing, names_another_owner, names_another_thing
from agent.language.differences import (
    CHANGE_MIN,
    DATE_CHANGE_MIN,
    DONE_MIN,
    LOOSE_CHANGE_MIN,
    LOOSE_MARGIN,
    NAMED_LOOSE_MIN,
    NEWER_MARGIN,
    counts_alike,
    resolve_change,
    shift,
)
from agent.language.encoder import encode
from agent.language.facts import fact_slot, replaced_values
from agent.language.restated import RESTATE_MIN, restates
from agent.language.same_thing import (
    answer_groups,
    disagreeing,
    gives_a_new_value,
    merged,
    retire_choice,
    same_pairs,
)
from agent.language.whose_value import not_current, other_group
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
    meta.update(current=row["valid_to"] is None, label="Fact", access_count=row["access_count"])
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


def changed_fact(
    p: dict[str, Any], rows: Sequence[dict[str, Any]]
) -> tuple[dict[str, Any], str | None] | None:
    """The current fact a statement outside the known slots gives a new value to, or None.

    ``rows``: the learner's closest current facts (``FACT_CLOSEST``, best first). A change
    stated as a difference ("postponed by a week", "another 60 words", "cut in half") takes the
    closest fact it resolves against (cosine at least ``differences.CHANGE_MIN``, a date moved:
    ``DATE_CHANGE_MIN``) and the new
    value ("June 19"; from a changed fact's "(now …)" value), or with none that close the newest
    it loosely changes (an ellipsis, "Did eleven more over the weekend"; ``_loosely_changes``);
    any other statement takes
    the fact ``retire_choice`` is near-certain of, with no value (``agent.language.same_thing``),
    or else a fact holding a computed total the statement restates outright (``restated.restates``).
    """
    if p["slotted"] or not p["predicate"].startswith("fact:") or not rows:
        return None
    change = shift(p["text"])
    if change is not None:
        low = DATE_CHANGE_MIN if change.time is not None else DONE_MIN if change.done else CHANGE_MIN
        new_at = datetime.fromisoformat(p["valid_from"])
        return _changed_by_difference(p["text"], rows, new_at, low, loose=not change.done)
    chosen = retire_choice(p["text"], [r["text"] or "" for r in rows], [r["score"] for r in rows])
    if chosen is None:
        # "Correction: … I'm at 52 hours total" after "(now 46.5)": the learner's own total outranks KAG's
        chosen = next(
            (
                i
                for i, r in enumerate(rows)
                if r["score"] >= RESTATE_MIN and restates(p["text"], r["text"] or "")
            ),
            None,
        )
    return None if chosen is None else (dict(rows[chosen]), None)


def _changed_by_difference(
    text: str, rows: Sequence[dict[str, Any]], new_at: datetime, low: float, *, loose: bool = True
) -> tuple[dict[str, Any], str] | None:
    """The fact a difference changes and its new value: the closest it resolves against at ``low`` or more.

    Two open facts can hold one thing's old and new value when the write was not sure enough
    to close the old one ("My midterm is on May 4", then "The professor put the midterm on May
    11"); the closest may be the older. Among the facts it resolves against, a newer one about
    the same thing as the closest (``same_thing.same_pairs``, the read-time net's own test, so
    the value changed is the one a search shows first) and nearly as close to the statement
    (``differences.NEWER_MARGIN``: "20 new words to the Czech deck" is not about the Polish
    one) is the value the difference changes.
    """
    found: list[tuple[dict[str, Any], str]] = []
    fits: list[tuple[dict[str, Any], str]] = []
    for row in rows:
        if row["score"] < LOOSE_CHANGE_MIN:
            break
        old_at = datetime.fromisoformat(row["valid_from"])
        value = resolve_change(text, row["text"] or "", old_at=old_at, new_at=new_at)
        if value is None:
            continue
        old = row["text"] or ""
        if names_another_owner(text, old):
            continue  # "My instructor has put in 3000 hours" is no change of the learner's hours
        if row["score"] >= low:
            found.append((dict(row), value))
        elif loose and _loosely_changes(text, old, row["score"]):
            fits.append((dict(row), value))  # not for work done with no direction word ("Wrote 900 words")
    if not found and fits:
        # An increment told as an ellipsis ("Did eleven more over the weekend", "Lost 20 last
        # night") is far by meaning from the total it changes: the newest it fits, else the clearly closest.
        return _loose_choice(fits)
    if len(found) < 2:
        return found[0] if found else None
    texts = [str(row["text"] or "") for row, _ in found]
    same = same_pairs(texts, encode(texts))[0]
    near = found[0][0]["score"] - NEWER_MARGIN
    newest = max(
        (k for k in range(len(found)) if k == 0 or (same[k] and found[k][0]["score"] >= near)),
        key=lambda k: str(found[k][0]["valid_from"]),
    )
    return found[newest]


def _loose_choice(loose: list[tuple[dict[str, Any], str]]) -> tuple[dict[str, Any], str] | None:
    """Of the facts a change loosely fits, the one it changes, or None when it is not clear.

    The newest when newer than all the others (what the conversation was last about), else the
    closest when at least ``differences.LOOSE_MARGIN`` closer than the next; else none: a wrong
    total is worse than none ("My supervisor granted me a two-week extension" beside a due date and
    a defence told the same day).
    """
    if len(loose) == 1:
        return loose[0]
    by_time = sorted(loose, key=lambda f: str(f[0]["valid_from"]), reverse=True)
    if str(by_time[0][0]["valid_from"]) > str(by_time[1][0]["valid_from"]):
        return by_time[0]
    by_score = sorted(loose, key=lambda f: -f[0]["score"])
    return by_score[0] if by_score[0][0]["score"] - by_score[1][0]["score"] >= LOOSE_MARGIN else None


def _loosely_changes(text: str, old: str, score: float) -> bool:
    """True when a change below the cosine knob still changes ``old`` (``differences.LOOSE_CHANGE_MIN``).

    Its number counts what the change counts, the change names no other thing, and a change that
    names its thing ("HR cut everyone's training budget") is at least ``NAMED_LOOSE_MIN`` close.
    """
    named_ok = score >= NAMED_LOOSE_MIN or not names_a_thing(text)
    return named_ok and counts_alike(text, old) and not names_another_thing(text, old)


def newest_first(
    hits: list[SearchHit], vectors: np.ndarray, asked: np.ndarray | None = None
) -> list[SearchHit]:
    """The read-time safety net: current facts about the same thing that disagree, newest first.

    ``vectors``: one L2-normalised row per current fact hit, in order. Neither fact was closed
    (the write was not sure they were one thing), so both stay, in the places the group held,
    newest first; each older one carries ``was_until`` (the newest one's ``valid_from``) so an
    answer can say "was X until …". Other hits keep their places. Same thing: the statements
    alone (``same_thing.disagreeing``) or, with ``asked`` (the question's L2-normalised vector),
    the facts that answer the question about equally well with different values
    (``same_thing.answer_groups``). What tells no value of the learner's (a plan, a hedge, another
    person's or group's value: ``_learners_first``) takes the group's last places, so it never ranks
    above the learner's own value for the same thing.
    """
    facts = current_fact_places(hits)
    texts = [hits[i].text for i in facts]
    groups = disagreeing(texts, vectors)
    if asked is not None and len(facts) > 1:
        groups = merged([*groups, *answer_groups(vectors @ asked, texts, vectors=vectors)])
    out = list(hits)
    best = None if asked is None or not facts else int(np.argmax(vectors @ asked))
    lead = None
    for group in groups:
        learners, aside = _learners_first([hits[i] for i in facts], group, texts)
        if len(learners) < 2 and not (learners and aside):
            continue
        places = sorted(facts[g] for g in group)
        # The learner's values newest first, then what tells no value of theirs, in the search's order.
        members = [hits[facts[g]] for g in _newest_first(learners, [hits[i] for i in facts])]
        newest = str(members[0].metadata.get("valid_from") or "")
        ordered = [(hit, str(hit.metadata.get("valid_from") or "") < newest) for hit in members]
        ordered += [(hits[facts[g]], False) for g in sorted(aside)]
        for place, (hit, older) in zip(places, ordered, strict=True):
            out[place] = replace(hit, metadata={**hit.metadata, "was_until": newest}) if older else hit
        if best in group:
            lead = places[0]
    return out if lead is None else _ahead(out, facts, [facts.index(lead)])


def _ahead(hits: list[SearchHit], facts: list[int], first: list[int]) -> list[SearchHit]:
    """``hits`` with the facts at ``first`` (indexes into ``facts``) moved to the first fact place.

    The group holding the question's best answer (by cosine) is what the question asks; the fused
    search may rank a weaker answer above it (an introduction that shares many words with the
    question). Its newest member, now at the group's first place, goes first; the facts it passes
    move down one place each. Other hits (messages) keep their places.
    """
    order = [facts[f] for f in first] + [p for k, p in enumerate(facts) if k not in first]
    out = list(hits)
    for place, source in zip(facts, order, strict=True):
        out[place] = hits[source]
    return out


def _newest_first(group: list[int], facts: Sequence[SearchHit]) -> list[int]:
    """``group`` newest first; of the facts of one message (one ``valid_from``), the new value first.

    One message may give the new value and mention the old one ("The M4 MacBook Air is so much faster
    … The Chromebook went to my nephew"): the fact that holds a value no older member holds comes
    first, then the search's order.
    """
    when = {g: str(facts[g].metadata.get("valid_from") or "") for g in group}

    def key(g: int) -> tuple[str, bool]:
        older = [facts[o].text for o in group if when[o] < when[g]]
        return when[g], bool(older) and all(gives_a_new_value(facts[g].text, o) for o in older)

    return sorted(group, key=key, reverse=True)


def _learners_first(
    facts: Sequence[SearchHit], group: list[int], texts: Sequence[str]
) -> tuple[list[int], list[int]]:
    """``group`` split into the learner's values and the members that tell none (``whose_value``).

    A plan, a hedge, another person's value ("My friend Karthik hit 1600") or another group's ("The
    marketing team got €6,000" beside "Our team's training budget is €4,000") may answer the question
    best and so anchor a group (``same_thing.answer_groups``), but it never becomes the newer version
    nor ranks above a value of the learner's for the same thing: it takes the group's last places.
    ``texts``: every current fact read (where the learner names their own group).
    """
    aside = [g for g in group if not_current(facts[g].text)]
    kept = [g for g in group if g not in aside]
    # the learner's own group may be told in a fact outside the group ("Our team's budget is …")
    aside += [
        g for g in kept if other_group(facts[g].text, [t for k, t in enumerate(texts) if k not in aside])
    ]
    return [g for g in group if g not in aside], aside


def current_fact_places(hits: Sequence[SearchHit]) -> list[int]:
    """Places of the current facts among ``hits`` (what the read-time net compares)."""
    return [i for i, h in enumerate(hits) if h.kind == "fact" and h.metadata.get("current", True)]


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
