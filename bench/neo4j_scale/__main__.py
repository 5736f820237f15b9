"""Command line: ``python -m bench.neo4j_scale`` (see the package docstring)."""

from __future__ import annotations

import argparse
import asyncio
from collections.abc import Sequence

from agent.settings import Settings
from bench.neo4j_scale.data import PREFIX, Plan
from bench.neo4j_scale.measure import report, run


def main(argv: Sequence[str] | None = None) -> None:
    """Parse arguments, load, measure, print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--uri", help="Bolt URI of a Neo4j you may fill (default: KAG_NEO4J_URI)")
    ap.add_argument("--learners", type=int, default=1000)
    ap.add_argument("--big", type=int, default=100_000)
    ap.add_argument("--small", type=int, default=100)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--runs", type=int, default=3, help="0: load only")
    ap.add_argument("--budget", type=float, default=60.0, help="seconds per case and learner")
    ap.add_argument("--prefix", default=PREFIX, help="learner id prefix (separates data sets)")
    ap.add_argument("--search-where", action="store_true", help="Neo4j 2026.x: SEARCH ... WHERE")
    args = ap.parse_args(argv)
    settings = Settings.from_env(google_api_key=None).with_overrides(google_api_key=None)
    if args.uri:
        settings = settings.with_overrides(neo4j_uri=args.uri)
    plan = Plan(
        learners=args.learners,
        big=args.big,
        small=args.small,
        queries=args.queries,
        warmup=args.warmup,
        runs=args.runs,
        budget=args.budget,
        prefix=args.prefix,
        search_where=args.search_where,
    )
    result = asyncio.run(run(plan, settings))
    if not result["cases"]:
        print(f"loaded in {result['load_seconds']:.0f} s")
        return
    print(
        f"Neo4j {settings.neo4j_uri}: {plan.learners:,} learners, big learner {result['big_count']:,} "
        f"memories, others {plan.small}; load {result['load_seconds']:.0f} s; up to {plan.queries} "
        f"queries x {plan.runs} runs (medians of per-run p50/p95); small = 50 learners in rotation"
    )
    print(report(plan, result))


if __name__ == "__main__":
    main()
