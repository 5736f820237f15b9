"""The words' reading of a question's intent on questions written for it, with and without its shape.

    .venv/bin/python -m bench.intent_knobs [--set PATH]

Scores ``agent.language.intents.reading`` on ``bench/cognitive/sets/intents_shape.json``
(questions by the shape of what they ask, among them ones that are not what their words
suggest): an item labelled ``one_value`` is right when the words leave it to memory (a
one-value intent, memory asked); any other label when the words give it. Reported:

- ``with_shape`` / ``without_shape``: agreement with ``agent.language.question_shape`` and with
  it switched off (the rules and the classifier alone), at the shipped ``OVERRIDE``;
- ``override``: agreement per setting of the classifier's ``OVERRIDE`` and its leave-one-out
  (each item scored at the setting best on the others; ties go to the higher, surer setting).
- ``searches``: ``agent.heartbeat.effort.SEARCH_MIN`` over the bare searches of
  ``bench/cognitive/sets/intents_searches.json`` (several facts about a search: their course):
  agreement per setting, the leave-one-out, and the settings the folds chose (ties go to the
  lowest: a plain search read as a course costs a history plan that still holds its one value,
  a course read as one value loses the older values).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SET = Path(__file__).resolve().parent / "cognitive" / "sets" / "intents_shape.json"
SEARCHES = SET.with_name("intents_searches.json")
GRID = (0.5, 0.6, 0.7, 0.8, 0.9)
TEMPORAL = "temporal_comparison"
SEARCH_GRID = (0.15, 0.2, 0.25, 0.3, 0.35, 0.4)


@dataclass(frozen=True)
class _Fact:
    content: str
    valid_to: str | None = None
    superseded: tuple[str, ...] = ()


def searches_report(path: Path = SEARCHES) -> dict[str, Any]:
    """``SEARCH_MIN`` by leave-one-out over bare searches and the facts memory holds for them."""
    from agent.heartbeat.effort import several

    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    right = {
        t: [
            several(it["search"], [_Fact(f) for f in it["facts"]], t) == (it["intent"] == TEMPORAL)
            for it in items
        ]
        for t in SEARCH_GRID
    }
    chosen, loo = [], []
    for i in range(len(items)):
        scores = {t: sum(r for j, r in enumerate(right[t]) if j != i) for t in SEARCH_GRID}
        best = [t for t in SEARCH_GRID if scores[t] == max(scores.values())]
        pick = best[0]
        chosen.append(pick)
        loo.append(right[pick][i])
    return {
        "items": len(items),
        "by_setting": {str(t): round(sum(r) / len(items), 3) for t, r in right.items()},
        "leave_one_out": round(sum(loo) / len(items), 3),
        "folds_chose": sorted(set(chosen)),
    }


def _right(item: dict[str, Any], reading: tuple[str, bool]) -> bool:
    from agent.language.intents import ONE_VALUE

    intent, asks_memory = reading
    if item["intent"] == "one_value":
        return asks_memory and intent in ONE_VALUE
    return intent == item["intent"]


def report(path: Path = SET) -> dict[str, Any]:
    """Agreement with and without the question's shape, and the leave-one-out of ``OVERRIDE``."""
    from agent.language import intents

    items = json.loads(path.read_text(encoding="utf-8"))["items"]
    right = {o: [_right(it, intents.reading(it["text"], o)) for it in items] for o in GRID}
    shape = intents.shape_intent
    intents.shape_intent = lambda text: None  # the ablation: the rules and the classifier alone
    try:
        without = [_right(it, intents.reading(it["text"])) for it in items]
    finally:
        intents.shape_intent = shape
    loo = []
    for i in range(len(items)):
        best = max(reversed(GRID), key=lambda o: sum(r for j, r in enumerate(right[o]) if j != i))
        loo.append(right[best][i])
    n = len(items)
    return {
        "items": n,
        "with_shape": round(sum(right[intents.OVERRIDE]) / n, 3),
        "without_shape": round(sum(without) / n, 3),
        "override": {str(o): round(sum(r) / n, 3) for o, r in right.items()},
        "override_leave_one_out": round(sum(loo) / n, 3),
        "wrong": [it["text"] for it, r in zip(items, right[intents.OVERRIDE], strict=True) if not r],
    }


def main(argv: list[str] | None = None) -> None:
    """Print the report as JSON."""
    parser = argparse.ArgumentParser(prog="python -m bench.intent_knobs", description=__doc__.splitlines()[0])
    parser.add_argument("--set", default=str(SET), help="the question set (kag-intents-shape-v1)")
    args = parser.parse_args(argv)
    print(json.dumps({"questions": report(Path(args.set)), "searches": searches_report()}, indent=1))


if __name__ == "__main__":
    main()
