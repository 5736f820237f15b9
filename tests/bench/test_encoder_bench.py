"""The encoder bench's report and its background-worker figure (no services; the export from make install)."""

from __future__ import annotations

import asyncio

from agent.models.embeddings import make_embeddings
from agent.settings import Settings
from bench.encoder import Cold, Figures, beside_worker, queries, report


def figures(product_ms: float, torch_ms: float) -> Figures:
    colds = {
        "product": [Cold(1.0, 1.3, "onnxruntime", False), Cold(1.2, 1.5, "onnxruntime", False)],
        "torch": [
            Cold(20.0, 21.0, "sentence-transformers", True),
            Cold(22.0, 23.0, "sentence-transformers", True),
        ],
    }
    warm = {"product": [product_ms / 1000] * 3, "torch": [torch_ms / 1000] * 3}
    cpu = {"product": [0.006] * 3, "torch": [0.024] * 3}
    return Figures(colds, warm, cpu, 0.99999994, 1.2e-7, 40, [0.007], [0.008], 4)


def test_each_ratio_is_judged_against_its_target() -> None:
    lines = report(figures(7.0, 27.0))
    assert "onnxruntime 1.1 s, sentence-transformers 21 s, ratio 0.05x (meets target <= 0.15x)" in lines[0]
    assert "ratio 0.26x (meets target <= 0.40x)" in lines[2]
    assert (
        "CPU time p50 (no run-queue wait): onnxruntime 6 ms, sentence-transformers 24 ms, ratio 0.25x"
        in lines[4]
    )
    assert "1 - cos 6e-08" in lines[5]
    assert lines[-1].startswith("torch in sys.modules after the product's first vector: False")
    assert "ratio 0.50x (MISSES target <= 0.40x)" in report(figures(10.0, 20.0))[2]


def test_queries_are_distinct_so_the_memo_never_answers() -> None:
    assert len(set(queries(50) + queries(50, "a"))) == 100


def test_the_query_encodes_beside_a_background_worker_loop() -> None:
    product = make_embeddings(Settings.from_env({}))
    alone, beside, batches = asyncio.run(beside_worker(product, 4))
    assert len(alone) == len(beside) == 4 and batches >= 1
    assert set(product._model._sessions) == {False, True}  # the worker's batches had their own session
