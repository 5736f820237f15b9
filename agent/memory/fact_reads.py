"""The read path of the fact store: search, history and expansion (``agent.memory.facts``).

``FactReads`` is the store without its writes: current facts, ``as_of`` or with their
history; vector + full text (+ the asked slots) fused with RRF and blended with activation;
the read-time net (``fact_order.newest_first``) on the facts' stored MiniLM vectors; in
degraded mode, the facts cached in Redis (``agent.memory.fact_cache``).
"""

from __future__ import annotations

import asyncio
from typing import Any

import neo4j
import numpy as np

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.schema import learner_key
from agent.graphdb.store import Neo4jStore, fetch, is_neo4j_down
from agent.language.answer_kinds import FLOOR, answer_order
from agent.language.current_versions import not_current
from agent.language.facts import query_slots
from agent.memory import cognitive_queries as q
from agent.memory.activation import blend_score, boosted, decayed
from agent.memory.fact_cache import SLOT_WEIGHT, cached_fact_page
from agent.memory.fact_order import current_fact_places, learners_ahead, newest_first
from agent.memory.fact_records import FactRecord, expand_hit, hit_from_row, pairs, record_from_row, utc_iso
from agent.memory.records import ID
from agent.models.embeddings import MINILM_NAME
from agent.search.lucene import LuceneScope
from agent.search.probe import MAX_VECTOR_K, probe_choice
from agent.search.recipes import SearchRecipe, get_recipe
from agent.search.results import SearchHit, SearchPage, rrf_fuse
from agent.search.rewrite import keyword_query
from agent.search.termstats import weighted_query
from agent.validation import validate_learner_id, validate_text

MAX_K = 50
TIE = 1e-9
"""Blended scores this close (relative) are one score: the newer fact first (``near_ties_newest_first``)."""


def near_ties_newest_first(ranked: list[tuple[float, float, Any, dict[str, Any]]]) -> list[Any]:
    """``ranked`` (score, activation, fused, row) best first; near-equal scores newest ``valid_from`` first.

    Two facts that swap ranks between the vector and the full-text list fuse to the same score; the
    fused id (a hash with the learner's id in it) then chose at random between runs. A tie is now
    read as the newer statement first (then the better single rank, then the id).
    """
    ranked = sorted(ranked, key=lambda r: -r[0])
    out: list[Any] = []
    while ranked:
        top = ranked[0][0]
        run = [r for r in ranked if top - r[0] <= TIE * max(abs(top), 1e-12)]
        ranked = ranked[len(run) :]
        run.sort(key=lambda r: (r[2].best_rank, r[2].id))
        run.sort(key=lambda r: str(r[3].get("valid_from") or ""), reverse=True)
        out += run
    return out


def answer_first(question: str, hits: list[SearchHit], sims: dict[str, float]) -> list[SearchHit]:
    """``hits`` with the fact that holds what ``question`` asks moved to the first fact place.

    Only among current facts told at the top fact's time (``answer_kinds.answer_order``); a fact the
    net marked an older version (``was_until``) or that tells no value of the learner's never moves.
    """
    places = current_fact_places(hits)
    if len(places) < 2:
        return hits
    facts = [hits[i] for i in places]
    moved = answer_order(
        question,
        [h.text for h in facts],
        np.asarray([sims.get(h.id, 0.0) for h in facts]),
        [str(h.metadata.get("valid_from") or "") for h in facts],
        [not h.metadata.get("was_until") and not not_current(h.text) for h in facts],
    )
    if moved is None:
        return hits
    out = list(hits)
    order = [places[moved]] + [p for k, p in enumerate(places) if k != moved]
    for place, source in zip(places, order, strict=True):
        out[place] = hits[source]
    return out


def net_then_answer(
    hits: list[SearchHit],
    vectors: np.ndarray,
    query: np.ndarray | None,
    question: str,
    chains: dict[str, np.ndarray] | None = None,
) -> list[SearchHit]:
    """The read-time net, then the answer's kind first: both CPU-bound, so one worker thread for both.

    ``vectors`` are the current facts' unit vectors in ``current_fact_places`` order; ``chains``
    the unit vectors of the versions each update closed. An update answers what its first version
    did ("polished off 4 more (now 35)" shares no word with "How many <site> problems …?" while "27
    problems done so far" did): it is as close to the question as the closest version of its chain.
    """
    ordered = newest_first(hits, vectors, query, question)
    if query is None or not question:
        return ordered
    ids = [hits[i].id for i in current_fact_places(hits)]
    sims = dict(zip(ids, (vectors @ query).tolist(), strict=True))
    for fact_id, chain in (chains or {}).items():
        if fact_id in sims and len(chain):
            sims[fact_id] = max(sims[fact_id], float(np.max(chain @ query)))
    return answer_first(question, learners_ahead(ordered, sims, question, FLOOR), sims)


def _unit_rows(rows: list[list[float]]) -> np.ndarray:
    """``rows`` as L2-normalised float32 rows."""
    out = np.asarray(rows, dtype="float32").reshape(len(rows), -1)
    return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


class FactReads(Neo4jStore):
    """Reads of the learner's bi-temporal facts (the write path is ``agent.memory.facts.FactStore``)."""

    recipe: SearchRecipe = get_recipe("cognitive")

    async def _records(self, learner_id: str, ids: list[str]) -> list[FactRecord]:
        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, q.FACT_HYDRATE, ids=ids, learner_id=learner_id)

        rows = {r["id"]: r for r in await self.read(work)}
        return [record_from_row(rows[i]) for i in ids if i in rows]

    async def history(self, learner_id: str, *, limit: int = 100) -> list[FactRecord]:
        """Every version of the learner's facts, newest ``valid_from`` first."""
        learner_id = validate_learner_id(learner_id)
        if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= 1000:
            raise InvalidInputError(f"limit must be an integer from 1 to 1000, got {limit!r}")

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, q.FACT_HISTORY, learner_id=learner_id, limit=limit)

        return [record_from_row(r) for r in await self.read(work)]

    async def search(
        self,
        learner_id: str,
        query: str,
        *,
        as_of: str | None = None,
        k: int = 10,
        include_history: bool = False,
    ) -> SearchPage:
        """The learner's facts best matching ``query``: current ones, or those valid ``as_of``."""
        learner_id = validate_learner_id(learner_id)
        query = validate_text(query, "query", 64 * 1024, allow_blank=True)[:4096].strip()
        as_of = utc_iso(as_of, "as_of")
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
            raise InvalidInputError(f"k must be an integer from 1 to {MAX_K}, got {k!r}")
        if not isinstance(include_history, bool):
            raise InvalidInputError("include_history must be true or false")
        try:
            if self.degraded:
                raise StoreUnavailableError("Neo4j", "marked down after a recent failure")
            hits = await self._search_neo4j(learner_id, query, as_of, k, include_history)
        except StoreUnavailableError as exc:
            if self.backlog is None or not is_neo4j_down(exc):
                raise
            return await self._search_cached(learner_id, query, k, include_history)
        return SearchPage(hits, 0, k, self.recipe.name, has_more=False)

    async def _search_neo4j(
        self, learner_id: str, query: str, as_of: str | None, k: int, history: bool
    ) -> list[SearchHit]:
        recipe = self.recipe
        embedding = await self.embed_query(query) if query else None
        text = keyword_query(query) if recipe.keyword_query else query
        scope = LuceneScope(("text",), learner_key(learner_id))
        words = scope.term_clauses(text)
        limit = recipe.candidates(0, k)
        slots = query_slots(query)
        params = {"learner_id": learner_id, "as_of": as_of, "history": history, "limit": limit}

        async def work(tx: neo4j.AsyncTransaction) -> tuple[list[Any], dict[str, dict[str, Any]]]:
            lists: dict[str, list[tuple[str, float]]] = {}
            weights = dict(recipe.weights)
            if embedding is not None:
                k_vec = min(MAX_VECTOR_K, limit * recipe.oversample)
                index = self.names.memory_vector
                [probe] = await fetch(tx, q.FACT_PROBE, index=index, k=k_vec, embedding=embedding, **params)
                rows = probe_choice(probe, limit)
                if rows is None:
                    rows = await fetch(tx, q.FACT_EXACT, embedding=embedding, **params)
                lists["vector"] = pairs(rows)
            if words:
                # Facts are memories: weighted by the learner's memories, as the archive's search.
                index = self.names.memory_fulltext
                lucene = await weighted_query(
                    tx, scope, words, index=index, label="Memory", learner_id=learner_id
                )
                rows = (
                    []
                    if lucene is None
                    else await fetch(tx, q.FACT_FULLTEXT, index=index, lucene=lucene, k=limit * 10, **params)
                )
                lists["fulltext"] = pairs(rows)
            if slots:
                predicates = sorted({p for _, p in slots})
                subjects = sorted({s for s, _ in slots if s})
                rows = await fetch(tx, q.FACT_BY_SLOT, predicates=predicates, subjects=subjects, **params)
                exact = [r for r in rows if r["score"] > 1.0]  # the subject asked about, if any
                lists["slot"], weights["slot"] = pairs(exact or rows), SLOT_WEIGHT
            if not lists:
                lists, weights = {"recent": pairs(await fetch(tx, q.FACT_RECENT, **params))}, {"recent": 1.0}
            fused = rrf_fuse(lists, weights, k=recipe.rrf_k)[:limit]
            ids = [f.id for f in fused]
            rows = await fetch(tx, q.FACT_HYDRATE, ids=ids, learner_id=learner_id)
            return fused, {r["id"]: r for r in rows}

        fused, rows = await self.read(work)
        now = self.clock()
        ranked = []
        for f in fused:
            row = rows.get(f.id)
            if row is None:
                continue
            activation = decayed(row["activation"] or 0.0, row["last_access"], now)
            score = blend_score(f.score, activation, row["access_count"], recipe)
            ranked.append((score, activation, f, row))
        chosen = near_ties_newest_first(ranked)[:k]
        await self._touch(
            learner_id,
            [(r[3]["id"], boosted(r[3]["activation"] or 0.0, r[3]["last_access"], now)) for r in chosen],
        )
        hits = [
            hit_from_row(row, score, {**f.scores, "activation": act, "blend": score})
            for score, act, f, row in chosen
        ]
        return await self._newest_first(learner_id, hits, embedding, query)

    async def _newest_first(
        self, learner_id: str, hits: list[SearchHit], asked: list[float] | None = None, question: str = ""
    ) -> list[SearchHit]:
        """The read-time net (``fact_order.newest_first``) on the current facts' stored MiniLM vectors.

        ``asked``: the question's vector (None: no query), so the net also groups the facts that
        answer it about equally well with different values; then, of the facts told at the top
        fact's time, the one that holds the kind of value ``question`` asks goes first
        (``answer_kinds.answer_order``).
        """
        places = current_fact_places(hits)
        if len(places) < 2 or self.embeddings.model_name != MINILM_NAME:
            return hits
        ids, model = [hits[i].id for i in places], self.embeddings.model_name
        updates = [hits[i].id for i in places if hits[i].metadata.get("superseded")]

        async def work(tx: neo4j.AsyncTransaction) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
            # one read for the facts' vectors and those of the versions the updates closed
            rows = await fetch(tx, q.FACT_VECTORS, ids=ids, learner_id=learner_id, model=model)
            chain = (
                await fetch(tx, q.FACT_CHAIN_VECTORS, ids=updates, learner_id=learner_id, model=model)
                if updates
                else []
            )
            return rows, chain

        rows, chain_rows = await self.read(work)
        stored = {r["id"]: r["embedding"] for r in rows}
        chains = {r["id"]: _unit_rows(r["embeddings"]) for r in chain_rows}
        missing = [hits[i].text for i in places if stored.get(hits[i].id) is None]  # none: written here
        fresh = iter(await self.embed_documents(missing) if missing else [])
        vectors = _unit_rows([stored.get(i) or next(fresh) for i in ids])
        query = None if asked is None else _unit_rows([asked])[0]
        return await asyncio.to_thread(net_then_answer, hits, vectors, query, question, chains)

    async def _touch(self, learner_id: str, boosts: list[tuple[str, float]]) -> None:
        """Store the read boost of the facts a search returned."""
        if not boosts:
            return
        rows = [{"id": i, "activation": a} for i, a in boosts]

        async def work(tx: neo4j.AsyncTransaction) -> None:
            await fetch(tx, q.FACT_TOUCH, rows=rows, learner_id=learner_id, now=self.now_iso())

        await self.write(work)

    async def _search_cached(self, learner_id: str, query: str, k: int, history: bool) -> SearchPage:
        """Degraded mode: the facts cached in Redis (``agent.memory.fact_cache``)."""
        assert self.backlog is not None
        items = await self.backlog.recent("archival", learner_id)
        return cached_fact_page(
            items, query, k, history=history, rrf_k=self.recipe.rrf_k, recipe=self.recipe.name
        )

    async def expand(
        self, learner_id: str, seeds: list[str], *, depth: int = 2, as_of: str | None = None, limit: int = 20
    ) -> list[SearchHit]:
        """Facts (valid as asked) and episode messages within ``depth`` hops of ``seeds``."""
        learner_id = validate_learner_id(learner_id)
        if depth not in (1, 2):
            raise InvalidInputError(f"depth must be 1 or 2, got {depth!r}")
        seeds = [s for s in seeds if isinstance(s, str) and ID.match(s)]
        if not seeds:
            return []
        params = {"learner_id": learner_id, "as_of": utc_iso(as_of, "as_of"), "history": False}

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, q.FACT_EXPAND, seeds=seeds, depth=depth, limit=limit, **params)

        return [expand_hit(row) for row in await self.read(work)]
