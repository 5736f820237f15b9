"""Neo4j access of reflection: ``ReflectionStore``, the one path the five steps read and write by.

Graph it owns: ``:Memory:Insight`` and ``:Memory:Pattern`` nodes under the learner, each
``-[:EVIDENCED_BY {linked_at, counted}]->`` the learner's ``Message``, ``Fact`` or ``Note``
items. The ``Memory`` label puts them under the unique id constraint, the ``learner_id``
index and erasure's ``DELETE_MEMORIES``. As for every memory (``agent.memory.activation``),
``activation`` is the value at ``last_access``; ``decayed_at`` records when reflection last
rolled it forward.
Every query is scoped by ``learner_id``; evidence links only ever join one learner's
nodes. Schema: reflection's indexes, ``IF NOT EXISTS``, once per driver (key ``reflection``).
"""

from __future__ import annotations

import weakref
from typing import Any

import neo4j

from agent.graphdb.schema import ensure_schema, learner_key
from agent.graphdb.store import Neo4jStore, fetch
from agent.kernel.reflection import queries as q
from agent.memory import cognitive_queries as fact_q
from agent.resources import Resources

REFLECTION_SCHEMA_KEY = "reflection"
LABELS = ("Insight", "Pattern")
_BY_RESOURCES: weakref.WeakKeyDictionary[Resources, ReflectionStore] = weakref.WeakKeyDictionary()


class ReflectionStore(Neo4jStore):
    """Reads and writes of the reflection steps, per learner."""

    @classmethod
    def for_resources(cls, resources: Resources) -> ReflectionStore:
        """The bundle's reflection store (built once per bundle, on its clock)."""
        store = _BY_RESOURCES.get(resources)
        if store is None:
            store = _BY_RESOURCES[resources] = super().for_resources(resources)
        return store

    async def _setup_schema_once(self, _: object = None) -> None:
        await super()._setup_schema_once()

        async def setup() -> None:
            async with self.driver.session(database=self.database) as session:
                for statement in q.REFLECTION_SCHEMA:
                    await (await session.run(statement)).consume()

        await ensure_schema(self.driver, self.database, setup, key=REFLECTION_SCHEMA_KEY)

    async def _rows(self, query: str, **params: Any) -> list[dict[str, Any]]:
        return await self.read(lambda tx: fetch(tx, query, **params))

    async def _write_rows(self, query: str, **params: Any) -> list[dict[str, Any]]:
        return await self.write(lambda tx: fetch(tx, query, **params))

    # ----- sources -----
    async def unreflected(self, learner_id: str, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` items not scanned yet: ``{id, source, text, concept, at, session_id}``."""
        return await self._rows(q.UNREFLECTED, learner_id=learner_id, limit=limit, unreflected=True)

    async def signal_items(self, learner_id: str, cap: int) -> list[dict[str, Any]]:
        """The newest ``cap`` scanned items with signals: ``{id, source, at, session_id, signals}``."""
        return await self._rows(q.SIGNAL_ITEMS, learner_id=learner_id, cap=cap, unreflected=False)

    async def known_concepts(self, learner_id: str) -> list[str]:
        """Concept names of the learner's notes, facts and insights."""
        return [r["concept"] for r in await self._rows(q.KNOWN_CONCEPTS, learner_id=learner_id)]

    async def mark(self, learner_id: str, rows: list[dict[str, Any]]) -> int:
        """Stamp ``rows`` (``{id, source, signals, struggles}``) scanned; returns how many were stamped."""
        if not rows:
            return 0
        found = await self._write_rows(q.MARK_REFLECTED, learner_id=learner_id, rows=rows, now=self.now_iso())
        return int(found[0]["marked"]) if found else 0

    async def study_hours(self, learner_id: str) -> dict[int, int]:
        """Messages the learner sent per UTC hour."""
        return {r["hour"]: r["messages"] for r in await self._rows(q.STUDY_HOURS, learner_id=learner_id)}

    async def study_evidence(self, learner_id: str, hours: list[int], cap: int) -> list[dict[str, Any]]:
        """The newest ``cap`` messages sent in ``hours`` (UTC): ``{id, at}``."""
        return await self._rows(q.STUDY_EVIDENCE, learner_id=learner_id, hours=hours, cap=cap)

    # ----- insights and patterns -----
    async def existing(self, learner_id: str, label: str) -> dict[str, dict[str, Any]]:
        """The learner's ``label`` nodes by id: ``{props, evidence}``."""
        if label not in LABELS:
            raise ValueError(f"unknown reflection label {label!r}")
        rows = await self._rows(q.EXISTING, learner_id=learner_id, label=label)
        return {r["id"]: {"props": r["props"], "evidence": set(r["evidence"])} for r in rows}

    async def upsert(self, learner_id: str, label: str, nodes: list[dict[str, Any]]) -> list[str]:
        """Create or update ``nodes`` (``{id, props, evidence: [{id, source}]}``); their ids."""
        if label not in LABELS:
            raise ValueError(f"unknown reflection label {label!r}")
        if not nodes:
            return []
        rows = await self._write_rows(
            q.UPSERT,
            learner_id=learner_id,
            learner_key=learner_key(learner_id),
            label=label,
            nodes=nodes,
            now=self.now_iso(),
        )
        return [r["id"] for r in rows]

    # ----- prioritisation and decay -----
    async def due_priority(self, learner_id: str, limit: int) -> list[dict[str, Any]]:
        """Insights/patterns with uncounted evidence: ``{id, activation, last_access, fresh: [{id, at}]}``."""
        return await self._rows(q.DUE_PRIORITY, learner_id=learner_id, limit=limit)

    async def set_priority(self, learner_id: str, rows: list[dict[str, Any]], now: str) -> None:
        """Store ``{id, activation, evidence: [ids counted]}`` rows as of ``now``."""
        if rows:
            await self._write_rows(q.SET_PRIORITY, learner_id=learner_id, rows=rows, now=now)

    async def due_decay(self, learner_id: str, cutoff: str, limit: int) -> list[dict[str, Any]]:
        """Insights/patterns whose activation was stored at or before ``cutoff``."""
        return await self._rows(q.DUE_DECAY, learner_id=learner_id, cutoff=cutoff, limit=limit)

    async def set_decay(self, learner_id: str, rows: list[dict[str, Any]]) -> list[str]:
        """Store ``{id, activation, until, was}`` rows; ids actually changed."""
        if not rows:
            return []
        return [r["id"] for r in await self._write_rows(q.SET_DECAY, learner_id=learner_id, rows=rows)]

    # ----- curation -----
    async def duplicate_slots(self, learner_id: str, limit: int) -> list[dict[str, Any]]:
        """Slots with more than one current fact: ``{subject, predicate, facts: [{id, valid_from}]}``."""
        return await self._rows(q.DUPLICATE_SLOTS, learner_id=learner_id, limit=limit)

    async def open_slot_facts(self, learner_id: str, cap: int) -> list[dict[str, Any]]:
        """Current facts in slots of their own, newest first."""
        return await self._rows(q.OPEN_SLOT_FACTS, learner_id=learner_id, cap=cap)

    async def retire(self, learner_id: str, winner: dict[str, Any], old_ids: list[str]) -> list[str]:
        """Supersede ``old_ids`` by ``winner`` through the fact store's own Cypher; ids retired.

        Under the fact writes' learner lock, exactly as ``FactStore.remember`` retires a slot.
        """
        if not old_ids:
            return []
        now = self.now_iso()

        async def work(tx: neo4j.AsyncTransaction) -> list[str]:
            await fetch(tx, fact_q.FACT_LOCK, learner_id=learner_id, now=now)
            rows = await fetch(
                tx,
                fact_q.FACT_RETIRE,
                learner_id=learner_id,
                id=winner["id"],
                old_ids=old_ids,
                valid_from=winner["valid_from"],
                recorded_at=now,
            )
            return [r["id"] for r in rows]

        return await self.write(work)

    # ----- learners -----
    async def learners_due(self, cutoff: str, max_learners: int) -> list[str]:
        """Learners with unscanned items or insights/patterns due to decay."""
        rows = await self._rows(q.LEARNERS_DUE, cutoff=cutoff, max=max_learners)
        return [r["learner_id"] for r in rows]
