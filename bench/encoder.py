"""The offline embedder on ONNX Runtime against the sentence-transformers path, ratios in one run.

Three figures, each the product's path (``make_embeddings``: ONNX Runtime on the export
``make install`` checked) over the sentence-transformers path (``MiniLMEmbeddings`` with no
export: torch), measured side by side so the machine's load cancels out:

- cold start: a fresh interpreter from its first line to the first query vector (the
  imports, the model load, one encode), the two paths' processes alternating;
- warm single-query encode p50 (and p95): distinct ~16-token queries (the query memo never
  answers), the two encoders alternating in one process (the order swapped every query),
  both warmed up first on ``WARM_UP`` other queries; beside the wall time, the CPU time
  the process spent on each encode, which a loaded machine's run queue does not stretch (on
  2 shared cores every short encode waits its turn, so the wall ratio drifts towards 1 as
  the load rises while the work each path does stays the same);
- the vectors: the smallest cosine and the largest element difference over the export's
  check sentences and the queries;
- the product's query encode alone and while a kernel-worker-like loop encodes batches of
  50 on the low-priority threads (``agent.priority.background``: their own ONNX session);

and whether ``torch`` is in ``sys.modules`` after the product's first vector.

    .venv/bin/python -m bench.encoder [--cold 3] [--queries 100]

``KAG_EMBED_THREADS`` applies to both paths (torch's threads, the foreground session's).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass

import numpy as np

from agent.models.embeddings import MiniLMEmbeddings, make_embeddings
from agent.models.onnx_export import CHECK_SENTENCES
from agent.priority import background, run_cpu
from agent.settings import Settings
from bench.kernel.turn_report import pct

COLD_CHILD = """
import time
start = time.perf_counter()
import json, sys
from agent.settings import Settings
from agent.models.embeddings import MiniLMEmbeddings, make_embeddings
settings = Settings.from_env()
if sys.argv[1] == "product":
    emb = make_embeddings(settings)
else:
    emb = MiniLMEmbeddings(threads=settings.embed_threads, onnx_path=None)
vector = emb.embed_query("what did we say about recursion last week?")
seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds, "encoder": emb.encoder, "dimension": len(vector),
                  "torch": "torch" in sys.modules,
                  "sentence_transformers": "sentence_transformers" in sys.modules}))
"""
"""A fresh process's import -> first query vector, on the path its argument names."""

WARM_UP = 5
"""Queries each encoder runs before it is timed (sessions, arenas, caches, torch's first calls)."""

TOPICS = ("recursion", "fractions", "photosynthesis", "SQL joins", "the French subjunctive", "derivatives")


@dataclass(frozen=True)
class Cold:
    """One fresh process: seconds from its first line to the first vector, and what it imported."""

    seconds: float
    wall: float
    encoder: str
    torch: bool


def cold_start(path: str) -> Cold:
    """Run ``COLD_CHILD`` for ``path`` (``product`` or ``torch``) in a fresh interpreter."""
    began = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", COLD_CHILD, path], capture_output=True, text=True, timeout=600, check=True
    )
    wall = time.perf_counter() - began
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    return Cold(facts["seconds"], wall, facts["encoder"], facts["torch"])


def queries(n: int, tag: str = "") -> list[str]:
    """``n`` distinct learner questions of about 16 tokens (``tag`` keeps sets apart: the memo)."""
    return [
        f"what did I get wrong about {TOPICS[i % len(TOPICS)]} in session {i}{tag} last week, and why?"
        for i in range(n)
    ]


async def beside_worker(product: MiniLMEmbeddings, n: int) -> tuple[list[float], list[float], int]:
    """Query encodes alone, then while background batches of 50 run; (alone, beside, batches done)."""

    async def timed(texts: list[str]) -> list[float]:
        out = []
        for text in texts:
            began = time.perf_counter()
            await run_cpu(product.embed_query, text)
            out.append(time.perf_counter() - began)
        return out

    alone = await timed(queries(n, "a"))
    stop = asyncio.Event()
    batches = 0

    async def worker() -> None:
        nonlocal batches
        with background():
            while not stop.is_set():
                # Short texts: a batch ends soon after ``stop`` even on a starved niced thread.
                await run_cpu(product.embed_documents, queries(50, f"w{batches}"))
                batches += 1

    task = asyncio.create_task(worker())
    await asyncio.sleep(0.2)
    beside = await timed(queries(n, "b"))
    stop.set()
    await task
    return alone, beside, batches


def warm_p50(
    product: MiniLMEmbeddings, reference: MiniLMEmbeddings, n: int
) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """(wall, CPU) seconds per single-query encode, the encoders alternating and swapping who goes first.

    Both run the same queries; each is warmed up on ``WARM_UP`` other queries first.
    """
    for text in queries(WARM_UP, "warm"):
        product.embed_query(text)
        reference.embed_query(text)
    wall: dict[str, list[float]] = {"product": [], "torch": []}
    cpu: dict[str, list[float]] = {"product": [], "torch": []}
    for i, text in enumerate(queries(n)):
        pair = (("product", product), ("torch", reference))
        for name, emb in pair if i % 2 else pair[::-1]:
            began, began_cpu = time.perf_counter(), time.process_time()
            emb.embed_query(text)
            cpu[name].append(time.process_time() - began_cpu)
            wall[name].append(time.perf_counter() - began)
    return wall, cpu


def vector_gap(product: MiniLMEmbeddings, reference: MiniLMEmbeddings) -> tuple[float, float, int]:
    """(smallest cosine, largest element difference, texts) between the two encoders' vectors."""
    texts = [*CHECK_SENTENCES, *queries(20)]
    a = np.asarray(product.embed_documents(texts))
    b = np.asarray(reference.embed_documents(texts))
    cosine = (a * b).sum(axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))
    return float(cosine.min()), float(np.abs(a - b).max()), len(texts)


def ratio_line(what: str, product: float, torch: float, unit: str, target: float) -> str:
    """One figure: both paths, their ratio and whether it meets ``target``."""
    ratio = product / torch
    verdict = "meets" if ratio <= target else "MISSES"
    return (
        f"{what}: onnxruntime {product:.3g} {unit}, sentence-transformers {torch:.3g} {unit}, "
        f"ratio {ratio:.2f}x ({verdict} target <= {target:.2f}x)"
    )


@dataclass(frozen=True)
class Figures:
    """Everything one run measured (seconds; ``report`` turns it into lines)."""

    colds: dict[str, list[Cold]]
    warm: dict[str, list[float]]
    warm_cpu: dict[str, list[float]]
    """The same encodes' process CPU time (every intra-op thread's, so fair at any thread count)."""
    cosine: float
    diff: float
    texts: int
    alone: list[float]
    beside: list[float]
    batches: int


def measure(cold: int, n: int, settings: Settings) -> Figures:
    """Run the cold starts, then the warm figures in this process (module docstring)."""
    colds: dict[str, list[Cold]] = {"product": [], "torch": []}
    for _ in range(cold):
        for path in ("product", "torch"):
            colds[path].append(cold_start(path))
    product = make_embeddings(settings)
    reference = MiniLMEmbeddings(threads=settings.embed_threads, onnx_path=None)
    warm, warm_cpu = warm_p50(product, reference, n)
    cosine, diff, texts = vector_gap(product, reference)
    alone, beside, batches = asyncio.run(beside_worker(product, n // 2))
    return Figures(colds, warm, warm_cpu, cosine, diff, texts, alone, beside, batches)


def report(f: Figures) -> list[str]:
    """The figures as printed lines, each ratio with its target."""

    def med(path: str, field: str) -> float:
        return statistics.median(getattr(c, field) for c in f.colds[path])

    first = f.colds["product"][0]
    p50 = {k: 1000 * statistics.median(v) for k, v in f.warm.items()}
    p95 = {k: 1000 * pct(v, 0.95) for k, v in f.warm.items()}
    cpu = {k: 1000 * statistics.median(v) for k, v in f.warm_cpu.items()}
    cold = ("cold start, import -> first query vector", med("product", "seconds"), med("torch", "seconds"))
    wall = (
        "  the same, process wall (with the interpreter's start)",
        med("product", "wall"),
        med("torch", "wall"),
    )
    return [
        ratio_line(*cold, "s", 0.15),
        ratio_line(*wall, "s", 0.15),
        ratio_line("warm single-query encode p50", p50["product"], p50["torch"], "ms", 0.40),
        f"  p95: onnxruntime {p95['product']:.3g} ms, sentence-transformers {p95['torch']:.3g} ms",
        ratio_line(
            "  the same encodes' CPU time p50 (no run-queue wait)", cpu["product"], cpu["torch"], "ms", 0.40
        ),
        f"vectors over {f.texts} texts: min cosine {f.cosine:.8f} (1 - cos {1 - f.cosine:.1g}), "
        f"max |difference| {f.diff:.2g}",
        f"product query encode p50 alone {1000 * statistics.median(f.alone):.3g} ms, beside the "
        f"worker's background batches {1000 * statistics.median(f.beside):.3g} ms "
        f"({f.batches} batches of 50 meanwhile)",
        f"torch in sys.modules after the product's first vector: {first.torch} "
        f"(encoder {first.encoder}; sentence-transformers path: {f.colds['torch'][0].torch})",
    ]


def main(argv: list[str] | None = None) -> None:
    """Measure and print the figures (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cold", type=int, default=3, help="fresh processes per path (alternating)")
    parser.add_argument("--queries", type=int, default=100, help="warm single-query encodes per path")
    args = parser.parse_args(argv)
    settings = Settings.from_env()
    figures = measure(args.cold, args.queries, settings)
    print(
        f"encoder bench: {args.cold} fresh processes per path, {args.queries} warm queries per path; "
        f"KAG_EMBED_THREADS={settings.embed_threads}; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores"
    )
    if figures.colds["product"][0].encoder != "onnxruntime":
        print("the product path did not run on onnxruntime: no checked export (make install)")
    print("\n".join(report(figures)))


if __name__ == "__main__":
    main()
