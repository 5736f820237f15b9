"""System-level learning: what is hard across learners, as counts and never as content.

Reflection leaves per-learner ``Pattern`` and ``Insight`` nodes
(``agent.kernel.reflection``); this module aggregates them across learners:

- **bottlenecks**: concept -> how many learners showed a struggle or error on it and have
  not resolved it since (``learners``), and how many of them have an active per-learner
  ``bottleneck`` pattern (``persistent``). One statement counts a learner: "many learners
  find X hard" is a property of the population, and requiring each learner to repeat it
  made the count depend on how talkative learners are. Callers compare ``learners`` with
  how many learners they look at (a rate);
- **recurring errors**: error kind -> learners, patterns and occurrences of
  ``recurring_error`` patterns of that kind;
- **struggles**: concept -> how many learners showed a struggle or error on it at least
  once, and how many such items there are;
- **totals**: how many learners have patterns/insights and how many there are.

What crosses the learner boundary: concept keys (normalised, ``rules.concept_key``),
error kinds and counts. What never does: insight texts, pattern descriptions, evidence,
messages, facts, notes or learner ids: the Cypher returns aggregates only
(``count(DISTINCT learner_id)``), so the ids never leave Neo4j. A concept or error kind
is reported only when at least ``min_learners`` (default 2) different learners share
it (k-anonymity): a phrase only one learner used, which could be something private
they typed, never appears. ``tests/integration/kernel/test_system_learning.py`` plants
a secret in one learner's memory and proves it does not cross.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import neo4j

from agent.errors import InvalidInputError
from agent.graphdb.store import fetch
from agent.kernel.reflection import queries as q
from agent.kernel.reflection.store import ReflectionStore
from agent.resources import Resources

DEFAULT_MIN_LEARNERS = 2
"""A concept or error kind must be shared by this many learners before it is reported."""
MAX_TOP = 100


@dataclass(frozen=True)
class SystemLearning:
    """Aggregates across learners: counts keyed by concept or error kind, nothing else."""

    min_learners: int
    bottlenecks: list[dict[str, Any]] = field(default_factory=list)
    """``{concept, learners, persistent}``, most learners first."""
    recurring_errors: list[dict[str, Any]] = field(default_factory=list)
    """``{error_kind, learners, patterns, occurrences}``, most learners first."""
    struggles: list[dict[str, Any]] = field(default_factory=list)
    """``{concept, learners, signals}``, most learners first."""
    totals: dict[str, int] = field(default_factory=dict)
    """``{with_patterns, patterns, with_insights, insights}``."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return asdict(self)


def _check(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInputError(f"{name} must be an integer from {low} to {high}, got {value!r}")
    return value


async def system_learning(
    resources: Resources, *, min_learners: int = DEFAULT_MIN_LEARNERS, top: int = 20
) -> SystemLearning:
    """Bottleneck concepts, recurring error kinds and struggles across learners (counts only)."""
    min_learners = _check("min_learners", min_learners, 2, 1_000_000)
    top = _check("top", top, 1, MAX_TOP)
    store = ReflectionStore.for_resources(resources)
    params = {"min_learners": min_learners, "top": top}

    async def work(tx: neo4j.AsyncTransaction) -> tuple[list[dict[str, Any]], ...]:
        return (
            await fetch(tx, q.SYSTEM_BOTTLENECKS, **params),
            await fetch(tx, q.SYSTEM_ERRORS, **params),
            await fetch(tx, q.SYSTEM_STRUGGLES, **params),
            await fetch(tx, q.SYSTEM_TOTALS),
        )

    bottlenecks, errors, struggles, totals = await store.read(work)
    return SystemLearning(
        min_learners=min_learners,
        bottlenecks=[
            {"concept": str(r["concept"]), "learners": int(r["learners"]), "persistent": int(r["persistent"])}
            for r in bottlenecks
        ],
        recurring_errors=[
            {
                "error_kind": str(r["error_kind"]),
                "learners": int(r["learners"]),
                "patterns": int(r["patterns"]),
                "occurrences": int(r["occurrences"]),
            }
            for r in errors
        ],
        struggles=[
            {"concept": str(r["concept"]), "learners": int(r["learners"]), "signals": int(r["signals"] or 0)}
            for r in struggles
        ],
        totals={k: int(v or 0) for k, v in (totals[0] if totals else {}).items()},
    )
