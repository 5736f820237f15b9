"""Zettelkasten budgets: ingestion p95 < 1.5 s, retrieval at depth 2 < 300 ms.

Ingests N synthetic sessions for a throw-away learner with the offline
extractor + MiniLM + the real Neo4j/Redis, then times depth-2 link expansion.
Baselines run in the same process: ingestion without linking/evolution, and
plain vector search without expansion. Not a test; prints figures only.

    .venv/bin/python -m bench.zettelkasten [--sessions 40] [--queries 100]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import time
import uuid

from tqdm import tqdm

from agent.notes.artifacts import delete_stream
from agent.notes.linking import expand_note_links
from agent.notes.metrics import note_metrics
from agent.notes.pipeline import PipelineConfig, ingest_session
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.settings import Settings

TOPICS = [
    ("sql.joins", "left join", "keeps every row of the left table"),
    ("sql.joins", "inner join", "returns only rows that match in both tables"),
    ("sql.null", "null value", "marks a missing value in a column"),
    ("sql.groupby", "group by", "collapses rows that share a key into one row"),
    ("sql.index", "btree index", "speeds up lookups on a column"),
    ("python.lists", "list comprehension", "builds a list from an iterable in one line"),
    ("python.dicts", "dictionary lookup", "finds a value by its key in constant time"),
    ("statistics.mean", "sample mean", "averages the observed values"),
    ("statistics.variance", "sample variance", "measures how spread out the values are"),
    ("algorithms.sorting", "merge sort", "splits a list in halves and merges them sorted"),
]


def session(i: int) -> tuple[str, list[dict[str, str]]]:
    concept, phrase, definition = TOPICS[i % len(TOPICS)]
    other = TOPICS[(i * 7 + 3) % len(TOPICS)][1]
    turns = [
        {"role": "user", "content": f"Session {i}: I am confused about the {phrase} and {other}."},
        {"role": "assistant", "content": f"A {phrase} {definition}. The {other} is different."},
        {"role": "user", "content": f"So the {phrase} in my project {i} {definition}? I get it."},
        {"role": "assistant", "content": f"Correct, the {phrase} {definition}; {other} too."},
    ]
    return concept, turns


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def show(name: str, values: list[float], baseline: list[float] | None, budget: float) -> None:
    p50, p95 = statistics.median(values), pct(values, 0.95)
    line = f"{name:<34} n={len(values):<4} p50={p50 * 1000:8.1f} ms  p95={p95 * 1000:8.1f} ms"
    if baseline:
        line += f"  ×{p95 / pct(baseline, 0.95):.2f} vs baseline p95"
    line += f"  budget {budget * 1000:.0f} ms: {'OK' if p95 < budget else 'OVER'}"
    print(line)


async def ingest_all(res: Resources, learner: str, n: int, config: PipelineConfig) -> list[float]:
    times = []
    for i in tqdm(range(n), desc=f"ingest link={config.link}", unit="session"):
        concept, turns = session(i)
        start = time.perf_counter()
        out = await ingest_session(res, learner, turns, concept, f"bench-{i}", config)
        times.append(time.perf_counter() - start)
        if out["failures"]:
            raise SystemExit(f"ingest failed: {out['failures']}")
    return times


async def main(sessions: int, queries: int) -> None:
    res = Resources(Settings.from_env(google_api_key=None).with_overrides(google_api_key=None))
    learner, baseline_learner = f"bench-{uuid.uuid4()}", f"bench-{uuid.uuid4()}"
    store = NoteStore.for_resources(res)
    try:
        await asyncio.to_thread(res.embeddings.embed_query, "warm up")  # load MiniLM
        await ingest_session(res, baseline_learner, session(0)[1], "warmup", "w")  # schema
        await store.delete_learner(baseline_learner)
        base = await ingest_all(res, baseline_learner, sessions, PipelineConfig(link=False, evolve=False))
        full = await ingest_all(res, learner, sessions, PipelineConfig())
        metrics = await note_metrics(store, learner)
        rows, _, _ = await res.neo4j.execute_query(
            "MATCH (n:Note {learner_id: $l}) RETURN n.id AS id", {"l": learner}, database_=res.database
        )
        ids = [r["id"] for r in rows]
        rng = random.Random(7)
        search_t, expand_t = [], []
        for _ in tqdm(range(queries), desc="retrieve", unit="query"):
            query = rng.choice(TOPICS)[1]
            vector = await asyncio.to_thread(res.embeddings.embed_query, query)
            start = time.perf_counter()
            hits = await store.candidate_notes(learner, vector, k=5, exclude=[])
            search_t.append(time.perf_counter() - start)
            seeds = [h["note"]["id"] for h in hits] or rng.sample(ids, 1)
            start = time.perf_counter()
            await expand_note_links(store, learner, seeds, depth=2)
            expand_t.append(time.perf_counter() - start)
        print()
        show("ingest, no linking (baseline)", base, None, 1.5)
        show("ingest, link + evolve + publish", full, base, 1.5)
        show("vector search k=5 (baseline)", search_t, None, 0.3)
        show("expand_note_links depth 2", expand_t, search_t, 0.3)
        both = [a + b for a, b in zip(search_t, expand_t, strict=True)]
        show("search + depth-2 expansion", both, search_t, 0.3)
        print(
            f"notes={metrics['note_count']} link_density={metrics['link_density']} "
            f"orphans={metrics['orphan_count']} max_degree={metrics['max_degree']} "
            f"atomicity_share={metrics['atomicity_share']}"
        )
    finally:
        for who in (learner, baseline_learner):
            await store.delete_learner(who)
            await res.neo4j.execute_query(
                "MATCH (l:Learner {id: $l}) WHERE NOT (l)--() DELETE l", {"l": who}, database_=res.database
            )
            await delete_stream(res.redis, who)
        await res.aclose()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=40)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    asyncio.run(main(args.sessions, args.queries))
