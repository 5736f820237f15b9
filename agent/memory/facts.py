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
- **New values outside the slots** (``fact_changes.changed_fact``): a difference ("postponed
  by a week") resolved against the closest current fact, or a statement the language layer is
  near-certain about (``agent.language.same_thing``), takes that fact's slot and retires it.
- **Idempotent**: re-stating a slot's current fact changes nothing; ids hash (learner, slot,
  text, valid_from), so replays MERGE onto the same node.
- **Search** (the read path, ``agent.memory.fact_reads``): current facts, ``as_of`` or
  ``include_history``; vector + full text (+ the asked slots) fused with RRF and blended with
  activation. Two current facts about the same thing rank newest first, the older marked
  ``was_until`` (``fact_order.newest_first``).
- **Degraded mode**: writes are parked (op ``fact.remember``) and replayed; searches answer
  from the facts cached in Redis (``agent.memory.fact_cache``), ``degraded=True``.
"""

from __future__ import annotations

import asyncio
from datetime import datetime
from typing import Any

import neo4j

from agent.errors import InvalidInputError
from agent.graphdb.schema import ensure_schema, learner_key
from agent.graphdb.store import fetch
from agent.memory import cognitive_queries as q
from agent.memory.activation import READ_BOOST
from agent.memory.fact_changes import changed_fact
from agent.memory.fact_reads import FactReads
from agent.memory.fact_records import FactRecord, fact_payload, names_value, parked_record, utc_iso
from agent.models.embeddings import MINILM_NAME
from agent.validation import validate_learner_id

__all__ = ["OP_REMEMBER", "FactRecord", "FactStore"]

OP_REMEMBER = "fact.remember"
FACT_SCHEMA_KEY = "facts"
SIMILAR_THRESHOLD = 0.80
SIMILAR_TOP = 3
CLOSEST_TOP = 3  # current facts a statement outside the slots is compared with (best, margin)


class FactStore(FactReads):
    """Bi-temporal facts per learner (semantic memory): the writes over ``FactReads``."""

    backlog_ops = frozenset({OP_REMEMBER})

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
