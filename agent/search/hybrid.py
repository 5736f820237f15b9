"""Hybrid retrieval over Neo4j shared by the archival and recall stores.

Per recipe: vector index + full-text index (+ the whole question in full text, turn
contexts by their best sentence, the sessions holding the best hits, the neighbouring turns
of the top hits), fused with weighted RRF, filtered by learner, conversational filler ranked
lower when the recipe asks (``disclosure_weight``: turn contexts flagged at write time as no first-person
statement; every retriever's rows carry the flag, so it costs no round trip), then paged.
Isolation: every query filters on ``learner_id = $learner_id``; the vector index's
top-k is global, so it is oversampled and, when the learner's share is short,
replaced by an exact cosine scan over that learner's nodes. A learner with fewer
candidates than asked for is scanned exactly at once, in the same query as the index
(``PROBE_TEMPLATE``): the index could only come up short for them. Full-text queries are
scoped in Lucene by the learner's key and filtered again in Cypher, and weighted by the
learner's own term statistics (``agent.search.termstats``: one more round trip), so no
other learner's documents change which of the learner's hits rank first.
Round trips: the term counts, then the vector probe and both full-text passes as one query
(``FIRST_STAGE``), then the context list with the page's hits hydrated. The ``sentence``
list is read in a transaction of its own beside this one, so Neo4j runs the two vector
searches at once.
The Cypher lives in ``agent.search.queries``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import neo4j

from agent.graphdb.schema import learner_key
from agent.graphdb.store import fetch
from agent.search.lucene import LuceneScope
from agent.search.probe import probed, query_params, vector_k
from agent.search.queries import FIRST_STAGE
from agent.search.recipes import SearchRecipe
from agent.search.results import SearchHit, demote, rrf_fuse
from agent.search.rewrite import keyword_query, stem_prefixes
from agent.search.sentences import SentenceList, read_sentence_list
from agent.search.sessions import session_lists
from agent.search.targets import SearchTarget
from agent.search.termstats import learner_weights
from agent.turns import TURN_KIND

HIT_META = ("session_id", "seq", "role", "turn_context")
"""Hydrated fields a hit carries in its ``metadata`` (when present)."""


def score_pairs(rows: Sequence[dict[str, Any]]) -> list[tuple[str, float]]:
    """``(id, score)`` of retrieved rows, in their order (a retriever's list for fusion)."""
    return [(str(r["id"]), float(r["score"] or 0.0)) for r in rows]


def not_disclosures(rows: Iterable[dict[str, Any]]) -> set[str]:
    """Ids of retrieved turn contexts flagged as no first-person statement (``disclosure`` false).

    Rows without the flag (other memories, messages, older turn contexts) are not
    in it: ``disclosure_weight`` leaves them as they are.
    """
    return {str(r["id"]) for r in rows if r.get("disclosure") is False}


def hit_key(hit: dict[str, Any]) -> str:
    """The ranked node's id of a hydrated ``hit`` (a ``Turn`` hit's id is its message's)."""
    return str(hit.get("key") or hit["id"])


def hit_sessions(rows: Iterable[dict[str, Any]]) -> dict[str, str]:
    """Each retrieved row's session, by id (rows without one are left out)."""
    return {str(r["id"]): str(r["session"]) for r in rows if r["session"] is not None}


def _candidates(ahead: Sequence[Any], recipe: SearchRecipe, start: int, page_size: int) -> list[str]:
    """The ids of ``ahead`` (fused before ``context``) that can still land on the page.

    The context list only raises its own ids, so any other hit on the page was on it or
    below it by at most the number of context ids (``seeds`` x 2 x ``context_window``);
    whatever later retrievers lift from further down is hydrated afterwards.
    """
    lo = max(0, start - recipe.seeds * 2 * recipe.context_window)
    return [f.id for f in ahead[lo : start + page_size]]


@dataclass
class RankedLists:
    """What the first stage ranked: the lists and their weights, each hit's session, the filler."""

    lists: dict[str, list[tuple[str, float]]]
    weights: dict[str, float]
    session_of: dict[str, str]
    """Each first-stage hit's session (the ``session`` retriever's votes)."""
    demoted: set[str]
    """Turn contexts that are no first-person statements (:func:`not_disclosures`)."""


class HybridSearch:
    """Run one recipe for one target inside a read transaction."""

    def __init__(self, target: SearchTarget) -> None:
        """Search ``target``."""
        self.target = target

    async def _first_stage(
        self,
        tx: neo4j.AsyncTransaction,
        params: dict[str, Any],
        *,
        vector: bool,
        lucene: str | None,
        question: str | None,
    ) -> tuple[dict[str, list[tuple[str, float]]], dict[str, str], set[str]]:
        """The vector, full-text and question lists (those asked for) in one round trip.

        Also each hit's session, which the ``session`` retriever's votes need, and the hits
        that are no first-person statements (:func:`not_disclosures`).
        """
        target = self.target
        wanted = {"vector": vector and bool(target.vector_index), "fulltext": lucene is not None}
        wanted["question"] = question is not None
        parts = tuple(name for name, on in wanted.items() if on)
        found: dict[str, list[dict[str, Any]]] = {}
        if vector and not target.vector_index:  # no index: the exact scan
            found["vector"] = await fetch(tx, target.exact_query, **query_params(params, embedding=True))
        if parts:
            args = query_params(params, embedding="vector" in parts)
            if "vector" in parts:
                args.update(index=target.vector_index, k=vector_k(params))
            if lucene is not None or question is not None:
                oversample = params["oversample"] if params["kinds"] is not None else 1
                args.update(text_index=target.fulltext_index, text_k=params["limit"] * oversample)
                args.update(lucene=lucene, question=question)
            [row] = await fetch(tx, FIRST_STAGE[(target.label, parts)], **args)
            if "vector" in parts:
                found["vector"] = await probed(tx, row, target.exact_query, params)
            found.update({name: row[name] for name in ("fulltext", "question") if name in parts})
        session_of = hit_sessions(r for rows in found.values() for r in rows)
        demoted = not_disclosures(r for rows in found.values() for r in rows)
        return {name: score_pairs(rows) for name, rows in found.items()}, session_of, demoted

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
        sentences: Awaitable[SentenceList] | None = None,
    ) -> tuple[list[SearchHit], bool]:
        """Fused, hydrated hits for ``page``, and whether more pages exist.

        ``sentences``: the ``sentence`` list, read by the caller in a transaction of its own
        beside this one; awaited after the first stage.
        """
        params: dict[str, Any] = {
            "learner_id": learner_id,
            "kinds": list(kinds) if kinds is not None else None,
            "limit": recipe.candidates(page, page_size),
            "oversample": recipe.oversample * (3 if kinds is not None else 1),
            "embedding": embedding,
        }
        ranked = await self._ranked_lists(tx, params, query, recipe, sentences)
        lists, weights, demoted = ranked.lists, ranked.weights, ranked.demoted
        if embedding is not None and weights.get("session"):
            per_rank = await session_lists(
                tx,
                recipe,
                label=self.target.label,
                learner_id=learner_id,
                embedding=embedding,
                kinds=params["kinds"],
                fused=[(f.id, f.score) for f in rrf_fuse(lists, weights, k=recipe.rrf_k)],
                session_of=ranked.session_of,
                demoted=demoted,
            )
            for rank, session_list in enumerate(per_rank, start=1):
                lists[f"session{rank}"] = session_list
                weights[f"session{rank}"] = weights["session"] / rank
        seeds = [f.id for f in rrf_fuse(lists, weights, k=recipe.rrf_k)[: recipe.seeds]]
        start = page * page_size
        hydrated: dict[str, dict[str, Any]] = {}
        if seeds and weights.get("context"):
            # The page's hits are hydrated with the context list, in its round trip (_candidates).
            [row] = await fetch(
                tx,
                self.target.context_query,
                seeds=seeds,
                window=recipe.context_window,
                ids=_candidates(rrf_fuse(lists, weights, k=recipe.rrf_k), recipe, start, page_size),
                **query_params(params),
            )
            lists["context"] = score_pairs(row["context"])
            demoted |= not_disclosures(row["context"])
            hydrated = {hit_key(hit): hit for hit in row["hits"]}
        # Conversational filler ranks lower (the recipe's ``disclosure_weight``); seeds and
        # session votes above were taken before, on relevance alone.
        fused = demote(rrf_fuse(lists, weights, k=recipe.rrf_k), demoted, recipe.disclosure_weight)
        chosen = fused[start : start + page_size]
        hits = await self._hydrate(tx, learner_id, chosen, hydrated)
        return hits, len(fused) > start + page_size

    async def _ranked_lists(
        self,
        tx: neo4j.AsyncTransaction,
        params: dict[str, Any],
        query: str,
        recipe: SearchRecipe,
        sentences: Awaitable[SentenceList] | None,
    ) -> RankedLists:
        """The lists that rank on the query alone: vector, full text, question and sentence.

        With nothing to match on (no embedding, no words) the learner's newest come first.
        """
        weights = dict(recipe.weights)
        lists: dict[str, list[tuple[str, float]]] = {}
        text_query = keyword_query(query) if recipe.keyword_query else query
        learner_id = params["learner_id"]
        scope = LuceneScope((self.target.text_field,), learner_key(learner_id))
        words = scope.term_clauses(text_query)
        if params["embedding"] is None and not words:  # nothing to match on: newest first
            lists["recent"] = score_pairs(await fetch(tx, self.target.recent_query, **query_params(params)))
            weights = {"recent": 1.0}
        keywords = words + scope.prefix_clauses(stem_prefixes(text_query) if recipe.stem_prefixes else ())
        asked = scope.term_clauses(query)  # the whole question in full text too
        wanted = (keywords if weights.get("fulltext") else []) + (asked if weights.get("question") else [])
        target = self.target
        idf = await learner_weights(
            tx, scope, wanted, index=target.fulltext_index, label=target.label, learner_id=learner_id
        )
        first, session_of, demoted = await self._first_stage(
            tx,
            params,
            vector=params["embedding"] is not None and bool(weights.get("vector")),
            lucene=scope.query(keywords, idf) if weights.get("fulltext") else None,
            question=scope.query(asked, idf) if weights.get("question") else None,
        )
        lists.update(first)
        if sentences is not None and weights.get("sentence"):
            lists["sentence"], flagged = await sentences
            demoted |= flagged
        return RankedLists(lists, weights, session_of, demoted)

    def wants_sentences(self, recipe: SearchRecipe, kinds: Sequence[str] | None) -> bool:
        """Whether ``recipe`` reads the ``sentence`` list: it weights it, and the search ranks turn contexts.

        Only a search that asks for turn contexts by kind (the conversation search, the LoCoMo
        presets: where the list was chosen) reads it; a search over every kind (``kinds`` None:
        the archival tool, consultation) does not pay for its second read.
        """
        searched = kinds is not None and TURN_KIND in kinds
        return bool(recipe.sentence_weight and self.target.sentence_index and searched)

    async def sentence_list(
        self,
        tx: neo4j.AsyncTransaction,
        *,
        learner_id: str,
        embedding: list[float],
        recipe: SearchRecipe,
        page: int,
        page_size: int,
    ) -> SentenceList:
        """The ``sentence`` list for this target (``agent.search.sentences.read_sentence_list``)."""
        limit = recipe.candidates(page, page_size)
        index = self.target.sentence_index
        return await read_sentence_list(tx, index, learner_id, embedding, limit, recipe.oversample)

    async def _hydrate(
        self,
        tx: neo4j.AsyncTransaction,
        learner_id: str,
        chosen: Sequence[Any],
        hydrated: dict[str, dict[str, Any]],
    ) -> list[SearchHit]:
        """``chosen`` as hits: fields from ``hydrated`` (fetched with the context list), else read now."""
        if not chosen:
            return []
        ids = [f.id for f in chosen]
        found = {i: hydrated[i] for i in ids if i in hydrated}
        missing = [i for i in ids if i not in found]
        if missing:
            rows = await fetch(tx, self.target.hydrate_query, ids=missing, learner_id=learner_id)
            found.update({hit_key(r["hit"]): r["hit"] for r in rows})
        hits = []
        for f in chosen:
            row = found.get(f.id)
            if row is None:  # deleted between retrieval and hydration
                continue
            meta = {k: row[k] for k in HIT_META if row.get(k) is not None}
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
