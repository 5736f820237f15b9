"""Leave-one-out choice of the knobs of a change stated as an amount or a duration (issue 39, L6).

``python -m bench.increment_knobs [PATH ...]`` (default ``bench/cognitive/sets/fact_increments.json``)
reads learners' current facts (a fact changed before carries its "(now X)") and new
statements, each naming the fact it changes and the value it leads to (or none), and picks:

- ``differences.CHANGE_MIN``: a change takes the closest fact (MiniLM cosine at least the knob)
  it resolves against (``agent.language.differences.resolve_change``), as
  ``agent.memory.fact_records.changed_fact`` does;
- ``differences.UNIT_MIN``: an amount applies to an old number whose unit is at least this close.

For each statement left out, the knobs with the best score on the others (a right value +1,
a wrong change -``WRONG_COST``: it closes the learner's fact with a wrong value; ties: the
middle of the best) decide it. The report counts right, wrong, missed and kept (a statement
that changes nothing left alone), per class of statement.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import numpy as np

from agent.language import differences
from agent.language.encoder import encode

SETS = Path(__file__).parent / "cognitive" / "sets"
DEFAULT = [SETS / "fact_increments.json"]
CHANGE_MINS = [round(x, 2) for x in np.arange(0.20, 0.71, 0.02)]
UNIT_MINS = [round(x, 2) for x in np.arange(0.20, 0.81, 0.05)]
WRONG_COST = 100
"""A wrong change closes a fact with a wrong value; a miss keeps the old value current."""
OLD_AT = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
NEW_AT = OLD_AT + timedelta(days=14)


def _cases(paths: list[Path]) -> list[dict]:
    cases = []
    for path in paths:
        for learner in json.loads(path.read_text())["learners"]:
            facts = learner["facts"]
            vectors = encode(facts)
            for new in learner["new"]:
                scores = [float(s) for s in vectors @ encode([new["text"]])[0]]
                cases.append({"facts": facts, "scores": scores, **new})
    return cases


def _outcomes(case: dict, unit_min: float) -> list[tuple[float, int, str]]:
    """``(cosine, fact, value)`` of each fact the statement resolves against, closest first."""
    differences.UNIT_MIN = unit_min
    found = []
    for j, (fact, score) in enumerate(zip(case["facts"], case["scores"], strict=True)):
        value = differences.resolve_change(case["text"], fact, old_at=OLD_AT, new_at=NEW_AT)
        if value is not None:
            found.append((score, j, value))
    return sorted(found, reverse=True)


def _outcome(resolved: list[tuple[float, int, str]], case: dict, change_min: float) -> str:
    above = [(j, v) for s, j, v in resolved if s >= change_min]
    if not above:
        return "missed" if case["replaces"] is not None else "kept"
    j, value = above[0]
    right = j == case["replaces"] and value.lower() == str(case["value"]).lower()
    return "right" if right else "wrong"


def main() -> None:
    """Print the leave-one-out report as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=DEFAULT)
    cases = _cases(parser.parse_args().paths)
    grid = [(c, u) for u in UNIT_MINS for c in CHANGE_MINS]
    resolved = {u: [_outcomes(case, u) for case in cases] for u in UNIT_MINS}
    outcomes = [[_outcome(resolved[u][i], case, c) for i, case in enumerate(cases)] for c, u in grid]
    gain = np.array([[{"right": 1, "wrong": -WRONG_COST}.get(o, 0) for o in row] for row in outcomes])
    total = gain.sum(axis=1)
    tally: dict[str, dict[str, int]] = {}
    chosen = set()
    for i, case in enumerate(cases):
        rest = total - gain[:, i]
        best = np.flatnonzero(rest == rest.max())
        g = int(best[len(best) // 2])
        chosen.add(grid[g])
        row = tally.setdefault(case["class"], {"right": 0, "wrong": 0, "missed": 0, "kept": 0})
        row[outcomes[g][i]] += 1
    best = np.flatnonzero(total == total.max())
    all_ = {k: sum(r[k] for r in tally.values()) for k in ("right", "wrong", "missed", "kept")}
    report = {
        "statements": len(cases),
        "leave_one_out": all_ | {"per_class": tally},
        "knobs_chosen": sorted(chosen),
        "chosen_on_all": grid[int(best[len(best) // 2])],
        "best_on_all": [grid[int(b)] for b in best][:3] + ["…"] + [grid[int(b)] for b in best][-3:],
    }
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
