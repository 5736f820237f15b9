"""The scale bench (``bench.neo4j_scale``) on a tiny data set in the configured Neo4j.

Four learners (one "big" with 120 memories, three with 15), the product's schema, write
and search path, MiniLM embeddings (the index the shared database already has). The data
set has its own learner prefix and is deleted afterwards. No timing is asserted: the
properties are isolation (no case returns another learner's memory), that every case
ran and found something, and that the load wrote what was asked.
"""

from __future__ import annotations

import uuid

import pytest

from agent.resources import Resources
from bench.neo4j_scale.data import Plan
from bench.neo4j_scale.measure import report, run

pytestmark = pytest.mark.integration

CASES = {
    "vector (index, product)",
    "vector (exact scan)",
    "full-text",
    "hybrid_rrf (default, product)",
    "hybrid_rrf (exact scan)",
}


LEFT_BEHIND = """
MATCH (n) WHERE (n:Memory AND n.learner_id STARTS WITH $p) OR (n:Learner AND n.id STARTS WITH $p)
RETURN count(n) AS n
"""


@pytest.fixture
def plan() -> Plan:
    """A data set of its own: 4 learners, 120 + 3 x 15 memories, 4 timed queries each."""
    return Plan(
        learners=4,
        big=120,
        small=15,
        queries=4,
        warmup=1,
        runs=1,
        batch=50,
        prefix=f"scale-t{uuid.uuid4().hex[:8]}",
    )


async def test_tiny_scale_run_is_learner_scoped(plan: Plan, resources: Resources) -> None:
    """Every case runs for both learner sizes, finds hits and never crosses learners; nothing is left."""
    result = await run(plan, resources.settings, resources.embeddings, drop=True)

    assert result["big_count"] == plan.big
    assert {name for name, _ in result["cases"]} == CASES
    for (name, who), row in result["cases"].items():
        assert row["foreign"] == 0, f"{name} for the {who} learner returned another learner's memory"
        assert row["n"] == plan.queries, (name, who)
        assert row["hits"] > 0, f"{name} for the {who} learner found nothing"
        assert 0 < row["p50"] <= row["p95"], (name, who, row)
    table = report(plan, result)
    assert all(name in table for name in CASES)
    async with resources.neo4j.session(database=resources.settings.neo4j_database) as session:
        left = await (await session.run(LEFT_BEHIND, p=f"{plan.prefix}-")).data()
    assert left[0]["n"] == 0
