"""Leave-one-out of ``agent.language.versions``' knobs: does memory hold two values for a question.

``bench/cognitive/sets/intents_memory.json`` (``kag-intents-memory-v1``): questions asking one
value, each with the learner's facts (every version) and the intent it calls for. An item
reads as ``agent.language.versions.settle`` reads it from the words
(``agent.language.intents.reading``) and what memory holds (``held``). Per held-out item,
the ``Knobs`` best on the others read it; ties go to the larger k (more facts the closest
may disagree with), the lower floor (memory settles only a plain reading, and only with a
closed version or a disagreement among the closest, which far facts rarely have), the
smaller margin. The report gives that accuracy, the misses, and the choice on the whole set.
"""

from __future__ import annotations

import itertools
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

SET = Path(__file__).resolve().parents[1] / "cognitive" / "sets" / "intents_memory.json"
GRID = {
    "k": (1, 2, 3, 5),
    "margin": (0.0, 0.05, 0.1, 0.15, 0.2),
    "floor": (0.2, 0.25, 0.3, 0.35, 0.4),
    "answer_margin": (None, 0.0, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3),
    "answer_floor": (0.2, 0.25, 0.3, 0.35, 0.4),
}


@dataclass(frozen=True)
class Written:
    """A fact version as the set writes it (``agent.language.versions.Version``)."""

    content: str
    valid_to: str | None = None
    superseded: list[str] = field(default_factory=list)


def versions(item: dict[str, Any]) -> list[Written]:
    """The item's facts: ``closed`` ones carry a ``valid_to``, ``closes`` ones a superseded id."""
    return [
        Written(
            f["text"],
            "2026-01-01T00:00:00+00:00" if f.get("closed") else None,
            ["older"] if f.get("closes") else [],
        )
        for f in item["facts"]
    ]


def memory_report(path: Path = SET) -> dict[str, Any]:
    """Leave-one-out accuracy over the set, the knobs each fold chose, per-setting accuracy."""
    from agent.language import intents
    from agent.language import versions as v
    from agent.language.encoder import encode

    items = json.loads(path.read_text())["items"]
    words = [intents.reading(item["question"])[0] for item in items]
    questions = encode([v.as_learner(item["question"]) for item in items])
    facts = [versions(item) for item in items]
    rows = [encode([f.content for f in fs]) for fs in facts]

    def said(i: int, knobs: v.Knobs) -> str:
        return v.settle(words[i], v.held(rows[i] @ questions[i], facts[i], rows[i], knobs))

    settings = [v.Knobs(*values) for values in itertools.product(*GRID.values())]
    right = np.array([[said(i, s) == item["intent"] for i, item in enumerate(items)] for s in settings])

    def rank(s: int, score: int) -> tuple[int, int, float, float, float, float]:
        knobs = settings[s]
        answers = -1.0 if knobs.answer_margin is None else -knobs.answer_margin  # the cautious net first
        return score, knobs.k, -knobs.floor, -knobs.margin, answers, knobs.answer_floor

    loo, chosen_knobs, missed = 0, [], []
    for i, item in enumerate(items):
        others = right.sum(axis=1) - right[:, i]
        best = max(range(len(settings)), key=lambda s: rank(s, others[s]))
        chosen_knobs.append(settings[best])
        loo += int(right[best, i])
        if not right[best, i]:
            missed.append(
                {"id": item["id"], "knobs": asdict(settings[best]), "said": said(i, settings[best])}
            )
    whole = max(range(len(settings)), key=lambda s: rank(s, right[s].sum()))
    return {
        "items": len(items),
        "loo_accuracy": round(loo / len(items), 4),
        "loo_missed": missed,
        "fold_knobs": sorted({str(asdict(s)) for s in chosen_knobs}),
        "whole_set_choice": asdict(settings[whole]),
        "whole_set_accuracy": round(int(right[whole].sum()) / len(items), 4),
    }
