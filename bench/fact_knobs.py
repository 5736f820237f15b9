"""Leave-one-out choice of the same-thing knobs (``agent.language.same_thing``).

``python -m bench.fact_knobs [PATH ...]`` (default: ``fact_pairs.json`` and
``fact_pairs_about.json`` in ``bench/cognitive/sets``) reads learners' open
facts and new statements, each naming the fact it gives a new value to (or none), and:

- **write time** (``RETIRE_MIN``, ``RETIRE_MARGIN``): for each new statement left out, the
  knobs that score best on the others (a right retirement +1, a wrong one -``WRONG_COST``),
  or the most cautious within ``WRITE_SLACK`` of the best, decide it; the report counts
  right, wrong and missed retirements of the left-out statements;
- **read time** (``NET_SAME``, ``VALUE_MIN``, ``about.SURE``, ``ABOUT_FLOOR``): each (new
  statement, open fact) pair is same-thing or not; the knobs with the best score on the other
  pairs (a same-thing pair found +1, two different things grouped -``WRONG_GROUPING``; ties:
  the most cautious) decide the left-out pair (``read_time``);
- **changes by a difference** (``CHANGE_MIN``): a difference takes the closest fact it
  resolves against at ``CHANGE_MIN`` or more; the middle of the best knobs on the other
  statements decides the left-out one.

With several files, the learners of all of them are pooled.
"""

from __future__ import annotations

import argparse
import json
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from agent.language import about, same_thing
from agent.language.differences import resolve_change
from agent.language.encoder import encode
from agent.language.shifts import shift

SETS = Path(__file__).parent / "cognitive" / "sets"
DEFAULT = [SETS / "fact_pairs.json", SETS / "fact_pairs_about.json", SETS / "fact_pairs_compound.json"]
MINS = [round(x, 2) for x in np.arange(0.40, 1.001, 0.01)]
MARGINS = [round(x, 2) for x in np.arange(0.0, 0.41, 0.05)]
WRONG_COST = 100
"""A wrong retirement loses data; a miss is shown by the read-time net."""
WRITE_SLACK = 1
"""Write time: the most cautious knobs within one right retirement of the best (one wrong
retirement in leave-one-out with the best alone: a single statement held the line)."""
WRONG_GROUPING = 1
"""Read time: a wrong grouping marks a current fact "was until", a miss shows the old value
first; both only reorder, so they cost the same."""
COSINE_ALONE = 0.49
"""The read-time rule before the about-reader (cosine alone), reported beside the chosen one."""
NETS = [round(x, 2) for x in np.arange(0.40, 0.91, 0.02)]
VALUES = [round(x, 2) for x in np.arange(0.30, 0.91, 0.02)]
SURES = [round(x, 2) for x in np.arange(0.30, 0.96, 0.05)]
FLOORS = [round(x, 2) for x in np.arange(0.0, 0.51, 0.05)]


def _shared(texts: tuple[str, str], probs: tuple[np.ndarray, np.ndarray], classes: list[str]) -> float:
    """How sure two statements are to tell one part of the learner's life (``about.parts``).

    The highest, over the parts besides ``other``, of the lower of their two probabilities;
    -1 when one adds a value ("too", "also").
    """
    if any(same_thing._ADDED.search(t) for t in texts):
        return -1.0
    lower = np.minimum(*probs)
    return float(np.where(np.array(classes) == about.OTHER, -1.0, lower).max())


def _sure_of_slot(text: str, probs: np.ndarray, classes: list[str]) -> np.ndarray:
    """``probs`` with the part of ``text``'s rule-table slot at 1 (``same_thing.told_parts``)."""
    part = same_thing.slot_part(text)
    return np.where(np.array(classes) == part, 1.0, probs) if part else probs


def _cases(paths: list[Path], *, per_clause: bool = True) -> list[dict]:
    cases = []
    for path in paths:
        for learner in json.loads(path.read_text())["learners"]:
            facts = learner["facts"]
            vectors = encode(facts)
            classes, fact_probs = about.probabilities(vectors, facts if per_clause else None)
            fact_probs = np.array(
                [_sure_of_slot(f, row, classes) for f, row in zip(facts, fact_probs, strict=True)]
            )
            for new in learner["new"]:
                vector = encode([new["text"]])
                scores = [float(s) for s in vectors @ vector[0]]
                _, [new_probs] = about.probabilities(vector, [new["text"]] if per_clause else None)
                new_probs = _sure_of_slot(new["text"], new_probs, classes)
                parts = [
                    _shared((fact, new["text"]), (row, new_probs), classes)
                    for fact, row in zip(facts, fact_probs, strict=True)
                ]
                cases.append(
                    {"text": new["text"], "facts": facts, "scores": scores, "parts": parts}
                    | {"replaces": new["replaces"]}
                )
    return cases


def _retire(case: dict, low: float, margin: float) -> int | None:
    same_thing.RETIRE_MIN, same_thing.RETIRE_MARGIN = low, margin
    return same_thing.retire_choice(case["text"], case["facts"], case["scores"])


def write_time(cases: list[dict]) -> dict:
    """Leave-one-out over the new statements (module docstring)."""
    grid = [(low, margin) for low in MINS for margin in MARGINS]  # from the least to the most cautious
    picks = [[_retire(case, *k) for case in cases] for k in grid]
    gain = np.array(
        [
            [
                0 if got is None else (1 if got == case["replaces"] else -WRONG_COST)
                for got, case in zip(row, cases, strict=True)
            ]
            for row in picks
        ]
    )
    outcome = {"right": 0, "wrong": 0, "missed": 0, "kept": 0}
    chosen = _loo(gain, slack=WRITE_SLACK)
    for i, (case, g) in enumerate(zip(cases, chosen, strict=True)):
        got = picks[g][i]
        if got is None:
            outcome["missed" if case["replaces"] is not None else "kept"] += 1
        else:
            outcome["right" if got == case["replaces"] else "wrong"] += 1
    best = _on_all(gain, slack=WRITE_SLACK)
    return outcome | {"knobs_chosen": sorted({grid[g] for g in chosen}), "chosen_on_all": grid[best]}


def _loo(gain: np.ndarray, *, slack: int = 0, middle: bool = False) -> list[int]:
    """For each item, the index of the best knobs on the other items (rows of ``gain``).

    ``gain[g, i]``: what item ``i`` adds to the score of knobs ``g``, the knobs ordered from
    the least to the most cautious. Among the knobs within ``slack`` of the best score, the
    most cautious wins, or with ``middle`` (a one-knob grid) the middle one.
    """
    total = gain.sum(axis=1)
    chosen = []
    for i in range(gain.shape[1]):
        rest = total - gain[:, i]
        near = np.flatnonzero(rest >= rest.max() - slack)
        chosen.append(int(near[len(near) // 2] if middle else near[-1]))
    return chosen


def _on_all(gain: np.ndarray, *, slack: int = 0, middle: bool = False) -> int:
    """The knobs ``_loo`` would choose with no item left out."""
    return _loo(np.concatenate([gain, np.zeros((gain.shape[0], 1))], axis=1), slack=slack, middle=middle)[-1]


def read_time(cases: list[dict]) -> dict:
    """Leave-one-out over (statement, fact) pairs: ``NET_SAME``, ``VALUE_MIN``, ``SURE``, ``ABOUT_FLOOR``.

    Same thing: cosine at least ``NET_SAME``; or at least ``VALUE_MIN`` with a new value of the
    same kind (``same_thing.new_value_of_kind``); or both statements sure to be about
    one part of the learner's life at ``ABOUT_FLOOR`` or more; never a statement that adds a
    value beside the other ("too", "also": ``same_thing._ADDED``) or names another item of a
    series (``same_thing.other_instance``). Score of a choice: same-thing pairs found
    minus ``WRONG_GROUPING`` per pair of different things grouped.
    """
    items = [
        (s, part, j == c["replaces"])
        for c in cases
        for j, (s, part) in enumerate(zip(c["scores"], c["parts"], strict=True))
    ]
    new_value = np.array(
        [same_thing.new_value_of_kind(c["text"], fact) for c in cases for fact in c["facts"]]
    )
    added = np.array(
        [
            bool(same_thing._ADDED.search(c["text"])) or same_thing.other_instance(c["text"], fact, both=True)
            for c in cases
            for fact in c["facts"]
        ]
    )
    score = np.where(added, -1.0, np.array([s for s, _, _ in items]))
    same = np.array([t for _, _, t in items])
    part_p = np.array([p for _, p, _ in items])
    grid = [(n, v, sure, floor) for n in NETS for v in VALUES for sure in SURES for floor in FLOORS]
    got = np.array(
        [
            (score >= n) | (new_value & (score >= v)) | ((part_p >= sure) & (score >= floor))
            for n, v, sure, floor in grid
        ],
        dtype=bool,
    )
    gain = np.where(same, 1, -WRONG_GROUPING)[None, :] * got
    chosen = _loo(gain)
    decided = np.array([got[g, i] for i, g in enumerate(chosen)])
    best = _on_all(gain)
    alone = score >= COSINE_ALONE
    return {
        "pairs": len(items),
        "same_thing_found": f"{int((decided & same).sum())}/{int(same.sum())}",
        "different_grouped": f"{int((decided & ~same).sum())}/{int((~same).sum())}",
        "knobs_chosen": sorted({grid[g] for g in chosen}),
        "chosen_on_all": dict(zip(("net_same", "value_min", "sure", "floor"), grid[best], strict=True)),
        f"cosine_alone_at_{COSINE_ALONE}": {
            "found": int((alone & same).sum()),
            "different_grouped": int((alone & ~same).sum()),
        },
    }


def changes(cases: list[dict]) -> dict:
    """Leave-one-out for ``CHANGE_MIN`` (a difference takes the closest fact it resolves against above it)."""
    when = datetime(2026, 1, 5, tzinfo=UTC)
    found = []
    for case in cases:
        if shift(case["text"]) is None:
            continue
        resolving = [
            (s, j)
            for j, (fact, s) in enumerate(zip(case["facts"], case["scores"], strict=True))
            if resolve_change(case["text"], fact, old_at=when, new_at=when)
        ]
        found.append((sorted(resolving, reverse=True), case["replaces"]))
    grid = [round(x, 2) for x in np.arange(0.20, 0.81, 0.01)]

    def outcome(item: tuple, low: float) -> str:
        above = [j for s, j in item[0] if s >= low]
        if not above:
            return "missed" if item[1] is not None else "kept"
        return "right" if above[0] == item[1] else "wrong"

    gain = np.array(
        [[{"right": 1, "wrong": -WRONG_COST}.get(outcome(f, low), 0) for f in found] for low in grid]
    )
    chosen = _loo(gain, middle=True)
    tally = {"right": 0, "wrong": 0, "missed": 0, "kept": 0}
    for f, g in zip(found, chosen, strict=True):
        tally[outcome(f, grid[g])] += 1
    best = _on_all(gain, middle=True)
    return tally | {"knobs_chosen": sorted({grid[g] for g in chosen}), "chosen_on_all": grid[best]}


def main() -> None:
    """Print the leave-one-out report as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=DEFAULT)
    parser.add_argument("--whole", action="store_true", help="read what a statement is about as a whole only")
    args = parser.parse_args()
    cases = _cases(args.paths, per_clause=not args.whole)
    report = {"write_time": write_time(cases), "read_time": read_time(cases)}
    report["changes"] = changes(cases)
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
