"""Leave-one-out choice of the same-thing knobs (``agent.language.same_thing``).

``python -m bench.fact_knobs [bench/cognitive/sets/fact_pairs.json]`` reads learners' open
facts and new statements, each naming the fact it gives a new value to (or none), and:

- **write time** (``RETIRE_MIN``, ``RETIRE_MARGIN``): for each new statement left out, the
  pair of knobs that retires the most right facts with **no** wrong retirement on the
  others (ties: the highest knobs, the side that retires less) decides it; the report
  counts right, wrong and missed retirements of the left-out statements;
- **read time** (``NET_SAME``): each (new statement, open fact) pair is same-thing or not;
  the threshold with the best accuracy on the other pairs decides the left-out pair;
- **changes by a difference** (``CHANGE_MIN``): the statements with a difference that
  resolve against the fact they change, and against any other fact.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from agent.language import same_thing
from agent.language.differences import resolve_change, shift
from agent.language.encoder import encode

DEFAULT = Path(__file__).parent / "cognitive" / "sets" / "fact_pairs.json"
MINS = [round(x, 2) for x in np.arange(0.40, 1.001, 0.01)]
MARGINS = [round(x, 2) for x in np.arange(0.0, 0.41, 0.05)]
WRONG_COST = 100
"""A wrong retirement loses data; a miss is shown by the read-time net."""


def _cases(path: Path) -> list[dict]:
    cases = []
    for learner in json.loads(path.read_text())["learners"]:
        facts = learner["facts"]
        vectors = encode(facts)
        for new in learner["new"]:
            scores = [float(s) for s in vectors @ encode([new["text"]])[0]]
            cases.append({"text": new["text"], "facts": facts, "scores": scores, "replaces": new["replaces"]})
    return cases


def _retire(case: dict, low: float, margin: float) -> int | None:
    same_thing.RETIRE_MIN, same_thing.RETIRE_MARGIN = low, margin
    return same_thing.retire_choice(case["text"], case["facts"], case["scores"])


def _tally(cases: list[dict], low: float, margin: float) -> tuple[int, int]:
    right = wrong = 0
    for case in cases:
        got = _retire(case, low, margin)
        right += got is not None and got == case["replaces"]
        wrong += got is not None and got != case["replaces"]
    return right, wrong


def write_time(cases: list[dict]) -> dict:
    """Leave-one-out over the new statements (module docstring)."""
    outcome = {"right": 0, "wrong": 0, "missed": 0, "kept": 0, "knobs": []}
    for i, case in enumerate(cases):
        rest = cases[:i] + cases[i + 1 :]
        best = max(
            ((low, margin) for low in MINS for margin in MARGINS),
            key=lambda k: ((t := _tally(rest, *k))[0] - WRONG_COST * t[1], k[0], k[1]),
        )
        outcome["knobs"].append(best)
        got = _retire(case, *best)
        if got is None:
            outcome["missed" if case["replaces"] is not None else "kept"] += 1
        else:
            outcome["right" if got == case["replaces"] else "wrong"] += 1
    all_best = max(
        ((low, margin) for low in MINS for margin in MARGINS),
        key=lambda k: ((t := _tally(cases, *k))[0] - WRONG_COST * t[1], k[0], k[1]),
    )
    outcome["chosen_on_all"] = all_best
    outcome["knobs"] = sorted(set(outcome["knobs"]))
    return outcome


def read_time(cases: list[dict]) -> dict:
    """Leave-one-out over (new statement, fact) pairs for ``NET_SAME``."""
    pairs = [(s, j == c["replaces"]) for c in cases for j, s in enumerate(c["scores"])]
    grid = [round(x, 2) for x in np.arange(0.30, 0.90, 0.01)]

    def accuracy(items: list[tuple[float, bool]], t: float) -> float:
        # Balanced: same-thing pairs are few (one per statement) and a miss costs as much as
        # a wrong grouping (both only reorder), so each class counts half.
        hits = [s >= t for s, same in items if same]
        rejections = [s < t for s, same in items if not same]
        return (sum(hits) / len(hits) + sum(rejections) / len(rejections)) / 2

    right = {True: 0, False: 0}
    for i, (score, same) in enumerate(pairs):
        rest = pairs[:i] + pairs[i + 1 :]
        t = max(grid, key=lambda g: (accuracy(rest, g), g))
        right[same] += (score >= t) == same
    chosen = max(grid, key=lambda g: (accuracy(pairs, g), g))
    same = sum(1 for _, s in pairs if s)
    return {
        "pairs": len(pairs),
        "same_thing_found": f"{right[True]}/{same}",
        "different_kept_apart": f"{right[False]}/{len(pairs) - same}",
        "chosen_on_all": chosen,
    }


def changes(cases: list[dict]) -> dict:
    """How often a difference resolves against the right fact, and against a wrong one, above CHANGE_MIN."""
    when = datetime(2026, 1, 5, tzinfo=UTC)
    right = wrong = missed = 0
    for case in cases:
        if shift(case["text"]) is None:
            continue
        found = [
            (s, j)
            for j, (fact, s) in enumerate(zip(case["facts"], case["scores"], strict=True))
            if s >= same_thing.CHANGE_MIN and resolve_change(case["text"], fact, old_at=when, new_at=when)
        ]
        if not found:
            missed += case["replaces"] is not None
        elif max(found)[1] == case["replaces"]:
            right += 1
        else:
            wrong += 1
    return {"right": right, "wrong": wrong, "missed": missed}


def main() -> None:
    """Print the leave-one-out report as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", type=Path, default=DEFAULT)
    cases = _cases(parser.parse_args().path)
    change_min = same_thing.CHANGE_MIN
    report = {"write_time": write_time(cases), "read_time": read_time(cases)}
    same_thing.CHANGE_MIN = change_min
    report["changes"] = changes(cases)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
