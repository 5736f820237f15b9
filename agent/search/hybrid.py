"""Hybrid retrieval over Neo4j shared by the archival and recall stores.

Per recipe: vector index + full-text index (+ the whole question in full text, graph
expansion, session context, Zettelkasten notes, best-matching sessions), fused with
weighted RRF, filtered by learner, then paged.
Isolation: every query filters on ``learner_id = $learner_id``; the vector index's
top-k is global, so it is oversampled and, when the learner's share is short,
replaced by an exact cosine scan over that learner's nodes. A learner with fewer
candidates than asked for is scanned exactly at once, in the same query as the index
(``PROBE_TEMPLATE``): the index could only come up short for them. Full-text queries are
scoped in Lucene by the learner's key and filtered again in Cypher.
The Cypher lives in ``agent.search.queries``.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import neo4j

from agent.graphdb.schema import SchemaNames, learner_key
from agent.graphdb.store import fetch
from agent.search.lucene import query_terms, scoped_query
from agent.search.queries import (
    CONTEXT_MEMORY,
    CONTEXT_MESSAGE,
    EXACT_BY_LABEL,
    EXPAND_MEMORY,
    EXPAND_MESSAGE,
    FULLTEXT_QUERY,
    HYDRATE_MEMORY,
    HYDRATE_MESSAGE,
    HYDRATE_NOTE,
    NOTE_EXACT,
    NOTE_INDEXES,
    NOTE_LABEL_EXISTS,
    NOTE_PROBE,
    PROBE_BY_LABEL,
    RECENT_BY_LABEL,
)
from agent.search.recipes import SearchRecipe
from agent.search.results import SearchHit, rrf_fuse
from agent.search.rewrite import keyword_query, stem_prefixes
from agent.search.sessions import session_lists

MAX_VECTOR_K = 5000
NOTES_CACHE_SECONDS = 30.0


@dataclass(frozen=True)
class SearchTarget:
    """Which label a store searches and the queries specific to it."""

    label: str
    vector_index: str
    fulltext_index: str
    text_field: str
    exact_query: str
    probe_query: str
    """A small learner's exact scan, else the vector index, in one query (``PROBE_TEMPLATE``)."""
    recent_query: str
    expand_query: str
    context_query: str
    hydrate_query: str
    summary_index: str
    """Full-text index over ``:SessionSummary`` text (the ``session`` retriever)."""


def memory_target(names: SchemaNames) -> SearchTarget:
    """Archival memories and session summaries (``:Memory``)."""
    return SearchTarget(
        "Memory",
        names.memory_vector,
        names.memory_fulltext,
        "text",
        EXACT_BY_LABEL["Memory"],
        PROBE_BY_LABEL["Memory"],
        RECENT_BY_LABEL["Memory"],
        EXPAND_MEMORY,
        CONTEXT_MEMORY,
        HYDRATE_MEMORY,
        names.memory_fulltext,
    )


def message_target(names: SchemaNames) -> SearchTarget:
    """Recall-storage messages (``:Message``)."""
    return SearchTarget(
        "Message",
        names.message_vector,
        names.message_fulltext,
        "content",
        EXACT_BY_LABEL["Message"],
        PROBE_BY_LABEL["Message"],
        RECENT_BY_LABEL["Message"],
        EXPAND_MESSAGE,
        CONTEXT_MESSAGE,
        HYDRATE_MESSAGE,
        names.memory_fulltext,
    )


@dataclass(frozen=True)
class NotesSource:
    """The Zettelkasten's indexes, when they exist."""

    vector_index: str | None
    fulltext_index: str | None


_NOTES_CACHE: dict[tuple[int, int], tuple[float, NotesSource | None]] = {}


async def find_notes(tx: neo4j.AsyncTransaction, dimension: int, cache_key: int) -> NotesSource | None:
    """The ``:Note`` indexes usable with our embeddings, or None when there are no notes."""
    key = (cache_key, dimension)
    cached = _NOTES_CACHE.get(key)
    if cached and time.monotonic() - cached[0] < NOTES_CACHE_SECONDS:
        return cached[1]
    source: NotesSource | None = None
    if (await fetch(tx, NOTE_LABEL_EXISTS))[0]["n"]:
        vector = fulltext = None
        for row in await fetch(tx, NOTE_INDEXES):
            if row["type"] == "VECTOR" and row["properties"] == ["embedding"]:
                if int(row["dimension"] or 0) == dimension:
                    vector = row["name"]
            elif row["type"] == "FULLTEXT":
                fulltext = row["name"]
        source = NotesSource(vector, fulltext)
    _NOTES_CACHE[key] = (time.monotonic(), source)
    return source


def _pairs(rows: Sequence[dict[str, Any]]) -> list[tuple[str, float]]:
    return [(str(r["id"]), float(r["score"] or 0.0)) for r in rows]


def _scope(params: dict[str, Any], *, embedding: bool = False) -> dict[str, Any]:
    """The query parameters a retriever's Cypher reads: the embedding only for a cosine.

    The driver packs the embedding (384 or 768 floats) in Python for every query it is sent
    with, so the queries that do not read it do not get it.
    """
    scope = {k: params[k] for k in ("learner_id", "kinds", "limit")}
    return scope | {"embedding": params["embedding"]} if embedding else scope


class HybridSearch:
    """Run one recipe for one target inside a read transaction."""

    def __init__(self, target: SearchTarget) -> None:
        """Search ``target``."""
        self.target = target

    async def _vector(
        self, tx: neo4j.AsyncTransaction, index: str, exact: str, probe: str, params: dict[str, Any]
    ) -> list[tuple[str, float]]:
        limit = params["limit"]
        cosine = _scope(params, embedding=True)
        if not index:
            return _pairs(await fetch(tx, exact, **cosine))
        # A learner with fewer than ``limit`` candidates would come up short in the index's
        # top-k and end in the exact scan anyway: the probe finds out after ``limit`` nodes
        # and then holds that scan's result (the learner's few messages, no procedures yet).
        k = min(MAX_VECTOR_K, limit * params["oversample"])
        [row] = await fetch(tx, probe, index=index, k=k, **cosine)
        if len(row["few"]) < limit:
            return _pairs(sorted(row["few"], key=lambda r: -r["score"]))
        if len(row["indexed"] or []) >= limit:
            return _pairs(row["indexed"])
        return _pairs(await fetch(tx, exact, **cosine))  # crowded out of the global top-k

    async def _fulltext(self, tx: neo4j.AsyncTransaction, lucene: str, params: dict[str, Any]) -> list[Any]:
        k = params["limit"] * (params["oversample"] if params["kinds"] is not None else 1)
        index = self.target.fulltext_index
        return _pairs(await fetch(tx, FULLTEXT_QUERY, index=index, lucene=lucene, k=k, **_scope(params)))

    async def retrieve(
        self,
        tx: neo4j.AsyncTransaction,
        *,
        learner_id: str,
        query: str,
        embedding: list[float] | None,
        recipe: SearchRecipe,
        page: int,
        page_size: int,
        kinds: Sequence[str] | None,
        notes: NotesSource | None,
    ) -> tuple[list[SearchHit], bool]:
        """Fused, hydrated hits for ``page``, and whether more pages exist."""
        limit = recipe.candidates(page, page_size)
        params: dict[str, Any] = {
            "learner_id": learner_id,
            "kinds": list(kinds) if kinds is not None else None,
            "limit": limit,
            "oversample": recipe.oversample * (3 if kinds is not None else 1),
            "embedding": embedding,
        }
        weights = dict(recipe.weights)
        lists: dict[str, list[tuple[str, float]]] = {}
        text_query = keyword_query(query) if recipe.keyword_query else query
        key = learner_key(learner_id)
        prefixes = stem_prefixes(text_query) if recipe.stem_prefixes else ()
        lucene = scoped_query(
            self.target.text_field, text_query, key_field="learner_key", key=key, prefixes=prefixes
        )
        if embedding is None and lucene is None:  # nothing to match on: newest first
            lists["recent"] = _pairs(await fetch(tx, self.target.recent_query, **_scope(params)))
            weights = {"recent": 1.0}
        if embedding is not None and weights.get("vector"):
            target = self.target
            lists["vector"] = await self._vector(
                tx, target.vector_index, target.exact_query, target.probe_query, params
            )
        if lucene is not None and weights.get("fulltext"):
            lists["fulltext"] = await self._fulltext(tx, lucene, params)
        question = scoped_query(self.target.text_field, query, key_field="learner_key", key=key)
        if question is not None and weights.get("question"):  # the whole question in full text too
            lists["question"] = await self._fulltext(tx, question, params)
        if notes is not None and weights.get("notes"):
            # Cosines of one model are comparable, so notes join the vector list; BM25
            # scores of different indexes are not, so note full-text hits rank apart.
            note_vector, lists["notes"] = await self._notes(tx, notes, text_query, params)
            if note_vector:
                merged = lists.get("vector", []) + note_vector
                lists["vector"] = sorted(merged, key=lambda p: -p[1])[:limit]
        if embedding is not None and weights.get("session"):
            per_rank = await session_lists(
                tx,
                recipe,
                label=self.target.label,
                learner_id=learner_id,
                embedding=embedding,
                kinds=params["kinds"],
                summary_index=self.target.summary_index,
                summary_lucene=scoped_query("text", text_query, key_field="learner_key", key=key),
                fused=[(f.id, f.score) for f in rrf_fuse(lists, weights, k=recipe.rrf_k)],
            )
            for rank, ranked in enumerate(per_rank, start=1):
                lists[f"session{rank}"] = ranked
                weights[f"session{rank}"] = weights["session"] / rank
        seeds = [f.id for f in rrf_fuse(lists, weights, k=recipe.rrf_k)[: recipe.seeds]]
        if seeds and weights.get("expand"):
            rows = await fetch(tx, self.target.expand_query, seeds=seeds, **_scope(params))
            lists["expand"] = _pairs(rows)
        if seeds and weights.get("context"):
            rows = await fetch(
                tx, self.target.context_query, seeds=seeds, window=recipe.context_window, **_scope(params)
            )
            lists["context"] = _pairs(rows)
        fused = rrf_fuse(lists, weights, k=recipe.rrf_k)
        start = page * page_size
        chosen = fused[start : start + page_size]
        return await self._hydrate(tx, learner_id, chosen, notes), len(fused) > start + page_size

    async def _notes(
        self,
        tx: neo4j.AsyncTransaction,
        notes: NotesSource,
        query: str,
        params: dict[str, Any],
    ) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """Note hits by cosine and by full text (each learner-filtered)."""
        if params["kinds"] is not None and "note" not in params["kinds"]:
            return [], []
        params = {**params, "kinds": None}  # notes have no ``kind``
        vector: list[tuple[str, float]] = []
        if params["embedding"] is not None:
            vector = await self._vector(tx, notes.vector_index or "", NOTE_EXACT, NOTE_PROBE, params)
        terms = query_terms(query)
        fulltext: list[tuple[str, float]] = []
        if notes.fulltext_index and terms:
            # Note indexes carry no learner key: oversample, then filter in Cypher.
            rows = await fetch(
                tx,
                FULLTEXT_QUERY,
                index=notes.fulltext_index,
                lucene=" ".join(terms),
                k=min(MAX_VECTOR_K, params["limit"] * params["oversample"]),
                **_scope(params),
            )
            fulltext = _pairs(rows)
        return vector, fulltext

    async def _hydrate(
        self,
        tx: neo4j.AsyncTransaction,
        learner_id: str,
        chosen: Sequence[Any],
        notes: NotesSource | None,
    ) -> list[SearchHit]:
        if not chosen:
            return []
        ids = [f.id for f in chosen]
        rows = await fetch(tx, self.target.hydrate_query, ids=ids, learner_id=learner_id)
        found = {r["id"]: r for r in rows}
        if notes is not None and len(found) < len(ids):
            missing = [i for i in ids if i not in found]
            found.update(
                {r["id"]: r for r in await fetch(tx, HYDRATE_NOTE, ids=missing, learner_id=learner_id)}
            )
        hits = []
        for f in chosen:
            row = found.get(f.id)
            if row is None:  # deleted between retrieval and hydration
                continue
            meta = {k: row[k] for k in ("session_id", "seq", "role") if row.get(k) is not None}
            meta["label"] = next((lb for lb in row["labels"] if lb != "Memory"), row["labels"][0])
            hits.append(
                SearchHit(
                    id=row["id"],
                    text=row["text"] or "",
                    score=f.score,
                    created_at=row["created_at"],
                    kind=row["kind"] or "memory",
                    tags=list(row["tags"] or []),
                    scores=dict(f.scores),
                    metadata=meta,
                )
            )
        return hits
