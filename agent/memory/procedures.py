"""Procedural memory: the learner's own how-to steps, kept in order and ranked by use.

Graph: ``(:Learner)-[:HAS_MEMORY]->(:Memory:Procedure {id, learner_id, learner_key,
kind: 'procedure', name, steps, prerequisites, text, usage_count, access_count,
activation, last_access, created_at, updated_at, seq, embedding, embedding_model})
-[:PROCEDURE_DERIVES_FROM]->(:Message)`` (the episode the learner stated it in).
``text`` is "How to <name>: 1. <step> 2. <step> …", so the shared ``Memory`` vector and
full-text indexes find procedures and a hit's text keeps the steps in order.

- ``save`` is idempotent on (learner, normalised name): re-saving replaces the steps
  (usage is kept). Parked in the write backlog while Neo4j is down (op
  ``procedure.save``) and replayed in order.
- ``recall`` runs the ``cognitive`` recipe's hybrid search (usage weighted up, light stems as prefixes,
  ``procedure_recipe``) restricted to kind ``procedure``, keeps candidates that full
  text found or whose cosine is at least ``MIN_COSINE`` (the vector list ranks every
  procedure, related or not), re-ranks them with ``agent.memory.activation.blend_score``
  (relevance, normalised to the best
  candidate, lifted by decayed activation and ``usage_count``), returns the top ``k`` and
  counts the use: ``usage_count + 1`` and an activation read boost for each returned hit.
  While Neo4j is down it serves the Redis recent-items cache (``degraded=True``).
"""

from __future__ import annotations

import hashlib
import logging
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import neo4j

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.graphdb.schema import learner_key
from agent.graphdb.store import Neo4jStore, check_text, fetch, is_neo4j_down
from agent.memory.activation import READ_BOOST, blend_score, boosted, decayed
from agent.memory.cognitive_queries import (
    LIST_PROCEDURES,
    PROCEDURE_FIELDS,
    RECORD_PROCEDURE_USE,
    SAVE_PROCEDURE,
)
from agent.memory.recent import search_recent
from agent.memory.records import ID
from agent.search.hybrid import HybridSearch
from agent.search.recipes import SearchRecipe, get_recipe
from agent.search.results import SearchHit, SearchPage
from agent.search.targets import memory_target
from agent.validation import validate_learner_id

log = logging.getLogger(__name__)

OP_SAVE = "procedure.save"
KIND = "procedure"
RECIPE = "cognitive_procedures"
MAX_NAME_BYTES = 300
MAX_STEP_BYTES = 1000
MAX_STEPS = 30
MAX_PREREQUISITES = 20
MAX_K = 20
CANDIDATES = 20
"""Retrieved candidates that the usage/activation blend re-ranks before the top ``k``."""
MIN_COSINE = 0.4
"""A candidate found by the vector retriever alone needs this cosine to count as a match."""


def normalise_name(name: str) -> str:
    """Identity of a procedure name: lower case, no "how to", articles or punctuation."""
    words = re.findall(r"[^\W_]+", name.lower())
    if words[:2] == ["how", "to"]:
        words = words[2:]
    return " ".join(w for w in words if w not in ("a", "an", "the")) or name.strip().lower()


def procedure_id(learner_id: str, name: str) -> str:
    """Stable id of the learner's procedure ``name`` (normalised)."""
    digest = hashlib.sha256(f"{learner_id}\x00{normalise_name(name)}".encode()).hexdigest()
    return f"proc-{digest[:32]}"


def procedure_text(name: str, steps: Sequence[str]) -> str:
    """``How to <name>: 1. <step> 2. <step> …`` (the searchable text; steps in order)."""
    numbered = " ".join(f"{i}. {step.rstrip('.')}." for i, step in enumerate(steps, start=1))
    return f"How to {name}: {numbered}"


@dataclass(frozen=True)
class ProcedureRecord:
    """A stored (or parked, when ``degraded``) procedure."""

    id: str
    name: str
    steps: list[str]
    prerequisites: list[str] = field(default_factory=list)
    usage_count: int = 0
    created_at: str = ""
    degraded: bool = False

    @property
    def text(self) -> str:
        """The searchable text: "How to <name>: 1. … 2. …"."""
        return procedure_text(self.name, self.steps)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (with ``text``)."""
        return {**asdict(self), "text": self.text}


def procedure_recipe() -> SearchRecipe:
    """The named ``cognitive_procedures`` recipe (``cognitive`` with usage weighted more, stem prefixes)."""
    return get_recipe(RECIPE)


def _matches(hit: SearchHit) -> bool:
    """A full-text match, or a close enough embedding (the vector list ranks everything)."""
    # Neo4j reports vector similarity as (1 + cosine) / 2.
    return "fulltext" in hit.scores or 2 * hit.scores.get("vector", 0.0) - 1 >= MIN_COSINE


def _texts(values: object, name: str, limit: int, max_bytes: int, *, at_least: int = 0) -> list[str]:
    if isinstance(values, str) or not isinstance(values, Sequence):
        raise InvalidInputError(f"{name} must be a list of strings")
    if not at_least <= len(values) <= limit:
        raise InvalidInputError(f"{name} must hold {at_least} to {limit} items, got {len(values)}")
    return [check_text(v, f"{name}[{i}]", max_bytes).strip() for i, v in enumerate(values)]


class ProcedureStore(Neo4jStore):
    """The learner's procedures (``:Memory:Procedure``)."""

    backlog_ops = frozenset({OP_SAVE})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """Same arguments as ``Neo4jStore``: driver, embeddings, database, backlog, clock."""
        super().__init__(*args, **kwargs)
        self._search = HybridSearch(memory_target(self.names))

    # ----- writes -----
    async def save(
        self,
        learner_id: str,
        name: str,
        steps: Sequence[str],
        *,
        prerequisites: Sequence[str] = (),
        episode_id: str | None = None,
    ) -> ProcedureRecord:
        """Store the procedure ``name`` with ordered ``steps`` (re-saving replaces the steps)."""
        learner_id = validate_learner_id(learner_id)
        name = check_text(name, "procedure name", MAX_NAME_BYTES).strip()
        steps = _texts(steps, "steps", MAX_STEPS, MAX_STEP_BYTES, at_least=1)
        prerequisites = _texts(prerequisites, "prerequisites", MAX_PREREQUISITES, MAX_NAME_BYTES)
        if episode_id is not None and (not isinstance(episode_id, str) or not ID.match(episode_id)):
            raise InvalidInputError(f"invalid episode_id {str(episode_id)[:80]!r}")
        payload = {
            "learner_id": learner_id,
            "id": procedure_id(learner_id, name),
            "name": name,
            "steps": steps,
            "prerequisites": prerequisites,
            "episode_id": episode_id,
            "now": self.now_iso(),
        }
        row = await self.write_or_park(learner_id, OP_SAVE, payload, self._save)
        await self._remember(payload)
        if row is None:
            return ProcedureRecord(
                payload["id"], name, steps, prerequisites, 0, payload["now"], degraded=True
            )
        return self._record(row)

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Replay one parked save (MERGE on the id, so replays are idempotent)."""
        if op != OP_SAVE:
            raise InvalidInputError(f"procedure store cannot apply {op!r}")
        await self._save(payload)

    async def _save(self, payload: dict[str, Any]) -> dict[str, Any]:
        text = procedure_text(payload["name"], payload["steps"])
        [embedding] = await self.embed_documents([text])
        params = {
            **payload,
            "learner_key": learner_key(payload["learner_id"]),
            "text": text,
            "embedding": embedding,
            "embedding_model": self.embeddings.model_name,
            "activation": READ_BOOST,
        }
        rows = await self.write(lambda tx: fetch(tx, SAVE_PROCEDURE, **params))
        if not rows:
            raise InvalidInputError(f"memory id {payload['id']!r} belongs to another learner")
        return rows[0]

    async def _remember(self, payload: dict[str, Any]) -> None:
        if self.backlog is not None:
            item = {
                "id": payload["id"],
                "text": procedure_text(payload["name"], payload["steps"]),
                "kind": KIND,
                "tags": ["procedure"],
                "created_at": payload["now"],
            }
            # The archival recent list: degraded archival search sees procedures as Neo4j does.
            await self.backlog.remember("archival", payload["learner_id"], [item])

    # ----- reads -----
    async def recall(self, learner_id: str, query: str, *, k: int = 3) -> SearchPage:
        """The ``k`` procedures that best fit ``query``, blending relevance with use; counts the use."""
        learner_id = validate_learner_id(learner_id)
        query = check_text(query, "query", 4096).strip()
        if not isinstance(k, int) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise InvalidInputError(f"k must be an integer from 1 to {MAX_K}, got {k!r}")
        recipe = procedure_recipe()
        try:
            if self.degraded:
                raise StoreUnavailableError("Neo4j", "marked down after a recent failure")
            return await self._recall_neo4j(learner_id, query, k, recipe)
        except StoreUnavailableError as exc:
            if self.backlog is None or not is_neo4j_down(exc):
                raise
            log.warning("procedure recall served from Redis (degraded): %s", exc)
            return await search_recent(
                self.backlog,
                "archival",
                learner_id,
                query,
                page=0,
                page_size=k,
                recipe=recipe.name,
                kinds=[KIND],
            )

    async def _recall_neo4j(self, learner_id: str, query: str, k: int, recipe: SearchRecipe) -> SearchPage:
        embedding = await self.embed_query(query)

        async def work(tx: neo4j.AsyncTransaction) -> tuple[list[SearchHit], list[dict[str, Any]]]:
            hits, _ = await self._search.retrieve(
                tx,
                learner_id=learner_id,
                query=query,
                embedding=embedding,
                recipe=recipe,
                page=0,
                page_size=max(CANDIDATES, k),
                kinds=[KIND],
            )
            ids = [h.id for h in hits]
            rows = await fetch(tx, PROCEDURE_FIELDS, ids=ids, learner_id=learner_id) if ids else []
            return hits, rows

        hits, rows = await self.read(work)
        now = self.clock()
        fields = {r["id"]: r for r in rows}
        top = max((h.score for h in hits), default=0.0) or 1.0
        ranked = []
        for hit in hits:
            row = fields.get(hit.id)
            if row is None or not _matches(hit):
                continue
            relevance = hit.score / top
            activation = decayed(row["activation"] or 0.0, row["last_access"], now)
            usage = int(row["usage_count"] or 0)
            ranked.append((blend_score(relevance, activation, usage, recipe), hit, row, relevance))
        ranked.sort(key=lambda item: -item[0])
        chosen = ranked[:k]
        counts = await self._record_use(learner_id, [row for _, _, row, _ in chosen], now)
        results = [
            SearchHit(
                id=hit.id,
                text=hit.text,
                score=score,
                created_at=row["created_at"],
                kind=KIND,
                tags=hit.tags,
                scores={**hit.scores, "relevance": relevance},
                metadata={
                    "label": "Procedure",
                    "name": row["name"],
                    "steps": list(row["steps"] or []),
                    "prerequisites": list(row["prerequisites"] or []),
                    "usage_count": counts.get(hit.id, int(row["usage_count"] or 0)),
                },
            )
            for score, hit, row, relevance in chosen
        ]
        return SearchPage(results, 0, k, recipe.name, degraded=False, has_more=len(ranked) > k)

    async def _record_use(self, learner_id: str, rows: list[dict[str, Any]], now: Any) -> dict[str, int]:
        """Count a use of each recalled procedure; returns the new usage counts."""
        if not rows:
            return {}
        uses = [
            {"id": r["id"], "activation": boosted(r["activation"] or 0.0, r["last_access"], now)}
            for r in rows
        ]
        stamp = now.isoformat()
        try:
            done = await self.write(
                lambda tx: fetch(tx, RECORD_PROCEDURE_USE, uses=uses, learner_id=learner_id, now=stamp)
            )
        except StoreUnavailableError as exc:  # the hits are still good; only the count is lost
            log.warning("could not record procedure use: %s", exc)
            return {}
        return {r["id"]: int(r["usage_count"]) for r in done}

    async def list(self, learner_id: str) -> list[ProcedureRecord]:
        """Every procedure of the learner, most used first."""
        learner_id = validate_learner_id(learner_id)
        rows = await self.read(lambda tx: fetch(tx, LIST_PROCEDURES, learner_id=learner_id))
        return [self._record(r) for r in rows]

    @staticmethod
    def _record(row: dict[str, Any]) -> ProcedureRecord:
        return ProcedureRecord(
            id=row["id"],
            name=row["name"],
            steps=list(row["steps"] or []),
            prerequisites=list(row["prerequisites"] or []),
            usage_count=int(row["usage_count"] or 0),
            created_at=row["created_at"] or "",
        )
