"""Episodic memory: consolidation of learner episodes and the temporal index (issue 13).

Episodes are the recall messages the learner said (``:Message {role: 'user'}``), plus
archived session summaries. After ``THRESHOLD`` (10) unconsolidated episodes,
``EpisodeStore.consolidate_due`` folds the oldest of them into one
``(:Learner)-[:HAS_MEMORY]->(:Memory:ConsolidatedEpisode {kind: 'episode', text,
valid_from, valid_to, session_ids, count, message_ids, created_at, embedding ...})
-[:CONSOLIDATES]->(:Message)``. The originals are flagged ``compressed = true`` and never
deleted. The text comes from an injected async summariser (the model) or, by default, the
heartbeat's extractive summariser applied sentence by sentence, so every concrete fact
the learner stated survives. The node carries the ``Memory`` label, text and embedding,
so the Memory vector and full-text indexes (archival search) find it, and erasure's
``DELETE_MEMORIES`` removes it.

Ranking: recall search merges the learner's consolidations in once there are any
(``RecallStore.search``), and ``prefer_consolidations`` puts every compressed original
found together with its consolidation right below it; originals whose consolidation is
not a hit keep their place. A blend over several stores can call it too.

``timeline`` lists messages, summaries and consolidations in a time window, over range
indexes on ``(learner_id, created_at)`` created idempotently with ``EPISODE_SCHEMA``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

import neo4j
from neo4j.exceptions import ClientError

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.schema import ensure_schema, learner_key
from agent.graphdb.store import Neo4jStore, check_text, fetch, is_neo4j_down, normalise_time
from agent.memory.queries import (
    CONSOLIDATED_IN,
    DUE_EPISODES,
    EPISODE_SCHEMA,
    LOCK_FOR_CONSOLIDATION,
    TIMELINE,
    WRITE_CONSOLIDATION,
)
from agent.search.results import SearchHit
from agent.validation import validate_learner_id

log = logging.getLogger(__name__)

THRESHOLD = 10
EPISODE_KIND = "episode"
EPISODE_KINDS = (EPISODE_KIND,)
EPISODE_SCHEMA_KEY = "episodes"
MAX_TIMELINE = 500
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
_FAR_PAST, _FAR_FUTURE = "0000", "9999"

Summariser = Callable[[Sequence[str]], Awaitable[str]]
"""An async callable from episode texts (oldest first) to one summary text (the model)."""


async def extractive_episode_summary(texts: Sequence[str]) -> str:
    """The offline consolidation: every distinct statement of the episodes, one per line, in order.

    Statements are what the learner told the tutor (facts, plans, struggles); questions
    ("What is 2 + 2?") carry no memory of their own, so they are left out unless the
    episodes hold nothing else. Each sentence is kept whole, so no stated fact is cut.
    """
    sentences = [
        s.strip() for text in texts for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()
    ]
    statements = [s for s in sentences if not s.endswith("?")] or sentences
    lines: list[str] = []
    seen: set[str] = set()
    for sentence in statements:
        if sentence.casefold() not in seen:
            seen.add(sentence.casefold())
            lines.append(f"- {sentence}")
    return "\n".join(lines)


async def ensure_episode_schema(driver: neo4j.AsyncDriver, database: str) -> None:
    """Create the episodic constraints and range indexes once per driver and database."""

    async def setup() -> None:
        async with driver.session(database=database) as session:
            for statement in EPISODE_SCHEMA:
                try:
                    await (await session.run(statement)).consume()
                except ClientError as exc:  # another process created it meanwhile
                    code = exc.code or ""
                    if "EquivalentSchemaRule" not in code and "AlreadyExists" not in code:
                        raise

    await ensure_schema(driver, database, setup, key=EPISODE_SCHEMA_KEY)


# ----- ranking: prefer the consolidation, fall back to the originals -----


def merge_ranked(*lists: Sequence[SearchHit]) -> list[SearchHit]:
    """Hits of several fused lists in one list by score (stable; first occurrence of an id wins)."""
    seen: set[str] = set()
    merged = []
    for hit in sorted((h for hits in lists for h in hits), key=lambda h: -h.score):
        if hit.id not in seen:
            seen.add(hit.id)
            merged.append(hit)
    return merged


def prefer_consolidations(hits: Sequence[SearchHit]) -> list[SearchHit]:
    """Rank each compressed original found together with its consolidation right below it.

    An original carries ``metadata["consolidated_in"]`` (episode ids; see
    ``annotate_consolidated``). When one of those episodes is also among ``hits``, the
    episode moves up to the original's place (taking its score if higher) and the
    original follows it. Originals whose consolidation is not a hit keep their place, so
    they still come back. Scores are made non-increasing so a re-sort keeps the order.
    """
    by_id = {h.id: h for h in hits}
    out: list[SearchHit] = []
    placed: set[str] = set()
    for hit in hits:
        if hit.id in placed:
            continue
        holders = [e for e in hit.metadata.get("consolidated_in") or () if e in by_id and e not in placed]
        if holders:
            episode = by_id[holders[0]]
            score = max(episode.score, hit.score)
            out.append(dataclasses.replace(episode, score=score))
            placed.add(episode.id)
            hit = dataclasses.replace(hit, score=min(hit.score, score - 1e-9))
        out.append(hit)
        placed.add(hit.id)
    for i in range(1, len(out)):
        if out[i].score > out[i - 1].score:
            out[i] = dataclasses.replace(out[i], score=out[i - 1].score - 1e-9)
    return out


async def annotate_consolidated(
    tx: neo4j.AsyncTransaction, learner_id: str, hits: Sequence[SearchHit]
) -> list[SearchHit]:
    """Message hits with ``metadata["compressed"]`` and ``["consolidated_in"]`` where they apply."""
    ids = [h.id for h in hits if h.kind == "message"]
    if not ids:
        return list(hits)
    rows = await fetch(tx, CONSOLIDATED_IN, ids=ids, learner_id=learner_id)
    holders = {r["id"]: r["episodes"] for r in rows}
    return [
        dataclasses.replace(h, metadata={**h.metadata, "compressed": True, "consolidated_in": holders[h.id]})
        if h.id in holders
        else h
        for h in hits
    ]


# ----- the store -----


class EpisodeStore(Neo4jStore):
    """Consolidates learner episodes into ``ConsolidatedEpisode`` memories; the timeline."""

    async def _setup_schema_once(self, _: object = None) -> None:
        await super()._setup_schema_once()
        await ensure_episode_schema(self.driver, self.database)

    async def consolidate_due(
        self, learner_id: str, *, summarise: Summariser | None = None, threshold: int = THRESHOLD
    ) -> dict[str, Any] | None:
        """Consolidate the oldest ``threshold`` unconsolidated learner episodes, if there are that many.

        Returns the new consolidation (``id, text, message_ids, valid_from, valid_to,
        session_ids, count, created_at``) or None when fewer are due, when another run
        consolidated them first, or when Neo4j is down (consolidation is derived data: it
        is redone on a later turn, so nothing is parked). One batch per call; call again
        while it returns a dict to drain a larger backlog. ``summarise`` (async, texts ->
        text) is the model; when it is None, fails or returns nothing usable, the
        extractive summariser writes the text.
        """
        learner_id = validate_learner_id(learner_id)
        if not isinstance(threshold, int) or isinstance(threshold, bool) or not 2 <= threshold <= 200:
            raise InvalidInputError(f"threshold must be an integer from 2 to 200, got {threshold!r}")
        if summarise is not None and not callable(summarise):
            raise InvalidInputError("summarise must be an async callable over episode texts")
        try:
            due = await self.read(lambda tx: fetch(tx, DUE_EPISODES, learner_id=learner_id, limit=threshold))
            if len(due) < threshold:
                return None
            text = await self._summary([r["content"] for r in due], summarise)
            [embedding] = await self.embed_documents([text])
            rows, record = await self._write(learner_id, due, text, embedding)
        except StoreUnavailableError as exc:
            if not is_neo4j_down(exc):
                raise
            log.warning("episode consolidation skipped, Neo4j is down: %s", exc)
            return None
        return record if rows else None

    async def _write(
        self, learner_id: str, due: list[dict[str, Any]], text: str, embedding: list[float]
    ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        ids = [r["id"] for r in due]
        material = "\x00".join([learner_id, *ids])
        episode_id = f"episode-{hashlib.sha256(material.encode()).hexdigest()[:32]}"
        times = sorted(r["created_at"] for r in due if r["created_at"])
        record = {
            "id": episode_id,
            "text": text,
            "message_ids": ids,
            "valid_from": times[0] if times else None,
            "valid_to": times[-1] if times else None,
            "session_ids": list(dict.fromkeys(r["session_id"] for r in due if r["session_id"])),
            "count": len(ids),
            "created_at": self.now_iso(),
        }
        props = {
            **{k: v for k, v in record.items() if v is not None and k != "id"},
            "learner_id": learner_id,
            "learner_key": learner_key(learner_id),
            "kind": EPISODE_KIND,
            "tags": ["episode"],
            "embedding": embedding,
            "embedding_model": self.embeddings.model_name,
        }

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            if not await fetch(tx, LOCK_FOR_CONSOLIDATION, learner_id=learner_id, now=record["created_at"]):
                return []
            return await fetch(
                tx,
                WRITE_CONSOLIDATION,
                learner_id=learner_id,
                id=episode_id,
                props=props,
                message_ids=ids,
                last_seq=max(int(r["seq"] or 0) for r in due),
            )

        return await self.write(work), record

    @staticmethod
    async def _summary(texts: list[str], summarise: Summariser | None) -> str:
        if summarise is not None:
            try:
                return check_text(await summarise(texts), "episode summary")
            except Exception as exc:  # noqa: BLE001 - any model failure means the extractive text
                log.warning("episode summariser failed, using the extractive summary: %s", exc)
        text = await extractive_episode_summary(texts)
        return check_text(text or "\n".join(texts)[:2000], "episode summary")

    async def timeline(
        self,
        learner_id: str,
        *,
        since: str | None = None,
        until: str | None = None,
        limit: int = 50,
        newest_first: bool = False,
    ) -> list[dict[str, Any]]:
        """Messages, session summaries and consolidated episodes between ``since`` and ``until``.

        Items are dicts ``{id, kind ('message'|'summary'|'episode'), text, at, role,
        session_id, compressed, valid_from, valid_to, session_ids}``, oldest first (or
        newest first), at most ``limit`` (1-500). ``at`` is a message's ``created_at``, a
        summary's ``created_at`` or an episode's ``valid_from``; an episode is in the window
        when its span overlaps it. Times are ISO-8601 (naive = UTC).
        """
        learner_id = validate_learner_id(learner_id)
        since = normalise_time(since, "since") or _FAR_PAST
        until = normalise_time(until, "until") or _FAR_FUTURE
        if not isinstance(limit, int) or isinstance(limit, bool) or not 1 <= limit <= MAX_TIMELINE:
            raise InvalidInputError(f"limit must be an integer from 1 to {MAX_TIMELINE}, got {limit!r}")
        if since > until:
            raise InvalidInputError(f"since ({since}) is after until ({until})")
        query = TIMELINE["DESC" if newest_first else "ASC"]

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, query, learner_id=learner_id, since=since, until=until, limit=limit)

        return await self.read(work)
