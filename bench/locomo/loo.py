"""Leave-one-conversation-out selection of the search preset (pure functions over a finished run).

Every knob of the default search is a named preset (``bench.locomo.retrieval``), so choosing
it is choosing a preset. For each conversation (a *fold*) held out in turn:

1. the candidates are the presets whose search p95 on the *other* folds' questions is within
   the latency budget (``P95_BUDGET_MS``, measured in the same run on this machine);
2. the chosen preset is the candidate with the best mean R@10 over the other folds (the
   mean of their per-conversation means; ties go to the faster p95, then to table order);
3. it is scored on the held-out fold, whose results were never looked at to choose it.

The report gives each fold's choice and held-out R@10, their mean and the worst fold, and
``most_chosen``: the preset the folds choose most (ties: the best mean training score),
which is the recommended product default.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from bench.locomo.scoring import QuestionScore, percentile

P95_BUDGET_MS = 150.0
K = 10
MULTI_HOP = 1


def fold_of(qid: str) -> str:
    """The conversation a question belongs to (``"conv-26#3"`` -> ``"conv-26"``)."""
    return qid.rsplit("#", 1)[0]


@dataclass(frozen=True)
class PresetRun:
    """What LOO needs of one preset: per-question scores and search seconds, aligned."""

    name: str
    scores: Sequence[QuestionScore]
    seconds: Sequence[float]


@dataclass(frozen=True)
class Fold:
    """One held-out conversation: what was chosen without it, and how it scored on it."""

    held_out: str
    questions: int
    chosen: str
    train_r10: float
    """Mean R@10 of the chosen preset over the other folds."""
    train_p95_ms: float
    held_out_r10: float
    held_out_multi_hop_r10: float
    within_budget: bool = True
    """False when no preset met the p95 budget on the other folds (the fastest was taken)."""


@dataclass(frozen=True)
class LooResult:
    """Every fold, and the summary docs/evaluation/locomo.md reports."""

    folds: list[Fold]
    budget_ms: float

    @property
    def mean(self) -> float:
        """Mean held-out R@10 over folds."""
        return _mean([f.held_out_r10 for f in self.folds])

    @property
    def worst(self) -> Fold:
        """The fold with the lowest held-out R@10."""
        return min(self.folds, key=lambda f: f.held_out_r10)

    @property
    def pooled(self) -> float:
        """Held-out R@10 over all questions (each question scored by its fold's choice)."""
        total = sum(f.questions for f in self.folds)
        return sum(f.held_out_r10 * f.questions for f in self.folds) / total if total else math.nan

    @property
    def most_chosen(self) -> str:
        """The preset the folds chose most (ties: the best mean training R@10)."""
        counts = Counter(f.chosen for f in self.folds)
        train = {f.chosen: f.train_r10 for f in self.folds}
        return max(counts, key=lambda name: (counts[name], train[name]))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every fold, the mean, the worst fold and the most chosen preset."""
        return {
            "metric": f"R@{K}",
            "p95_budget_ms": self.budget_ms,
            "folds": [asdict(f) for f in self.folds],
            "mean": self.mean,
            "pooled": self.pooled,
            "worst_fold": self.worst.held_out,
            "worst": self.worst.held_out_r10,
            "most_chosen": self.most_chosen,
        }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def _fold_means(run: PresetRun, folds: Sequence[str], category: int | None = None) -> dict[str, float]:
    by_fold: dict[str, list[float]] = {f: [] for f in folds}
    for score in run.scores:
        fold = fold_of(score.qid)
        if fold in by_fold and (category is None or score.category == category):
            by_fold[fold].append(score.recall[K])
    return {f: _mean(v) for f, v in by_fold.items()}


def _p95_ms(run: PresetRun, folds: set[str]) -> float:
    ms = [s * 1000 for q, s in zip(run.scores, run.seconds, strict=True) if fold_of(q.qid) in folds]
    return percentile(ms, 95)


def leave_one_out(runs: Sequence[PresetRun], *, budget_ms: float = P95_BUDGET_MS) -> LooResult:
    """Choose on the other folds, score on the held-out one, for every fold (see the module doc)."""
    if not runs:
        raise ValueError("leave-one-out needs at least one preset")
    folds = list(dict.fromkeys(fold_of(s.qid) for s in runs[0].scores))
    if len(folds) < 2:
        raise ValueError("leave-one-out needs at least two conversations")
    means = {r.name: _fold_means(r, folds) for r in runs}
    out = []
    for held in folds:
        train = [f for f in folds if f != held]
        rows = []
        for order, run in enumerate(runs):
            p95 = _p95_ms(run, set(train))
            if p95 <= budget_ms:
                rows.append((_mean([means[run.name][f] for f in train]), -p95, -order, run, p95))
        within = bool(rows)
        if not within:  # nothing fits: the fastest preset, so the table still says what happened
            run = min(runs, key=lambda r: _p95_ms(r, set(train)))
            rows = [(_mean([means[run.name][f] for f in train]), 0.0, 0, run, _p95_ms(run, set(train)))]
        score, _, _, best, p95 = max(rows, key=lambda row: row[:3])
        held_scores = [s for s in best.scores if fold_of(s.qid) == held]
        out.append(
            Fold(
                held_out=held,
                questions=len(held_scores),
                chosen=best.name,
                train_r10=score,
                train_p95_ms=p95,
                held_out_r10=means[best.name][held],
                held_out_multi_hop_r10=_fold_means(best, [held], MULTI_HOP)[held],
                within_budget=within,
            )
        )
    return LooResult(out, budget_ms)


def runs_from_json(data: Mapping[str, Any]) -> list[PresetRun]:
    """``PresetRun``s from a written result (``locomo_<run>.json`` with per-question recall).

    Older files without per-question latency use each preset's overall p95 for every question.
    """
    ks = list(data["ks"])
    categories = {q: int(c) for q, c in (data.get("categories") or {}).items()}
    if not categories:  # older files: read them from the dataset
        from bench.locomo.dataset import load_locomo

        dataset = load_locomo(data["dataset"])
        categories = {q.qid: q.category for c in dataset.conversations for q in c.questions}
    runs = []
    for preset in data["presets"]:
        name = preset["name"]
        per_question = data["per_question"][name]
        scores = [
            QuestionScore(qid, categories.get(qid, 0), dict(zip(ks, values, strict=True)))
            for qid, values in per_question.items()
        ]
        ms = (data.get("per_question_ms") or {}).get(name)
        if ms is None:
            ms = [preset["latency_ms"]["p95"]] * len(scores)
        runs.append(PresetRun(name, scores, [m / 1000 for m in ms]))
    return runs


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m bench.locomo.loo RESULT.json``: the leave-one-out table of a written run."""
    import argparse
    import json

    from bench.locomo.report import loo_table

    parser = argparse.ArgumentParser(prog="python -m bench.locomo.loo", description=main.__doc__)
    parser.add_argument("result", help="a locomo_<run>.json written by python -m bench.locomo")
    parser.add_argument("--budget-ms", type=float, default=P95_BUDGET_MS)
    args = parser.parse_args(argv)
    with open(args.result, encoding="utf-8") as handle:
        data = json.load(handle)
    runs = runs_from_json(data)
    print(loo_table(leave_one_out(runs, budget_ms=args.budget_ms), leave_one_out(runs, budget_ms=math.inf)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
