"""Semantic memory: bi-temporal facts about the learner, in Neo4j.

``(:Learner)-[:HAS_MEMORY]->(:Memory:Fact)`` with ``SUPERSEDES``, ``SIMILAR_TO`` and
``DERIVES_FROM`` edges; facts share the ``Memory`` label, so the archival indexes cover them.
The model and its rules are told in ``docs/cognitive-memory.md``; in short:

- **Bi-temporal**: ``valid_from``/``valid_to`` say when a fact was true (``valid_to`` null:
  current), ``recorded_at`` when KAG learnt it (UTC ISO-8601).
- **Slots** ``(subject, predicate)`` come from ``agent.language.facts.fact_slot``; a statement
  in no known slot gets a slot of its own, so unrelated facts never retire each other. Writing
  a fact closes the current fact of its slot and links ``(new)-[:SUPERSEDES]->(old)`` in one
  transaction; ``replaced_values`` retires facts naming a replaced value ("from A to B").
- **New values outside the slots** (``fact_records.changed_fact``): a difference ("postponed
  by a week") resolved against the closest current fact, or a statement the language layer is
  near-certain about (``agent.language.same_thing``), takes that fact's slot and retires it.
- **Idempotent**: re-stating a slot's current fact changes nothing; ids hash (learner, slot,
  text, valid_from), so replays MERGE onto the same node.
- **Search**: current facts, ``as_of`` or ``include_history``; vector + full text (+ the asked
  slots) fused with RRF and blended with activation. Two current facts about the same thing
  rank newest first, the older marked ``was_until`` (``fact_records.newest_first``).
- **Degraded mode**: writes are parked (op ``fact.remember``) and replayed; searches answer
  from the facts cached in Redis (``agent.memory.fact_cache``), ``degraded=True``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import neo4j
import numpy as np

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.schema import ensure_schema, learner_key
from agent.graphdb.store import Neo4jStore, fetch, is_neo4j_down
from agent.language.facts import query_slots
from agent.memory import cognitive_queries as q
from agent.memory.activation import READ_BOOST, blend_score, boosted, decayed
from agent.memory.fact_cache import SLOT_WEIGHT, cached_fact_page
from agent.memory.fact_records import (
    FactRecord,
    changed_fact,
    current_fact_places,
    expand_hit,
    fact_payload,
    hit_from_row,
    names_value,
    newest_first,
    pairs,
    parked_record,
    record_from_row,
    utc_iso,
)
from agent.memory.records import ID
from agent.models.embeddings import MINILM_NAME
from agent.search.lucene import LuceneScope
from agent.search.probe import MAX_VECTOR_K, probe_choice
from agent.search.recipes import SearchRecipe, get_recipe
from agent.search.results import SearchHit, SearchPage, rrf_fuse
from agent.search.rewrite import keyword_query
from agent.search.termstats import weighted_query
from agent.validation import validate_learner_id, validate_text

__all__ = ["OP_REMEMBER", "FactRecord", "FactStore"]

OP_REMEMBER = "fact.remember"
FACT_SCHEMA_KEY = "facts"
SIMILAR_THRESHOLD = 0.80
SIMILAR_TOP = 3
MAX_K = 50
CLOSEST_TOP = 3  # current facts a statement outside the slots is compared with (best, margin)


class FactStore(Neo4jStore):
    """Bi-temporal facts per learner (semantic memory)."""

    backlog_ops = frozenset({OP_REMEMBER})
    recipe: SearchRecipe = get_recipe("cognitive")

    async def _setup_schema_once(self, _: object = None) -> None:
        await super()._setup_schema_once()

        async def setup() -> None:
            async with self.driver.session(database=self.database) as session:
                for statement in q.FACT_INDEXES:
                    await (await session.run(statement)).consume()

        await ensure_schema(self.driver, self.database, setup, key=FACT_SCHEMA_KEY)

    # ----- writes -----
    async def remember(
        self,
        learner_id: str,
        content: str,
        *,
        subject: str | None = None,
        predicate: str | None = None,
        concept: str | None = None,
        confidence: float = 1.0,
        source: str = "learner",
        valid_from: str | None = None,
        episode_id: str | None = None,
    ) -> FactRecord:
        """Record a fact, closing the current fact of its slot (see the module docstring)."""
        payload = fact_payload(
            validate_learner_id(learner_id),
            utc_iso(self.clock(), "recorded_at"),
            content,
            subject=subject,
            predicate=predicate,
            concept=concept,
            confidence=confidence,
            source=source,
            valid_from=valid_from,
            episode_id=episode_id,
        )
        record = await self.write_or_park(payload["learner_id"], OP_REMEMBER, payload, self._apply)
        if self.backlog is not None:
            keys = ("id", "text", "subject", "predicate", "valid_from", "recorded_at")
            item = {k: payload[k] for k in keys} | {"kind": "fact", "created_at": payload["valid_from"]}
            await self.backlog.remember("archival", payload["learner_id"], [item])
        return record if record is not None else parked_record(payload)

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked ``fact.remember`` (MERGE on its id: idempotent)."""
        if op != OP_REMEMBER:
            raise InvalidInputError(f"fact store cannot apply {op!r}")
        await self._apply(payload)

    async def _apply(self, p: dict[str, Any]) -> FactRecord:
        [embedding] = await self.embed_documents([p["text"]])
        props = {
            k: p[k]
            # episode_id stays on the fact: the kernel links a message it has not written yet.
            for k in (
                "learner_id",
                "text",
                "norm",
                "concept",
                "confidence",
                "source",
                "recorded_at",
                "episode_id",
            )
            if p[k] is not None
        }
        props.update(
            kind="fact",
            learner_key=learner_key(p["learner_id"]),
            valid_from=p["valid_from"],
            created_at=p["recorded_at"],
            occurred_at=p["valid_from"],
            tags=["fact"],
            embedding=embedding,
            embedding_model=self.embeddings.model_name,
            activation=READ_BOOST,
            last_access=p["recorded_at"],
            access_count=0,
        )
        args = {"learner_id": p["learner_id"], "id": p["id"]}

        async def work(tx: neo4j.AsyncTransaction) -> str | None:
            await fetch(tx, q.FACT_LOCK, learner_id=p["learner_id"], now=p["recorded_at"])
            owner = await fetch(tx, q.FACT_OWNER, id=p["id"])
            if owner and owner[0]["owner"] != p["learner_id"]:
                raise InvalidInputError(f"fact id {p['id']!r} belongs to another learner")
            if owner:  # a replay: already written
                return p["id"]
            changed = await self._changed(tx, p, embedding)
            slot = (
                {**p, "subject": changed[0]["subject"], "predicate": changed[0]["predicate"]}
                if changed
                else p
            )
            subject, retire, newer = await self._plan(tx, slot)
            if subject is None:  # the slot's current fact already says this
                return retire[0]
            if changed and changed[1]:
                props["text"] = f"{p['text']} (now {changed[1]})"
            props.update(subject=subject, predicate=slot["predicate"])
            await fetch(tx, q.FACT_CREATE, props=props, **args)
            if newer is not None:
                await fetch(tx, q.FACT_CLOSE_BACKDATED, newer_id=newer, **args)
            elif retire or changed:
                retire = list(dict.fromkeys([*retire, *([changed[0]["id"]] if changed else [])]))
                when = {"valid_from": p["valid_from"], "recorded_at": p["recorded_at"]}
                await fetch(tx, q.FACT_RETIRE, old_ids=retire, **when, **args)
            if p["episode_id"]:
                await fetch(tx, q.FACT_LINK_EPISODE, episode_id=p["episode_id"], **args)
            await fetch(tx, q.FACT_LINK_SIMILAR, threshold=SIMILAR_THRESHOLD, top=SIMILAR_TOP, **args)
            return p["id"]

        fact_id = await self.write(work)
        [record] = await self._records(p["learner_id"], [fact_id])
        return record

    async def _changed(
        self, tx: neo4j.AsyncTransaction, p: dict[str, Any], embedding: list[float]
    ) -> tuple[dict[str, Any], str | None] | None:
        """The current fact ``p`` gives a new value to, read by the language layer (docstring)."""
        if p["slotted"] or self.embeddings.model_name != MINILM_NAME:
            return None  # the knobs were chosen on MiniLM cosines
        rows = await fetch(
            tx,
            q.FACT_CLOSEST,
            learner_id=p["learner_id"],
            embedding=embedding,
            model=self.embeddings.model_name,
            top=CLOSEST_TOP,
        )
        return await asyncio.to_thread(changed_fact, p, rows)

    async def _plan(
        self, tx: neo4j.AsyncTransaction, p: dict[str, Any]
    ) -> tuple[str | None, list[str], str | None]:
        """``(subject, ids to retire, newer fact id)``; subject None: an existing fact says this."""
        rows = await fetch(tx, q.FACT_CURRENT, learner_id=p["learner_id"], predicate=p["predicate"])
        subject = p["subject"]
        by_value = [r for r in rows if any(names_value(r["text"] or "", v) for v in p["replaced"])]
        if not p["slotted"] and subject == "learner" and p["predicate"] == "tool" and by_value:
            subject = by_value[0]["subject"]  # "switched from A to B" takes the retired A's slot
        same = [r for r in rows if r["subject"] == subject]
        for row in same:
            if row["norm"] == p["norm"]:
                return None, [row["id"]], None
        start = datetime.fromisoformat(p["valid_from"])
        later = [r for r in same if datetime.fromisoformat(r["valid_from"]) > start]
        if later:  # back-dated: the newer current fact already replaced this one
            return subject, [], min(later, key=lambda r: r["valid_from"])["id"]
        return subject, list(dict.fromkeys(r["id"] for r in [*same, *by_value])), None

    # ----- reads -----
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
        ranked.sort(key=lambda r: (-r[0], r[2].best_rank, r[2].id))
        chosen = ranked[:k]
        await self._touch(
            learner_id,
            [(r[3]["id"], boosted(r[3]["activation"] or 0.0, r[3]["last_access"], now)) for r in chosen],
        )
        hits = [
            hit_from_row(row, score, {**f.scores, "activation": act, "blend": score})
            for score, act, f, row in chosen
        ]
        return await self._newest_first(learner_id, hits)

    async def _newest_first(self, learner_id: str, hits: list[SearchHit]) -> list[SearchHit]:
        """The read-time net (``fact_records.newest_first``) on the current facts' stored MiniLM vectors."""
        places = current_fact_places(hits)
        if len(places) < 2 or self.embeddings.model_name != MINILM_NAME:
            return hits
        ids, model = [hits[i].id for i in places], self.embeddings.model_name

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, q.FACT_VECTORS, ids=ids, learner_id=learner_id, model=model)

        stored = {r["id"]: r["embedding"] for r in await self.read(work)}
        missing = [hits[i].text for i in places if stored.get(hits[i].id) is None]  # none: written here
        fresh = iter(await self.embed_documents(missing) if missing else [])
        vectors = np.asarray([stored.get(i) or next(fresh) for i in ids], dtype="float32")
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
        return await asyncio.to_thread(newest_first, hits, vectors)

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
