"""Leave-one-out choice of the knobs of a change stated as an amount or a duration (issue 39, L6).

``python -m bench.increment_knobs [PATH ...]`` (default ``bench/cognitive/sets/fact_increments.json``,
``fact_increments_classes.json``, ``fact_increments_owners.json``, ``fact_increments_locale.json`` and
``fact_increments_relative.json``)
reads learners' current facts (a fact changed before carries its "(now X)") and new
statements, each naming the fact it changes and the value it leads to (or none), and picks:

- ``differences.CHANGE_MIN``: a change takes the closest fact (MiniLM cosine at least the knob)
  it resolves against, or a newer open fact about the same thing (the product's write,
  ``agent.memory.fact_changes.changed_fact``, is what is scored);
- ``differences.DATE_CHANGE_MIN``: the same for a date moved by a duration;
- ``differences.NEWER_MARGIN``: … or a newer open fact about the same thing, at most this much
  less close;
- ``old_amounts.UNIT_MIN``: an amount applies to an old number whose unit is at least this close;
- ``differences.LOOSE_CHANGE_MIN``: with no fact that close, the newest fact at least this close
  whose number counts what the change counts and whose thing the change does not contradict
  (an increment told as an ellipsis: "Did eleven more over the weekend");
- ``differences.NAMED_LOOSE_MIN``: … at least this close when the change names its thing;
- ``differences.LOOSE_MARGIN``: … of several such facts, the closest only when this much closer than the next;
- ``differences.DONE_MIN``: work done with no direction word ("Wrote 1,350 words") changes a total of the
  same counted word at least this close;
- ``restated.RESTATE_MIN``: a total the learner states outright closes a fact holding a total KAG computed
  ("(now 46.5)") at least this close (a case with ``"value": null`` and ``"replaces"``).

One knob (or the pair of cosines ``CHANGE_MIN``, ``UNIT_MIN``) at a time, ``LOOSE_CHANGE_MIN`` first, then
in that order, the others at their chosen values.

For each statement left out, the knobs with the best score on the others (a right value +1,
a wrong change -``WRONG_COST``: it closes the learner's fact with a wrong value; ties: the
middle of the best) decide it. The report counts right, wrong, missed and kept (a statement
that changes nothing left alone), per class of statement.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path

import numpy as np

from agent.language import differences, old_amounts, restated
from agent.language.encoder import encode
from agent.memory import fact_changes

SETS = Path(__file__).parent / "cognitive" / "sets"
DEFAULT = [
    SETS / "fact_increments.json",
    SETS / "fact_increments_classes.json",
    SETS / "fact_increments_owners.json",
    SETS / "fact_increments_locale.json",
    SETS / "fact_increments_relative.json",
]
CHANGE_MINS = [round(x, 2) for x in np.arange(0.30, 0.61, 0.02)]
UNIT_MINS = [round(x, 2) for x in np.arange(0.30, 0.71, 0.05)]
MARGINS = [round(x, 2) for x in np.arange(0.0, 0.41, 0.02)]
LOOSE_MINS = [round(x, 2) for x in np.arange(-0.10, 0.41, 0.02)]
LOOSE_MARGINS = [round(x, 2) for x in np.arange(0.0, 0.21, 0.02)]
WRONG_COST = 100
"""A wrong change closes a fact with a wrong value; a miss keeps the old value current."""
OLD_AT = datetime(2026, 1, 5, 10, 0, tzinfo=UTC)
NEW_AT = OLD_AT + timedelta(days=14)


def _cases(paths: list[Path]) -> list[dict]:
    """Each new statement with its learner's facts (``said``: when each was said) and their cosines."""
    cases = []
    for path in paths:
        for learner in json.loads(path.read_text())["learners"]:
            facts = [f if isinstance(f, dict) else {"text": f} for f in learner["facts"]]
            texts = [f["text"] for f in facts]
            said = [datetime.fromisoformat(f["said"]) if "said" in f else OLD_AT for f in facts]
            vectors = encode(texts)
            for new in learner["new"]:
                scores = [float(s) for s in vectors @ encode([new["text"]])[0]]
                cases.append({"facts": texts, "said": said, "scores": scores, **new})
    return cases


@cache
def _resolve(
    new: str, old: str, old_at: datetime, new_at: datetime, unit_min: float, close: bool
) -> str | None:
    old_amounts.UNIT_MIN = unit_min
    return differences.resolve_change(new, old, old_at=old_at, new_at=new_at, close=close)


def _change(case: dict, knobs: dict[str, float]) -> tuple[int, str] | None:
    """``(fact, value)`` the product's write changes for the statement (``changed_fact``), or None."""
    fact_changes.CHANGE_MIN, fact_changes.DATE_CHANGE_MIN = knobs["change_min"], knobs["date_change_min"]
    fact_changes.NEWER_MARGIN = knobs["newer_margin"]
    fact_changes.LOOSE_CHANGE_MIN = knobs["loose_change_min"]
    fact_changes.NAMED_LOOSE_MIN = knobs["named_loose_min"]
    fact_changes.LOOSE_MARGIN = knobs["loose_margin"]
    fact_changes.DONE_MIN = knobs["done_min"]
    fact_changes.RESTATE_MIN = knobs["restate_min"]
    unit_min = knobs["unit_min"]
    fact_changes.resolve_change = lambda new, old, *, old_at, new_at, close=False: _resolve(
        new, old, old_at, new_at, unit_min, close
    )
    rows = [
        {"id": j, "text": fact, "score": score, "valid_from": when.isoformat()}
        for j, (fact, score, when) in enumerate(zip(case["facts"], case["scores"], case["said"], strict=True))
    ]
    rows.sort(key=lambda r: -r["score"])
    new = {"slotted": False, "predicate": "fact:x", "text": case["text"], "valid_from": NEW_AT.isoformat()}
    changed = fact_changes.changed_fact(new, rows)
    if changed is None:
        return None
    return int(changed[0]["id"]), changed[1]


def _outcome(changed: tuple[int, str | None] | None, case: dict) -> str:
    """right, wrong, missed or kept; a fact closed with no value counts only where the case says so.

    ``"value": null`` with ``"replaces"``: the statement restates a total KAG computed, and closing
    that fact is the change (``restated.restates``); ``"no_close": true``: closing any fact is wrong
    ("My friend has logged 60 hours"). Elsewhere a close with no value (``same_thing.retire_choice``,
    not this write's knobs) counts as no change, as before session 41.
    """
    closes = case["value"] is None and (case["replaces"] is not None or case.get("no_close"))
    if changed is not None and changed[1] is None and not closes:
        changed = None  # closed with no value: the value the case asks for was not computed
    if changed is None:
        return "missed" if case["replaces"] is not None else "kept"
    j, value = changed
    if value is None:
        return "right" if j == case["replaces"] else "wrong"
    right = j == case["replaces"] and value.lower() == str(case["value"]).lower()
    return "right" if right else "wrong"


def _leave_one_out(cases: list[dict], grid: list[tuple[float, ...]], knobs: dict[str, float]) -> dict:
    """Leave-one-out over ``grid`` (``knobs`` names the grid's fields; module docstring)."""
    outcomes = []
    for point in grid:
        k = knobs | dict(zip(list(knobs)[: len(point)], point, strict=True))
        outcomes.append([_outcome(_change(case, k), case) for case in cases])
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
    return {
        "knobs": list(knobs)[: len(grid[0])],
        "leave_one_out": all_ | {"per_class": tally},
        "knobs_chosen": sorted(chosen),
        "chosen_on_all": grid[int(best[len(best) // 2])],
        "best_on_all": [grid[int(b)] for b in best[:3]] + ["…"] + [grid[int(b)] for b in best[-3:]],
    }


def main() -> None:
    """Print the leave-one-out report as JSON: one knob (or pair) at a time, the others at their choice."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=DEFAULT)
    cases = _cases(parser.parse_args().paths)
    knobs = {
        "change_min": differences.CHANGE_MIN,
        "unit_min": old_amounts.UNIT_MIN,
        "date_change_min": differences.DATE_CHANGE_MIN,
        "newer_margin": differences.NEWER_MARGIN,
        "loose_change_min": differences.LOOSE_CHANGE_MIN,
        "named_loose_min": differences.NAMED_LOOSE_MIN,
        "loose_margin": differences.LOOSE_MARGIN,
        "done_min": differences.DONE_MIN,
        "restate_min": restated.RESTATE_MIN,
    }
    report: dict = {"statements": len(cases)}
    steps = (
        ("loose_change_min", None, [(m,) for m in LOOSE_MINS]),
        ("named_loose_min", None, [(m,) for m in LOOSE_MINS]),
        ("loose_margin", None, [(m,) for m in LOOSE_MARGINS]),
        ("done_min", None, [(m,) for m in CHANGE_MINS]),
        ("change_min", "unit_min", [(c, u) for u in UNIT_MINS for c in CHANGE_MINS]),
        ("date_change_min", None, [(c,) for c in CHANGE_MINS]),
        ("newer_margin", None, [(m,) for m in MARGINS]),
        ("restate_min", None, [(m,) for m in LOOSE_MINS]),
    )
    for first, second, grid in steps:
        names = [first, *([second] if second else [])]
        step = {n: knobs[n] for n in names} | {n: v for n, v in knobs.items() if n not in names}
        result = _leave_one_out(cases, grid, step)
        knobs |= dict(zip(names, result["chosen_on_all"], strict=True))
        report["+".join(names)] = result
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
