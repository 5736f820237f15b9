"""Evidence recall@k for LoCoMo, as the LoCoMo repository scores it (pure functions).

Per question: the share of its (distinct) evidence dia_ids found among the turns
behind the top-k retrieved items; a question without evidence counts as 1. The
score is the mean over all questions, adversarial ones included, reported overall
and per category for k = 5, 10, 25, 50.

**Honest turn budget.** Retrieved items are not always single turns: a session
summary is derived from every turn of its session, a note from the turns its
sentences came from. Each item is expanded to its source turns (in the order the
item lists them) and ``k`` is a budget of *turns*, not of items:

- an item costs one slot per source turn not already counted, truncated when the
  budget runs out (so a summary of 30 turns cannot put 30 turns into the top 10);
- an item costs at least one slot, even when it adds no new turn (a duplicate) or
  maps to no turn at all; it took a place in the agent's context all the same;
- a turn counted once is never counted again (dedupe).

For a plain list of turns (recall messages) this is ordinary recall@k.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

KS: tuple[int, ...] = (5, 10, 25, 50)


def budget_turns(items: Iterable[Sequence[str]], k: int) -> list[str]:
    """The distinct turns behind ranked ``items`` within a budget of ``k`` turns."""
    if k < 0:
        raise ValueError("k must be >= 0")
    turns: list[str] = []
    seen: set[str] = set()
    used = 0
    for sources in items:
        if used >= k:
            break
        fresh = [t for t in dict.fromkeys(sources) if t not in seen]
        taken = fresh[: k - used]
        turns += taken
        seen.update(taken)
        used += max(1, len(taken))
    return turns


def evidence_recall(evidence: Sequence[str], retrieved: Iterable[str]) -> float:
    """Share of the distinct ``evidence`` ids in ``retrieved``; 1.0 without evidence."""
    wanted = set(evidence)
    if not wanted:
        return 1.0
    return len(wanted & set(retrieved)) / len(wanted)


def recall_at_ks(
    evidence: Sequence[str], items: Sequence[Sequence[str]], ks: Sequence[int] = KS
) -> dict[int, float]:
    """``{k: recall@k}`` for ranked ``items`` (each a list of source turn ids)."""
    return {k: evidence_recall(evidence, budget_turns(items, k)) for k in ks}


@dataclass(frozen=True)
class QuestionScore:
    """Recall@k of one question under one preset."""

    qid: str
    category: int
    recall: Mapping[int, float]


@dataclass(frozen=True)
class RecallSummary:
    """Mean recall@k overall and per category, with question counts."""

    overall: dict[int, float]
    by_category: dict[int, dict[int, float]]
    counts: dict[int, int] = field(default_factory=dict)
    n: int = 0

    def to_dict(self) -> dict:
        """JSON-ready: keys as strings (``"R@10"``, category numbers)."""
        return {
            "n": self.n,
            "overall": {f"R@{k}": v for k, v in self.overall.items()},
            "by_category": {
                str(c): {"n": self.counts[c], **{f"R@{k}": v for k, v in by_k.items()}}
                for c, by_k in self.by_category.items()
            },
        }


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values) if values else math.nan


def summarise_recall(scores: Sequence[QuestionScore], ks: Sequence[int] = KS) -> RecallSummary:
    """Means over ``scores`` (NaN when there are none), overall and per category."""
    categories = sorted({s.category for s in scores})
    by_category = {
        c: {k: _mean([s.recall[k] for s in scores if s.category == c]) for k in ks} for c in categories
    }
    return RecallSummary(
        overall={k: _mean([s.recall[k] for s in scores]) for k in ks},
        by_category=by_category,
        counts={c: sum(1 for s in scores if s.category == c) for c in categories},
        n=len(scores),
    )


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile (0-100) with linear interpolation (numpy's default); NaN if empty."""
    if not 0 <= q <= 100:
        raise ValueError("q must be within 0-100")
    if not values:
        return math.nan
    ordered = sorted(values)
    position = (len(ordered) - 1) * q / 100
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
