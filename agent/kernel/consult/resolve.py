"""What a consultation presents as current: contradictions resolved before the brief (pure functions).

Facts are bi-temporal (``agent.memory.facts``): a fact whose ``valid_to`` is set was
superseded (``(new:Fact)-[:SUPERSEDES]->(old:Fact)``). The search reads current facts,
but the messages and turn contexts a superseded fact came from still match the query
("I live in Da Nang" after "I moved to Hanoi"), and so do the learner's own questions
("Where do I live now?"). ``resolve`` takes the search hits and the provenance the
reader fetched (``ConsultReader.layer`` and ``ConsultReader.sources``) and:

1. **marks** a superseded fact hit (``current: false``, ``valid_to``, ``superseded_by``):
   it ranks after everything else and is never a fact of the brief;
2. **drops** a message, turn context or other non-fact hit that stands on a superseded
   fact: its source message is an episode the superseded fact ``DERIVES_FROM``, or its text
   quotes that episode or a superseded fact verbatim (at least ``MIN_QUOTE_CHARS``);
3. **drops** the learner's own questions (:func:`is_question`): a question carries no
   memory of its own;
4. **drops** a message whose text is that of a fact hit (the blend's rule: the fact is
   the same memory; graph expansion can bring the episode back);
5. **orders** what is left: current facts first, then the rest, then superseded facts
   (stable: the fused order holds within each group).

Confidence reads the current hits only, a current fact together with the texts of the facts
it superseded (``Resolved.for_coverage``): the history says what the fact is about, never
what is true.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from agent.memory.blend import is_question
from agent.search.results import SearchHit

MIN_QUOTE_CHARS = 12
"""A superseded statement shorter than this is never matched inside another text."""
BY_CHARS = 160
"""``superseded_by`` text kept per marked fact."""


def _norm(text: object) -> str:
    return " ".join(str(text or "").casefold().split())


@dataclass(frozen=True)
class Resolved:
    """The hits to present, in order, and what was set aside."""

    hits: list[SearchHit]
    superseded: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Marks of the superseded fact hits kept, by id: ``current``, ``valid_to``, ``superseded_by``."""
    dropped: dict[str, int] = field(default_factory=dict)
    """How many hits each rule dropped: ``superseded_source``, ``question``, ``duplicate``."""

    history: dict[str, list[str]] = field(default_factory=dict)
    """Texts of the facts each current fact superseded, by the current fact's id."""

    def current(self) -> list[SearchHit]:
        """The hits presented as current (everything but the superseded facts)."""
        return [h for h in self.hits if h.id not in self.superseded]

    def for_coverage(self) -> list[SearchHit]:
        """The current hits, each current fact's text followed by the texts it superseded.

        What a fact replaced says what it is about ("I moved to Hanoi" after "I live in
        Da Nang" answers "Where do I live?"), so confidence counts those words as covered.
        """
        return [
            replace(h, text=" ".join([h.text, *self.history[h.id]])) if h.id in self.history else h
            for h in self.current()
        ]


def _stale(rows: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Mapping[str, Any]], set[str], list[str]]:
    """``(superseded facts by id, their episode ids, the texts that state them)``."""
    facts: dict[str, Mapping[str, Any]] = {}
    episodes: set[str] = set()
    quotes: list[str] = []
    for row in rows:
        facts[str(row["id"])] = row
        texts = [row.get("text")]
        for episode in row.get("episodes") or []:
            if episode and episode.get("id"):
                episodes.add(str(episode["id"]))
                texts.append(episode.get("content"))
        quotes.extend(q for q in (_norm(t) for t in texts) if len(q) >= MIN_QUOTE_CHARS)
    return facts, episodes, sorted(set(quotes))


def _is_superseded_fact(hit: SearchHit, stale: Mapping[str, Any]) -> bool:
    return hit.kind == "fact" and (hit.metadata.get("current") is False or hit.id in stale)


def _mark(hit: SearchHit, row: Mapping[str, Any] | None) -> dict[str, Any]:
    row = row or {}
    by = str(row.get("by_text") or "")
    return {
        "current": False,
        "valid_to": row.get("valid_to") or hit.metadata.get("valid_to"),
        "superseded_by": (by if len(by) <= BY_CHARS else by[: BY_CHARS - 1] + "…") or None,
        "superseded_by_id": row.get("by_id"),
    }


def resolve(hits: Sequence[SearchHit], provenance: Mapping[str, Any] | None = None) -> Resolved:
    """Mark, drop and order ``hits`` (module docstring).

    ``provenance`` is ``{"stale": Layer.stale, "sources": ConsultReader.sources(...)}``.
    """
    provenance = provenance or {}
    stale, episodes, quotes = _stale(provenance.get("stale") or [])
    sources = {str(r["id"]): r for r in provenance.get("sources") or []}
    marks = {h.id: _mark(h, stale.get(h.id)) for h in hits if _is_superseded_fact(h, stale)}
    quotes = [*quotes, *(q for h in hits if h.id in marks and len(q := _norm(h.text)) >= MIN_QUOTE_CHARS)]
    stated = {_norm(h.text) for h in hits if h.kind == "fact"}
    restated = {_norm(h.text) for h in hits if h.kind == "fact" and h.id not in marks}
    quotes = [q for q in quotes if q not in restated]  # stated again later: current once more
    dropped = {"superseded_source": 0, "question": 0, "duplicate": 0}
    kept: list[SearchHit] = []
    for hit in hits:
        if hit.kind == "fact":
            kept.append(hit)
            continue
        if hit.kind == "message":
            source_id, role, content = hit.id, hit.metadata.get("role", "user"), hit.text
        else:
            source = sources.get(hit.id) or {}
            source_id, role, content = source.get("message_id"), source.get("role"), source.get("content")
        text = _norm(hit.text)
        if source_id in episodes or any(q in text for q in quotes):
            dropped["superseded_source"] += 1
        elif role == "user" and is_question(str(content or "")):
            dropped["question"] += 1
        elif hit.kind == "message" and text in stated:
            dropped["duplicate"] += 1
        else:
            kept.append(hit)
    kept.sort(key=lambda h: 0 if h.kind == "fact" and h.id not in marks else 2 if h.id in marks else 1)
    history: dict[str, list[str]] = {}
    for row in stale.values():
        by = row.get("by_id")
        if by and row.get("text") and any(h.id == by and h.id not in marks for h in kept):
            history.setdefault(str(by), []).append(str(row["text"]))
    return Resolved(kept, marks, {k: v for k, v in dropped.items() if v}, history)
