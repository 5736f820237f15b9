"""Hybrid retrieval over Neo4j shared by the archival and recall stores.

Per recipe: vector index + full-text index (+ the whole question in full text, graph
expansion, session context, Zettelkasten notes, best-matching sessions), fused with
weighted RRF, filtered by learner, then paged.
Isolation: every query filters on ``learner_id = $learner_id``; the vector index's
top-k is global, so it is oversampled and, when the learner's share is short,
replaced by an exact cosine scan over that learner's nodes. Full-text queries are
scoped in Lucene by the learner's key and filtered again in Cypher.
Labels in the templates below are our own constants, never user input.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import neo4j

from agent.lucene_query import query_terms, scoped_query
from agent.neo4j_schema import SchemaNames, learner_key
from agent.neo4j_store import fetch
from agent.query_rewrite import keyword_query, stem_prefixes
from agent.search_recipes import SearchRecipe
from agent.search_results import SearchHit, rrf_fuse
from agent.session_search import session_lists

MAX_VECTOR_K = 5000
NOTES_CACHE_SECONDS = 30.0

VECTOR_QUERY = """
CALL db.index.vector.queryNodes($index, $k, $embedding) YIELD node, score
WITH node, score
WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $limit
"""
FULLTEXT_QUERY = """
CALL db.index.fulltext.queryNodes($index, $lucene, {limit: $k}) YIELD node, score
WITH node, score
WHERE node.learner_id = $learner_id AND ($kinds IS NULL OR node.kind IN $kinds)
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $limit
"""
_EXACT = """
MATCH (node:{label} {{learner_id: $learner_id}})
WHERE node.embedding IS NOT NULL AND size(node.embedding) = size($embedding)
  AND ($kinds IS NULL OR node.kind IN $kinds)
WITH node, vector.similarity.cosine(node.embedding, $embedding) AS score
RETURN node.id AS id, score
ORDER BY score DESC LIMIT $limit
"""
_RECENT = """
MATCH (node:{label} {{learner_id: $learner_id}})
WHERE $kinds IS NULL OR node.kind IN $kinds
RETURN node.id AS id, toFloat(coalesce(node.seq, 0)) AS score
ORDER BY node.seq DESC LIMIT $limit
"""
EXPAND_MEMORY = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Memory {id: $seeds[rank]})
WHERE s.learner_id = $learner_id
CALL (s) {
  MATCH (s)-[:DERIVED_FROM|FOLDS|LINKS_TO|RELATES_TO|SIMILAR_TO]-(n:Memory)
  RETURN n
  UNION
  MATCH (s)-[:DERIVED_FROM|SUMMARIZES]->(:Message)<-[:DERIVED_FROM|SUMMARIZES]-(n:Memory)
  RETURN n
}
WITH n, min(rank) AS best, count(*) AS support
WHERE n.learner_id = $learner_id AND ($kinds IS NULL OR n.kind IN $kinds)
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC, support DESC, n.seq DESC LIMIT $limit
"""
EXPAND_MESSAGE = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Message {id: $seeds[rank]})
WHERE s.learner_id = $learner_id
MATCH (s)<-[:SUMMARIZES|DERIVED_FROM]-(m:Memory)-[:SUMMARIZES|DERIVED_FROM]->(n:Message)
WHERE n <> s AND m.learner_id = $learner_id AND n.learner_id = $learner_id
WITH s, n, rank
WITH n, min(rank) AS best, min(abs(n.seq - s.seq)) AS distance
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC, distance ASC LIMIT $limit
"""
CONTEXT_MEMORY = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Memory {id: $seeds[rank]})
WHERE s.learner_id = $learner_id AND s.session_id IS NOT NULL
CALL (s) {
  MATCH (n:Memory {learner_id: $learner_id})
  WHERE n.session_id = s.session_id AND n.seq < s.seq
  RETURN n ORDER BY n.seq DESC LIMIT $window
  UNION
  MATCH (n:Memory {learner_id: $learner_id})
  WHERE n.session_id = s.session_id AND n.seq > s.seq
  RETURN n ORDER BY n.seq ASC LIMIT $window
}
WITH n, min(rank) AS best
WHERE $kinds IS NULL OR n.kind IN $kinds
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC LIMIT $limit
"""
CONTEXT_MESSAGE = """
UNWIND range(0, size($seeds) - 1) AS rank
MATCH (s:Message {id: $seeds[rank]})
WHERE s.learner_id = $learner_id
MATCH path = (s)-[:NEXT*1..3]-(n:Message)
WHERE length(path) <= $window AND n.learner_id = $learner_id
WITH n, min(rank) AS best, min(length(path)) AS distance
RETURN n.id AS id, 1.0 / (1 + best) AS score
ORDER BY best ASC, distance ASC LIMIT $limit
"""
HYDRATE_MEMORY = """
UNWIND $ids AS id
MATCH (n:Memory {id: id})
WHERE n.learner_id = $learner_id
RETURN n.id AS id, n.text AS text, n.created_at AS created_at, n.kind AS kind,
       coalesce(n.tags, []) AS tags, n.session_id AS session_id, n.seq AS seq,
       labels(n) AS labels
"""
HYDRATE_MESSAGE = """
UNWIND $ids AS id
MATCH (n:Message {id: id})
WHERE n.learner_id = $learner_id
RETURN n.id AS id, n.content AS text, n.created_at AS created_at, 'message' AS kind,
       [] AS tags, n.session_id AS session_id, n.seq AS seq, n.role AS role,
       labels(n) AS labels
"""
# Zettelkasten notes belong to another module; read them defensively.
NOTE_LABEL_EXISTS = "CALL db.labels() YIELD label WITH label WHERE label = 'Note' RETURN count(*) AS n"
NOTE_INDEXES = """
SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options, state
WHERE 'Note' IN labelsOrTypes AND state = 'ONLINE' AND type IN ['VECTOR', 'FULLTEXT']
RETURN name, type, properties, options.indexConfig['vector.dimensions'] AS dimension
"""
NOTE_EXACT = _EXACT.format(label="Note")
HYDRATE_NOTE = """
UNWIND $ids AS id
MATCH (n:Note)
WHERE n.id = id AND n.learner_id = $learner_id
RETURN n.id AS id, coalesce(n.text, n.description, n.content, '') AS text,
       toString(coalesce(n.created_at, n.timestamp)) AS created_at, 'note' AS kind,
       coalesce(n.tags, []) AS tags, null AS session_id, n.seq AS seq, labels(n) AS labels
"""


@dataclass(frozen=True)
class SearchTarget:
    """Which label a store searches and the queries specific to it."""

    label: str
    vector_index: str
    fulltext_index: str
    text_field: str
    exact_query: str
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
        _EXACT.format(label="Memory"),
        _RECENT.format(label="Memory"),
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
        _EXACT.format(label="Message"),
        _RECENT.format(label="Message"),
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


class HybridSearch:
    """Run one recipe for one target inside a read transaction."""

    def __init__(self, target: SearchTarget) -> None:
        """Search ``target``."""
        self.target = target

    async def _vector(
        self, tx: neo4j.AsyncTransaction, index: str, exact: str, params: dict[str, Any]
    ) -> list[tuple[str, float]]:
        limit = params["limit"]
        k = min(MAX_VECTOR_K, limit * params["oversample"])
        rows = await fetch(tx, VECTOR_QUERY, index=index, k=k, **params) if index else []
        if len(rows) < limit:  # crowded out of the global top-k, or a small learner
            rows = await fetch(tx, exact, **params)
        return _pairs(rows)

    async def _fulltext(self, tx: neo4j.AsyncTransaction, lucene: str, params: dict[str, Any]) -> list[Any]:
        k = params["limit"] * (params["oversample"] if params["kinds"] is not None else 1)
        index = self.target.fulltext_index
        return _pairs(await fetch(tx, FULLTEXT_QUERY, index=index, lucene=lucene, k=k, **params))

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
            lists["recent"] = _pairs(await fetch(tx, self.target.recent_query, **params))
            weights = {"recent": 1.0}
        if embedding is not None and weights.get("vector"):
            lists["vector"] = await self._vector(
                tx, self.target.vector_index, self.target.exact_query, params
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
            rows = await fetch(tx, self.target.expand_query, seeds=seeds, **params)
            lists["expand"] = _pairs(rows)
        if seeds and weights.get("context"):
            rows = await fetch(
                tx, self.target.context_query, seeds=seeds, window=recipe.context_window, **params
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
            vector = await self._vector(tx, notes.vector_index or "", NOTE_EXACT, params)
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
                **params,
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
