"""Timing archival search per case (product path, exact scan, SEARCH ... WHERE) and the report."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import neo4j
import numpy as np

from agent.graphdb.store import fetch
from agent.memory.archival import ArchivalStore
from agent.models.embeddings import EmbeddingProvider
from agent.resources import Resources
from agent.search.hybrid import HybridSearch, hit_sessions, score_pairs
from agent.search.targets import memory_target
from agent.settings import Settings
from bench.markdown_table import markdown_table
from bench.neo4j_scale.data import (
    COUNT_MEMORIES,
    Plan,
    RandomUnitEmbeddings,
    Words,
    cleanup,
    count,
    load,
    prepare_schema,
)

SEARCH_WHERE = """CYPHER 25
MATCH (node:Memory)
  SEARCH node IN (VECTOR INDEX {index} FOR $embedding WHERE node.learner_id = $learner_id LIMIT $k)
  SCORE AS score
WITH node, score WHERE $kinds IS NULL OR node.kind IN $kinds
RETURN node.id AS id, score, node.session_id AS session ORDER BY score DESC LIMIT $limit
"""


class SearchWhereHybrid(HybridSearch):
    """The product's hybrid search with its vector retriever on ``SEARCH ... WHERE`` (2026.x)."""

    async def _first_stage(
        self,
        tx: neo4j.AsyncTransaction,
        params: dict[str, Any],
        *,
        vector: bool,
        lucene: str | None,
        question: str | None,
    ) -> tuple[dict[str, list[tuple[str, float]]], dict[str, str]]:
        """The product's full-text lists; the vector list from inside the index (no probe or scan)."""
        lists, session_of = await super()._first_stage(
            tx, params, vector=False, lucene=lucene, question=question
        )
        if vector:
            k = params["limit"] * (params["oversample"] if params["kinds"] is not None else 1)
            index = self.target.vector_index
            rows = await fetch(tx, SEARCH_WHERE.format(index=index), k=k, **params)
            lists["vector"] = score_pairs(rows)
            session_of |= hit_sessions(rows)
        return lists, session_of


def pct(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile (0-1), linear interpolation."""
    return float(np.quantile(np.asarray(values), q))


@dataclass
class Case:
    """One measured row: a recipe on a search path."""

    name: str
    recipe: str
    store: ArchivalStore


async def time_case(
    case: Case, learners: Sequence[str], queries: Sequence[str], warmup: int, budget: float
) -> dict[str, Any]:
    """Latencies (ms) of ``case`` cycling over ``learners``; counts foreign hits (must be 0)."""
    foreign = hits = 0
    for q in queries[:warmup]:
        await case.store.search(learners[0], q, recipe=case.recipe, page_size=10)
    times: list[float] = []
    deadline = time.monotonic() + budget
    for n, q in enumerate(queries[warmup:]):
        if n >= 10 and time.monotonic() > deadline:
            break
        learner = learners[n % len(learners)]
        t0 = time.perf_counter()
        page = await case.store.search(learner, q, recipe=case.recipe, page_size=10)
        times.append((time.perf_counter() - t0) * 1000)
        hits += len(page.results)
        foreign += sum(1 for h in page.results if not h.id.startswith(f"{learner}-m"))
    return {
        "p50": pct(times, 0.5),
        "p95": pct(times, 0.95),
        "hits": hits,
        "foreign": foreign,
        "n": len(times),
    }


def cases(resources: Resources, database: str, *, search_where: bool) -> list[Case]:
    """The product's store, the same store forced onto the exact scan, and SEARCH ... WHERE."""
    embeddings = resources.embeddings
    plain = ArchivalStore(resources.neo4j, embeddings, database=database)
    exact = ArchivalStore(resources.neo4j, embeddings, database=database)
    # No vector index name: the product's retriever goes straight to its exact per-learner scan.
    exact._search = HybridSearch(replace(memory_target(exact.names), vector_index=""))
    out = [
        Case("vector (index, product)", "vector_only", plain),
        Case("vector (exact scan)", "vector_only", exact),
        Case("full-text", "fulltext_only", plain),
        Case("hybrid_rrf (default, product)", "hybrid_rrf", plain),
        Case("hybrid_rrf (exact scan)", "hybrid_rrf", exact),
    ]
    if search_where:
        where = ArchivalStore(resources.neo4j, embeddings, database=database)
        where._search = SearchWhereHybrid(memory_target(where.names))
        out.insert(2, Case("vector (SEARCH … WHERE)", "vector_only", where))
        out.append(Case("hybrid_rrf (SEARCH … WHERE)", "hybrid_rrf", where))
    return out


async def run(
    plan: Plan, settings: Settings, embeddings: EmbeddingProvider | None = None, *, drop: bool = False
) -> dict[str, Any]:
    """Load (if needed) and measure; returns the per-case medians over ``plan.runs`` runs.

    ``embeddings`` defaults to ``RandomUnitEmbeddings``; ``drop`` deletes the data set afterwards.
    """
    resources = Resources(settings, embeddings=embeddings or RandomUnitEmbeddings())
    try:
        all_cases = cases(resources, settings.neo4j_database, search_where=plan.search_where)
        store = all_cases[0].store
        await prepare_schema(store, search_where=plan.search_where)
        load_seconds = await load(store, plan)
        if plan.runs == 0:  # load only
            return {"load_seconds": load_seconds, "big_count": 0, "cases": {}}
        big_count = await count(store, COUNT_MEMORIES, learner_id=plan.learner(0))
        words = Words(seed=11)
        queries = [words.query() for _ in range(plan.warmup + plan.queries)]
        smalls = [plan.learner(i) for i in range(1, min(plan.learners, 51))]
        per_run: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r in range(plan.runs):
            for case in all_cases:
                for who, learners in (("big", [plan.learner(0)]), ("small", smalls)):
                    res = await time_case(case, learners, queries, plan.warmup, plan.budget)
                    per_run.setdefault((case.name, who), []).append(res)
            print(f"  run {r + 1}/{plan.runs} done", file=sys.stderr, flush=True)
        summary = {
            key: {
                "p50": statistics.median(x["p50"] for x in runs),
                "p95": statistics.median(x["p95"] for x in runs),
                "foreign": sum(x["foreign"] for x in runs),
                "hits": sum(x["hits"] for x in runs),
                "n": sum(x["n"] for x in runs),
            }
            for key, runs in per_run.items()
        }
        return {"load_seconds": load_seconds, "big_count": big_count, "cases": summary}
    finally:
        if drop:
            await cleanup(ArchivalStore(resources.neo4j, resources.embeddings), plan.prefix)
        await resources.aclose()


def report(plan: Plan, result: dict[str, Any]) -> str:
    """The markdown table: p50/p95 (ms) for the big and a small learner, and big/small ratios."""
    names = list(dict.fromkeys(name for name, _ in result["cases"]))
    rows = []
    for name in names:
        big, small = result["cases"][(name, "big")], result["cases"][(name, "small")]
        rows.append(
            [
                name,
                f"{big['p50']:.1f}",
                f"{big['p95']:.1f}",
                f"{small['p50']:.1f}",
                f"{small['p95']:.1f}",
                f"{big['p95'] / small['p95']:.1f}x",
                "yes" if big["p95"] <= 50 else "no",
                str(big["foreign"] + small["foreign"]),
                f"{big['n']}/{small['n']}",
            ]
        )
    header = [
        "case",
        f"{plan.big:,} p50 ms",
        f"{plan.big:,} p95 ms",
        f"{plan.small} p50 ms",
        f"{plan.small} p95 ms",
        "p95 ratio",
        "p95 ≤ 50 ms",
        "foreign hits",
        "queries big/small",
    ]
    return markdown_table(header, rows, numeric_from=1)
