"""The consultation's own Neo4j reads and its read boost (Cypher in ``queries``).

In one query while the search runs (``layer``) it fetches the learner's insights, patterns
and facts, most active first, and the superseded facts with their episodes; which of them
match the query is decided in Python (``agent.kernel.consult.evidence``). After the search,
``sources`` reads the source message of each derived hit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from agent.graphdb.store import Neo4jStore, fetch
from agent.kernel.consult import queries as q
from agent.memory.activation import boosted
from agent.validation import validate_learner_id

CANDIDATES = 50
"""Insights and patterns read per consultation (the most active), before matching."""
CORE_CANDIDATES = 20
"""Current facts read as core-knowledge candidates (the most active)."""
STALE_CANDIDATES = 200
"""Superseded facts read per consultation (the most recently closed)."""


@dataclass(frozen=True)
class Layer:
    """The learner's reflective layer, core-knowledge candidates and superseded facts, as rows."""

    insights: list[dict[str, Any]] = field(default_factory=list)
    patterns: list[dict[str, Any]] = field(default_factory=list)
    core: list[dict[str, Any]] = field(default_factory=list)
    stale: list[dict[str, Any]] = field(default_factory=list)
    """Superseded facts (at most ``STALE_CANDIDATES``), each with the fact that superseded
    it and its episodes (``queries.LAYER``)."""


class ConsultReader(Neo4jStore):
    """Reads insights, patterns and core facts for a consultation, and boosts what it used."""

    async def layer(self, learner_id: str, topics: Sequence[str], *, reflective: bool = True) -> Layer:
        """Candidates of the learner (insights only when ``reflective``), in one query (``queries.LAYER``)."""
        learner_id = validate_learner_id(learner_id)
        params = {
            "learner_id": learner_id,
            "topics": list(topics),
            "reflective": reflective,
            "limit": CANDIDATES,
            "core_limit": CORE_CANDIDATES,
            "stale_limit": STALE_CANDIDATES,
        }
        [row] = await self.read(lambda tx: fetch(tx, q.LAYER, **params))
        return Layer(row["insights"], row["patterns"], row["core"], row["stale"])

    async def sources(self, learner_id: str, derived_ids: Sequence[str]) -> list[dict[str, Any]]:
        """The source message of each of ``derived_ids`` (turn contexts) that has one (``HIT_SOURCES``)."""
        learner_id = validate_learner_id(learner_id)
        ids = list(dict.fromkeys(derived_ids))
        if not ids:
            return []
        return await self.read(lambda tx: fetch(tx, q.HIT_SOURCES, learner_id=learner_id, ids=ids))

    async def boost(self, learner_id: str, rows: Sequence[dict[str, Any]]) -> int:
        """Read boost (``agent.memory.activation.boosted``) of the facts, insights and patterns in ``rows``.

        Each row needs ``id``, ``activation`` and ``last_access`` as read. Returns how many
        nodes were touched (nodes of other learners never are).
        """
        learner_id = validate_learner_id(learner_id)
        if not rows:
            return 0
        now = self.clock()
        updates = [
            {"id": r["id"], "activation": boosted(r.get("activation") or 0.0, r.get("last_access"), now)}
            for r in rows
        ]
        found = await self.write(
            lambda tx: fetch(tx, q.TOUCH, rows=updates, learner_id=learner_id, now=now.isoformat())
        )
        return int(found[0]["touched"]) if found else 0
