"""Consultation latency, excluding the model, at ``memories`` stored memories (default 10,000).

One learner is seeded with ``memories`` archival memories through the product's batch
insert (``stores.archival.insert_many``, ``SEED_BATCH`` per call: one embedding call and one
``UNWIND`` write each), plus a few facts and learner messages so every source of the
consultation's blended search has data. The text is generated from topics × templates,
so memories are distinct and share vocabulary, as a learner's memory does.

Then ``agent.kernel.consult.consult`` runs with the offline settings (the template brief:
no chat model call, so the figure excludes the model by construction; the query embedding
is part of the search and is counted):

- **miss**: ``queries`` distinct queries, each consulted once (the cache has nothing for
  them; ``cached`` must be false);
- **hit**: the same queries again (``cached`` must be true: the learner wrote nothing).

The first ``WARMUP`` consultations (schema checks, pool warm-up) are left out. Targets
(issue 14): p95 ≤ 150 ms on a miss, ≤ 5 ms on a hit; printed with PASS/MISS.
"""

from __future__ import annotations

import dataclasses
import os
import time
import uuid
from dataclasses import dataclass, field
from typing import Any

from tqdm import tqdm

from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import MINILM, OFFLINE_MODEL, Settings
from bench.kernel.cleanup import erase
from bench.kernel.drained import drain_all
from bench.kernel.timing import ms, percentile, show_progress, verdict

MISS_TARGET_MS = 150.0
HIT_TARGET_MS = 5.0
SEED_BATCH = 500
WARMUP = 3
TOPICS = (
    "SQL joins", "recursion", "closures", "binary search", "decorators", "list slicing", "big O notation",
    "regular expressions", "normalisation", "binary trees", "hash maps", "generators", "pandas merge",
    "git rebase", "unit tests", "async await", "linked lists", "dynamic programming", "graph search",
    "sorting",
)  # fmt: skip
TEMPLATES = (
    "Worked example {n} on {t}: the learner solved it after one hint.",
    "Session note {n}: {t} came up while reviewing homework; the learner asked about edge cases.",
    "Quiz {n} on {t}: score {s} out of 10, mistakes on the last question.",
    "The learner explained {t} back in their own words (attempt {n}), mostly right.",
    "Exercise {n}: applying {t} to a small dataset of {s} rows took two tries.",
)
QUERIES = (
    "What does the learner know about {t}?",
    "How did the last exercise on {t} go?",
    "Which mistakes does the learner make with {t}?",
)


def memory_text(n: int) -> str:
    """The ``n``-th seeded memory (deterministic, distinct)."""
    topic = TOPICS[n % len(TOPICS)]
    return TEMPLATES[(n // len(TOPICS)) % len(TEMPLATES)].format(n=n, t=topic, s=n % 10 + 1)


def query_text(n: int) -> str:
    """The ``n``-th consultation query (distinct for ``n < len(TOPICS) * len(QUERIES) * k``)."""
    topic = TOPICS[n % len(TOPICS)]
    base = QUERIES[(n // len(TOPICS)) % len(QUERIES)].format(t=topic)
    round_ = n // (len(TOPICS) * len(QUERIES))
    return base if round_ == 0 else f"{base} (variant {round_})"


@dataclass
class ConsultResult:
    """What one run measured."""

    memories: int
    seed_seconds: float = 0.0
    misses: list[float] = field(default_factory=list)
    hits: list[float] = field(default_factory=list)
    miss_cached: int = 0
    """Misses that came back ``cached`` (must be 0)."""
    hit_uncached: int = 0
    """Hits that did not come back ``cached`` (must be 0)."""
    facts_per_miss: list[int] = field(default_factory=list)
    same_payload: bool = True
    """Every hit returned the brief its miss returned."""
    learner: str = ""
    """The run's learner id (erased at the end)."""
    load: tuple[float, ...] = ()
    """The machine's 1, 5 and 15 minute load averages after the timed consultations (latency
    is wall time: other processes on the machine inflate it)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (what the notebook reads)."""
        return {
            "memories": self.memories,
            "seed_seconds": self.seed_seconds,
            "miss_ms": [round(s * 1e3, 3) for s in self.misses],
            "hit_ms": [round(s * 1e3, 3) for s in self.hits],
            "miss_p95_ms": percentile(self.misses, 0.95) * 1e3,
            "hit_p95_ms": percentile(self.hits, 0.95) * 1e3,
            "miss_target_ms": MISS_TARGET_MS,
            "hit_target_ms": HIT_TARGET_MS,
            "miss_cached": self.miss_cached,
            "hit_uncached": self.hit_uncached,
            "same_payload": self.same_payload,
            "load": list(self.load),
            "lines": self.lines(),
        }

    def lines(self) -> list[str]:
        """The printed report."""
        miss95 = percentile(self.misses, 0.95) * 1e3
        hit95 = percentile(self.hits, 0.95) * 1e3
        facts = sum(self.facts_per_miss) / max(1, len(self.facts_per_miss))
        return [
            f"Consultation latency excluding the model (template brief), one learner with {self.memories} "
            f"memories (seeded in {self.seed_seconds:.1f} s)",
            f"miss  n={len(self.misses):<4} {ms(self.misses)}  target p95 <= {MISS_TARGET_MS:.0f} ms: "
            f"{verdict(miss95 <= MISS_TARGET_MS)}  ({self.miss_cached} came back cached; "
            f"{facts:.1f} relevant facts per answer)",
            f"hit   n={len(self.hits):<4} {ms(self.hits)}  target p95 <= {HIT_TARGET_MS:.0f} ms: "
            f"{verdict(hit95 <= HIT_TARGET_MS)}  ({self.hit_uncached} not cached; same brief as the miss: "
            f"{'yes' if self.same_payload else 'NO'})",
            f"load average {' '.join(f'{x:.2f}' for x in self.load)} (1, 5, 15 min) after timing",
        ]


async def seed(stores: MemoryStores, learner: str, memories: int, *, progress: bool | None = None) -> None:
    """``memories`` archival memories, 3 learner messages and 3 facts for ``learner``."""
    bar = tqdm(total=memories, desc="seed memories", unit="memory", disable=not show_progress(progress))
    for start in range(0, memories, SEED_BATCH):
        drafts = [
            {"content": memory_text(n), "tags": ["bench"]}
            for n in range(start, min(memories, start + SEED_BATCH))
        ]
        await stores.archival.insert_many(learner, drafts)
        bar.update(len(drafts))
    bar.close()
    said = ["I find SQL joins hard.", "My goal is to master recursion.", "I use VS Code for Python."]
    await stores.recall.log_messages(
        learner, "seed", [RecallMessage(f"{learner}-m{i}", "user", t) for i, t in enumerate(said)]
    )


async def run_consult(
    settings: Settings, *, memories: int = 10_000, queries: int = 50, progress: bool | None = None
) -> ConsultResult:
    """Seed, then time misses and hits (module docstring); erases its learner."""
    from agent.kernel.consult import ConsultDeps, consult
    from agent.kernel.worker import build_worker

    resources = Resources(
        dataclasses.replace(settings, model=OFFLINE_MODEL, embeddings=MINILM, ingest_mode="kernel")
    )
    stores = MemoryStores.wire(resources)
    learner = f"bench-consult-{uuid.uuid4().hex[:10]}"
    result = ConsultResult(memories, learner=learner)
    try:
        t0 = time.perf_counter()
        await seed(stores, learner, memories, progress=progress)
        await drain_all(build_worker(resources, stores), stores, [learner])
        result.seed_seconds = time.perf_counter() - t0
        deps = ConsultDeps.wire(resources, stores)
        briefs = {}
        total = WARMUP + queries
        for n in tqdm(range(total), desc="consult misses", unit="query", disable=not show_progress(progress)):
            t0 = time.perf_counter()
            answer = await consult(deps, learner, {"query": query_text(n)})
            seconds = time.perf_counter() - t0
            briefs[n] = answer.synthesized_brief
            if n >= WARMUP:
                result.misses.append(seconds)
                result.miss_cached += answer.cached
                result.facts_per_miss.append(len(answer.relevant_facts))
        for n in tqdm(range(total), desc="consult hits", unit="query", disable=not show_progress(progress)):
            t0 = time.perf_counter()
            answer = await consult(deps, learner, {"query": query_text(n)})
            seconds = time.perf_counter() - t0
            if n >= WARMUP:
                result.hits.append(seconds)
                result.hit_uncached += not answer.cached
                result.same_payload &= answer.synthesized_brief == briefs[n]
        result.load = os.getloadavg()
    finally:
        await erase(resources, stores, learner)
        await resources.aclose()
    return result
