"""The ONNX Runtime encoder against sentence-transformers, on the packaged model and its install-time export.

These need the export ``make install`` writes (``Settings.onnx_model_path``); a missing one
fails here rather than skipping. The reference loads torch in this process: it checks equality.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent.models import onnx_export
from agent.models.embeddings import ONNX, TORCH, MiniLMEmbeddings, make_embeddings
from agent.models.onnx_encoder import BACKGROUND_THREADS, MIN_COSINE, export_problem, record_path
from agent.priority import background, run_cpu
from agent.settings import Settings

REPO = Path(__file__).resolve().parents[3]

SENTENCES = [
    "Binary search halves the interval each step.",
    "what did we say about recursion last week?",
    "Caroline: Thanks! I'm reading Dune right now. How was camping?",
    "",
    "x",
    "La photosynthèse a lieu dans les chloroplastes.",
    "二次方程式の解の公式を復習する",
    "for i in range(10): print(i ** 2)",
    "The learner keeps mixing up mean and median in word problems. " * 30,  # past 256 tokens
    "Meet at 14:30 on 2025-01-02 — bring the 3rd edition (ISBN 978-0-13-110362-7).",
]


@pytest.fixture(scope="module")
def export_path() -> Path:
    path = Settings.from_env({}).onnx_model_path
    problem = export_problem(path, MiniLMEmbeddings().version)
    assert problem is None, f"{problem}: `make install` exports it"
    return path


@pytest.fixture(scope="module")
def reference() -> MiniLMEmbeddings:
    return MiniLMEmbeddings(onnx_path=None)  # sentence-transformers


def cosines(a: list[list[float]], b: list[list[float]]) -> np.ndarray:
    x, y = np.asarray(a), np.asarray(b)
    return (x * y).sum(axis=1) / (np.linalg.norm(x, axis=1) * np.linalg.norm(y, axis=1))


def test_onnx_vectors_equal_sentence_transformers(export_path: Path, reference: MiniLMEmbeddings) -> None:
    onnx = MiniLMEmbeddings(onnx_path=export_path)
    batched = onnx.embed_documents(SENTENCES)
    single = [onnx.embed_query(s) for s in SENTENCES]
    assert onnx.encoder == ONNX
    expected = reference.embed_documents(SENTENCES)
    assert reference.encoder == TORCH
    assert len(batched[0]) == 384
    for got in (batched, single):
        c = cosines(got, expected)
        assert c.min() >= MIN_COSINE, list(zip(SENTENCES, c, strict=True))
    assert np.allclose(np.linalg.norm(np.asarray(batched), axis=1), 1.0, atol=1e-5)


def test_the_install_keeps_the_fused_graph(export_path: Path) -> None:
    # One Attention node per layer instead of the traced MatMul/Softmax chain (the vectors test above
    # checks the same file against sentence-transformers).
    import onnx

    ops = {node.op_type for node in onnx.load(str(export_path)).graph.node}
    assert {"Attention", "SkipLayerNormalization", "EmbedLayerNormalization"} <= ops, sorted(ops)
    assert json.loads(record_path(export_path).read_text())["fused"] is True


def test_the_product_encodes_without_torch_in_a_fresh_process(export_path: Path) -> None:
    code = (
        "import sys\n"
        "from agent.models.embeddings import make_embeddings\n"
        "from agent.settings import Settings\n"
        "emb = make_embeddings(Settings.from_env())\n"
        "vector = emb.embed_query('SQL joins combine rows from two tables')\n"
        "emb.embed_documents(['one', 'two'])\n"
        "print(emb.encoder, len(vector))\n"
        "assert 'torch' not in sys.modules, 'torch imported'\n"
        "assert 'sentence_transformers' not in sys.modules, 'sentence_transformers imported'\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("GOOGLE_API_KEY", "KAG_EMBEDDINGS")}
    env["KAG_EMBED_ONNX_PATH"] = str(export_path)
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [ONNX, "384"]


def test_a_missing_export_falls_back_to_sentence_transformers_with_one_warning(
    tmp_path: Path, reference: MiniLMEmbeddings, caplog: pytest.LogCaptureFixture
) -> None:
    settings = Settings.from_env({"KAG_EMBED_ONNX_PATH": str(tmp_path / "missing.onnx")})
    emb = make_embeddings(settings)
    with caplog.at_level(logging.WARNING, logger="agent.models.embeddings"):
        got = emb.embed_documents(SENTENCES[:3])
        emb.embed_query("a second call")
    warnings = [r for r in caplog.records if "falls back to sentence-transformers" in r.getMessage()]
    assert len(warnings) == 1 and "missing.onnx" in warnings[0].getMessage()
    assert emb.encoder == TORCH
    assert np.allclose(got, reference.embed_documents(SENTENCES[:3]), atol=1e-6)


def test_an_export_that_fails_its_check_is_not_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    target = tmp_path / "m.onnx"
    monkeypatch.setattr(onnx_export, "_export", lambda model, path: path.write_bytes(b"an export"))
    monkeypatch.setattr(onnx_export, "check", lambda path, reference, files: 0.98)
    assert onnx_export.main(["--path", str(target)]) == 1
    assert not target.exists() and not record_path(target).exists()
    assert not list(tmp_path.iterdir())  # nor its partial file
    assert "WARNING: MiniLM ONNX export not kept" in capsys.readouterr().err


def test_an_export_that_passes_is_moved_into_place_with_its_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "m.onnx"
    monkeypatch.setattr(onnx_export, "_export", lambda model, path: path.write_bytes(b"an export"))
    monkeypatch.setattr(onnx_export, "check", lambda path, reference, files: 0.99999994)
    assert onnx_export.main(["--path", str(target)]) == 0
    assert target.read_bytes() == b"an export"
    record = json.loads(record_path(target).read_text())
    assert record["min_cosine"] == pytest.approx(0.99999994)
    assert record["fused"] is False  # the optimizer cannot read this file: the traced graph is kept
    assert export_problem(target, MiniLMEmbeddings().version) is None
    # Once: a second run finds it checked and exports nothing.
    monkeypatch.setattr(onnx_export, "_export", lambda model, path: pytest.fail("exported twice"))
    assert onnx_export.main(["--path", str(target)]) == 0


def test_background_encodes_run_on_their_own_one_thread_session(export_path: Path) -> None:
    emb = MiniLMEmbeddings(onnx_path=export_path)

    async def main() -> None:
        await run_cpu(emb.embed_query, "a turn's query")
        with background():
            await run_cpu(emb.embed_documents, ["a worker batch", "of two"])

    asyncio.run(main())
    sessions = emb._model._sessions
    assert set(sessions) == {False, True} and sessions[False] is not sessions[True]
    assert sessions[True].get_session_options().intra_op_num_threads == BACKGROUND_THREADS
    assert sessions[False].get_session_options().intra_op_num_threads == emb.threads
