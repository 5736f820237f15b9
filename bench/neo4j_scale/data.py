"""Data for the scale bench: learners, texts, random unit vectors, the bulk load and its cleanup."""

from __future__ import annotations

import hashlib
import sys
import time
from dataclasses import dataclass, field
from typing import Any

import neo4j
import numpy as np

from agent.graphdb.store import fetch
from agent.memory.archival import ArchivalStore
from agent.memory.records import memory_payload

DIMENSION = 384
VOCABULARY = 4000
PREFIX = "scale"
COUNT_MEMORIES = "MATCH (m:Memory {learner_id: $learner_id}) RETURN count(m) AS n"
DELETE_DATA_SET = """
MATCH (n:Memory) WHERE n.learner_id STARTS WITH $prefix DETACH DELETE n
WITH count(*) AS gone
MATCH (l:Learner) WHERE l.id STARTS WITH $prefix DETACH DELETE l
"""
MEMORY_KEYS = "MATCH (m:Memory {learner_id: $learner_id}) RETURN keys(m) AS k LIMIT 1"
# The UNWIND equivalent of the product's INSERT_MEMORIES for a fresh bulk load: same labels,
# properties (ArchivalStore._props + seq), HAS_MEMORY edge and learner seq; no per-row lock.
# The stored unit vector is drawn in Neo4j (uniform in the cube, normalised), so Python
# does not pack 384 floats a row; the load is Neo4j-bound (150-200 rows/s on this machine,
# about 3x the product's row-by-row INSERT_MEMORIES here).
BULK_INSERT = """
UNWIND $learners AS batch
MERGE (l:Learner {id: batch.learner_id})
  ON CREATE SET l.created_at = batch.created_at
SET l.last_memory_write = batch.created_at, l.memory_seq = batch.last_seq
WITH l, batch
UNWIND batch.rows AS row
MERGE (m:Memory {id: row.props.id})
  ON CREATE SET m += row.props, m.seq = row.seq
WITH l, m, [i IN range(1, $dimension) | rand() - 0.5] AS v
WITH l, m, v, sqrt(reduce(s = 0.0, x IN v | s + x * x)) AS norm
SET m.embedding = coalesce(m.embedding, [x IN v | x / norm])
MERGE (l)-[:HAS_MEMORY]->(m)
"""
# Neo4j 2026.x: the vector index carries learner_id, so the filter runs inside the index.
FILTERED_INDEX = (
    "CYPHER 25 CREATE VECTOR INDEX {name} IF NOT EXISTS FOR (n:Memory) ON n.embedding "
    "WITH [n.learner_id] OPTIONS {{indexConfig: {{`vector.dimensions`: {dimension}, "
    "`vector.similarity_function`: 'cosine'}}}}"
)


class RandomUnitEmbeddings:
    """Random unit vectors seeded by the text: same text, same vector; no model cost."""

    model_name = "random-unit"
    dimension = DIMENSION
    version = "1"

    def _one(self, text: str) -> list[float]:
        seed = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little")
        v = np.random.default_rng(seed).standard_normal(DIMENSION)
        return (v / np.linalg.norm(v)).tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """One vector per text."""
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        """The query's vector."""
        return self._one(text)


@dataclass
class Plan:
    """What to load and how to measure."""

    learners: int = 1000
    big: int = 100_000
    small: int = 100
    queries: int = 200
    warmup: int = 20
    runs: int = 1
    budget: float = 60.0
    """Seconds per case and learner: timing stops past it once 10 queries ran (exact scans are slow)."""
    batch: int = 1000
    prefix: str = PREFIX
    search_where: bool = False

    def learner(self, i: int) -> str:
        """Learner 0 is the big one."""
        return f"{self.prefix}-big" if i == 0 else f"{self.prefix}-{i:05d}"

    def size(self, i: int) -> int:
        """Memories of learner ``i``."""
        return self.big if i == 0 else self.small


@dataclass
class Words:
    """A Zipf-distributed vocabulary of pseudo-words (deterministic)."""

    seed: int = 7
    words: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        """Build the vocabulary."""
        rng = np.random.default_rng(self.seed)
        syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ze", "pa", "qui", "dor", "fen", "gal"]
        seen: set[str] = set()
        while len(self.words) < VOCABULARY:
            w = "".join(rng.choice(syllables, size=int(rng.integers(2, 5))))
            if w not in seen:
                seen.add(w)
                self.words.append(w)
        ranks = np.arange(1, VOCABULARY + 1)
        self.p = (1.0 / ranks) / (1.0 / ranks).sum()
        self.rng = rng

    def text(self, n: int) -> str:
        """``n`` words."""
        return " ".join(self.rng.choice(self.words, size=n, p=self.p))

    def query(self) -> str:
        """A 3-word query from the mid-frequency words (rare enough to score, common enough to hit)."""
        return " ".join(self.rng.choice(self.words[20:800], size=3))


async def count(store: ArchivalStore, query: str, **params: Any) -> int:
    """One count from the store's database."""

    async def work(tx: neo4j.AsyncTransaction) -> int:
        return int((await fetch(tx, query, **params))[0]["n"])

    return await store.read(work)


def draft(words: Words, learner: str, j: int) -> dict[str, Any]:
    """Memory ``j`` of ``learner``: 12 words (+ its number), a session per 50 memories."""
    return {"content": f"{words.text(12)} {j}", "memory_id": f"{learner}-m{j}", "session_id": f"s{j // 50}"}


def bulk_rows(
    store: ArchivalStore, learner: str, drafts: list[dict[str, Any]], first_seq: int
) -> dict[str, Any]:
    """One learner's share of a ``BULK_INSERT`` batch, with the product's stored properties."""
    created_at = store.now_iso()
    payloads = [memory_payload(learner, created_at, **d) for d in drafts]
    rows = []
    for n, p in enumerate(payloads):
        props = {**store._props(p, []), "source_ids": p["source_ids"]}
        del props["embedding"]  # drawn by BULK_INSERT
        rows.append({"seq": first_seq + n, "props": props})
    return {
        "learner_id": learner,
        "created_at": created_at,
        "last_seq": first_seq + len(rows) - 1,
        "rows": rows,
    }


async def load(store: ArchivalStore, plan: Plan) -> float:
    """Insert what ``plan`` asks for (skipping learners already complete); returns seconds.

    Learner 1 goes through the product's ``insert_many`` (one memory) so the bulk rows can be
    checked against it: the same property keys. The rest is ``BULK_INSERT`` in ``plan.batch`` rows.
    """
    words = Words()
    total = sum(plan.size(i) for i in range(plan.learners))
    started = last = time.monotonic()
    await store.insert_many(plan.learner(1), [draft(words, plan.learner(1), 0)])
    done, pending, batch = 0, 0, []

    async def flush() -> None:
        nonlocal pending, batch

        async def work(tx: neo4j.AsyncTransaction) -> None:
            await (await tx.run(BULK_INSERT, learners=batch, dimension=store.embeddings.dimension)).consume()

        if batch:
            await store.write(work)
        pending, batch = 0, []

    for i in range(plan.learners):
        learner, size = plan.learner(i), plan.size(i)
        have = await count(store, COUNT_MEMORIES, learner_id=learner)
        start = have if have < size else size
        done += start
        lo = start
        while lo < size:  # a batch may hold several learners' shares
            hi = min(size, lo + plan.batch - pending)
            batch.append(bulk_rows(store, learner, [draft(words, learner, j) for j in range(lo, hi)], lo + 1))
            pending += hi - lo
            done += hi - lo
            lo = hi
            if pending >= plan.batch:
                await flush()
            if time.monotonic() - last > 10:
                last = time.monotonic()
                rate = done / (last - started)
                print(f"  loaded {done:,}/{total:,} memories ({rate:,.0f}/s)", file=sys.stderr, flush=True)
    await flush()
    product = await store.read(lambda tx: fetch(tx, MEMORY_KEYS, learner_id=plan.learner(1)))
    bulk = await store.read(lambda tx: fetch(tx, MEMORY_KEYS, learner_id=plan.learner(0)))
    if sorted(product[0]["k"]) != sorted(bulk[0]["k"]):
        raise AssertionError(f"bulk rows differ from the product's: {product[0]['k']} vs {bulk[0]['k']}")
    return time.monotonic() - started


async def prepare_schema(store: ArchivalStore, *, search_where: bool) -> None:
    """The product schema; on 2026.x first the filtered vector index under the product's name."""
    if search_where:
        statement = FILTERED_INDEX.format(
            name=store.names.memory_vector, dimension=store.embeddings.dimension
        )
        async with store.driver.session(database=store.database) as session:
            await (await session.run(statement)).consume()
    await store.setup()


async def cleanup(store: ArchivalStore, prefix: str) -> None:
    """Delete the learners of ``prefix`` and their memories (the tests' tiny data sets)."""

    async def work(tx: neo4j.AsyncTransaction) -> None:
        await (await tx.run(DELETE_DATA_SET, prefix=f"{prefix}-")).consume()

    await store.write(work)
