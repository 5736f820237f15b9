"""MiniLM on ONNX Runtime: pooling as sentence-transformers does it, the export's checks, no torch."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from agent.models.embeddings import MiniLMEmbeddings
from agent.models.onnx_encoder import MIN_COSINE, export_problem, mean_pool_normalise, record_path
from agent.settings import Settings

WEIGHTS = "all-MiniLM-L6-v2@gt-0.1.0"


def test_mean_pool_ignores_padding_and_normalises() -> None:
    hidden = np.array(
        [
            [[3.0, 0.0], [1.0, 4.0], [100.0, -100.0]],  # the third token is padding
            [[0.0, 2.0], [9.0, 9.0], [9.0, 9.0]],  # one real token
        ],
        dtype=np.float32,
    )
    mask = np.array([[1, 1, 0], [1, 0, 0]], dtype=np.int64)
    out = mean_pool_normalise(hidden, mask)
    # Row 0: mean of (3,0) and (1,4) = (2,2), normalised to (1/√2, 1/√2); row 1: (0,2) -> (0,1).
    assert out.dtype == np.float32
    np.testing.assert_allclose(out[0], [1 / math.sqrt(2), 1 / math.sqrt(2)], rtol=1e-6)
    np.testing.assert_allclose(out[1], [0.0, 1.0], rtol=1e-6)


def test_mean_pool_of_nothing_is_zero_not_nan() -> None:
    # A zero vector (all-zero tokens, or no real token) stays zero, as torch's clamped divisions leave it.
    out = mean_pool_normalise(np.zeros((1, 2, 3), dtype=np.float32), np.array([[0, 0]]))
    assert np.all(out == 0) and not np.any(np.isnan(out))


def _export_files(tmp_path: Path, record: dict | None) -> Path:
    model = tmp_path / "m.onnx"
    model.write_bytes(b"not read by the check")
    if record is not None:
        record_path(model).write_text(json.dumps(record))
    return model


def test_export_problem_names_every_reason_to_fall_back(tmp_path: Path) -> None:
    assert "no ONNX export" in export_problem(tmp_path / "missing.onnx", WEIGHTS)
    assert "check record" in export_problem(_export_files(tmp_path, None), WEIGHTS)
    stale = _export_files(tmp_path, {"weights": "all-MiniLM-L6-v2@gt-0.0.9", "min_cosine": 1.0})
    assert "not 'all-MiniLM-L6-v2@gt-0.1.0'" in export_problem(stale, WEIGHTS)
    failed = _export_files(tmp_path, {"weights": WEIGHTS, "min_cosine": MIN_COSINE - 1e-4})
    assert "did not pass" in export_problem(failed, WEIGHTS)
    assert (
        export_problem(_export_files(tmp_path, {"weights": WEIGHTS, "min_cosine": 0.9999999}), WEIGHTS)
        is None
    )


def test_the_export_path_is_in_the_environment_unless_set(tmp_path: Path) -> None:
    default = Settings.from_env({}).onnx_model_path
    assert default.name == "all-MiniLM-L6-v2.onnx" and default.parent.name == "kag"
    chosen = tmp_path / "elsewhere.onnx"
    assert Settings.from_env({"KAG_EMBED_ONNX_PATH": str(chosen)}).onnx_model_path == chosen


def test_minilm_chooses_its_runtime_only_when_it_loads() -> None:
    lazy = MiniLMEmbeddings(onnx_path=Settings.from_env({}).onnx_model_path)
    assert lazy._model is None and lazy.encoder is None
