"""Leave-one-out choice of the question-conditioned knobs (``question_net.ANSWER_*``, ``versions.ANSWER_*``).

``python -m bench.readnet_knobs`` reads two kinds of dev material:

- **question pairs** (``bench/cognitive/sets/question_pairs.json``, written for KAG): a question,
  an older and a newer statement, and whether the newer gives a new value of what is asked
  (hard negatives: two things that both hold, someone else's value, an unrelated newer mention);
- **scenario probes** of the cognitive sets (``DEV_SETS``): every statement sentence a learner
  said before the probe (what the write stores, roughly: one fact per sentence, in session
  order), ranked by cosine with the query as a fact search would, the read-time net applied, and
  the probe's ``first`` condition checked on the top statement (L5 and L6 probes, no ``as_of``).

**Net** (``ANSWER_MARGIN``, ``ANSWER_FLOOR``): per held-out item, the knobs best on all the others
decide it (a probe passed +1; a question pair grouped: +1 when it is one thing, -``WRONG`` when
not; ties: the smaller margin, the higher floor). **Intents** (``versions.Knobs.answer_*``): the
same over the scenario probes whose words ask one value (the level's intent,
``bench.cognitive.metacognition.EXPECTED_INTENTS``) and ``intents_memory.json``. **Kinds**
(``answer_kinds.MARGIN``, ``FLOOR``): two statements of one message (``question_pairs_kinds.json``),
right when the one holding the kind of value asked goes first exactly when it should.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from agent.language import answer_kinds, intents, same_thing
from agent.language import versions as v
from agent.language.current_versions import not_current, other_group
from agent.language.encoder import encode
from agent.language.question_net import answer_groups
from agent.language.questions import is_question
from agent.language.sentences import split_sentences
from bench.cognitive.metacognition import EXPECTED_INTENTS
from bench.language.memory import Written
from bench.language.memory import versions as written_versions

SETS = Path(__file__).parent / "cognitive" / "sets"
DEV_SETS = [
    Path(__file__).resolve().parents[2] / "shared" / "bench" / "cognitive_dev.json",
    *(
        SETS / f"{name}.json"
        for name in (
            "heldout3",
            "heldout4",
            "heldout5",
            "language_dev",
            "language_heldout",
            "facts_heldout2",
            "reminders_intents_heldout2",
        )
    ),
]
PAIRS = SETS / "question_pairs.json"
KIND_PAIRS = SETS / "question_pairs_kinds.json"
WRONG = 2
"""A miss shows a stale value first; a wrong grouping shows another value first AND marks one that
still holds "was until": twice the harm. (At cost 1 the knobs were 0.40/0.05: 27 of 38 hard
negatives grouped against 23 at cost 2, for one scenario probe more.)"""
MARGINS = [round(x, 2) for x in np.arange(0.0, 0.47, 0.02)]
FLOORS = [round(x, 2) for x in np.arange(0.0, 0.46, 0.05)]


def _statements(sessions: list[dict[str, Any]], upto: str) -> list[str]:
    """The statement sentences of the learner's messages up to session ``upto``, oldest first."""
    found: list[str] = []
    for session in sessions:
        for message in session["learner"]:
            found += [s for s in split_sentences(message) if not is_question(s)]
        if session["id"] == upto:
            break
    return found


def scenario_probes(paths: list[Path]) -> list[dict[str, Any]]:
    """Every probe of ``paths`` with what the learner stated before it (module docstring)."""
    probes = []
    for path in paths:
        if not path.exists():
            continue
        for scenario in json.loads(path.read_text())["scenarios"]:
            for probe in scenario.get("probes", []):
                if probe.get("as_of"):
                    continue
                texts = _statements(scenario["sessions"], probe["after"])
                if not texts:
                    continue
                question = v.as_learner(probe["query"])
                rows, [asked] = encode(texts), encode([question])
                probes.append(
                    {
                        "level": scenario["level"],
                        "query": probe["query"],
                        "first": bool(probe.get("first")) and scenario["level"] in ("L5", "L6"),
                        "expect": [s.lower() for s in probe["expect"][0]["all"]],
                        "texts": texts,
                        "rows": rows,
                        "sims": rows @ asked,
                        "old": same_thing.disagreeing(texts, rows),
                    }
                )
    return probes


def _top(item: dict[str, Any], margin: float, floor: float) -> str:
    """The statement the net puts first, with the statements ranked by cosine with the query."""
    order = [int(i) for i in np.argsort(-item["sims"], kind="stable")][:10]
    texts = [item["texts"][i] for i in order]
    asked = item["sims"][order]
    old = [[order.index(i) for i in g if i in order] for g in item["old"]]
    groups = same_thing.merged(
        [g for g in old if len(g) > 1] + answer_groups(asked, texts, margin=margin, floor=floor)
    )
    group = next((g for g in groups if 0 in g), [0])
    # the learner's values newest first, then plans, hedges and others' values (fact_order.newest_first)
    aside = {i for i in group if not_current(texts[i])}
    kept = [i for i in group if i not in aside]
    aside |= {i for i in kept if other_group(texts[i], [texts[k] for k in kept if k != i])}
    learners = sorted((i for i in group if i not in aside), key=lambda i: order[i])
    return texts[learners[-1]] if learners else texts[0]  # newest: said last


def _loo(gain: np.ndarray, grid: list[tuple[Any, ...]]) -> list[int]:
    """Per item, the knobs best on the others (ties: the first in ``grid``, the most cautious)."""
    total = gain.sum(axis=1)
    return [int(np.argmax(total - gain[:, i])) for i in range(gain.shape[1])]


def net_report(probes: list[dict[str, Any]], pairs: list[dict[str, Any]]) -> dict[str, Any]:
    """Leave-one-out of ``question_net.ANSWER_MARGIN`` and ``ANSWER_FLOOR``."""
    grid = [(m, f) for m in MARGINS for f in reversed(FLOORS)]
    firsts = [p for p in probes if p["first"]]
    for pair in pairs:
        texts = [pair["older"], pair["newer"]]
        rows, [asked] = encode(texts), encode([v.as_learner(pair["question"])])
        pair["sims"], pair["old"] = rows @ asked, bool(same_thing.disagreeing(texts, rows))
    rows = []
    for margin, floor in grid:
        row = [int(all(s in _top(p, margin, floor).lower() for s in p["expect"])) for p in firsts]
        for pair in pairs:
            texts = [pair["older"], pair["newer"]]
            aside = not_current(pair["newer"]) or other_group(pair["newer"], [pair["older"]])
            grouped = not aside and (
                pair["old"] or bool(answer_groups(pair["sims"], texts, margin=margin, floor=floor))
            )
            row.append((1 if pair["same"] else -WRONG) if grouped else 0)
        rows.append(row)
    gain = np.array(rows)
    chosen = _loo(gain, grid)
    n = len(firsts)
    decided = np.array([gain[g, i] for i, g in enumerate(chosen)])
    cut = grid.index((0.0, FLOORS[-1]))  # margin 0 at the top floor: the question-free net alone
    same = np.array([p["same"] for p in pairs])
    old = np.array([p["old"] for p in pairs])
    return {
        "probes": n,
        "probes_passed_loo": int(decided[:n].sum()),
        "probes_passed_question_free": int(gain[cut, :n].sum()),
        "pairs_same_found_loo": f"{int((decided[n:] > 0).sum())}/{int(same.sum())}",
        "pairs_different_grouped_loo": f"{int((decided[n:] < 0).sum())}/{int((~same).sum())}",
        "pairs_question_free": f"found {int((old & same).sum())}, wrongly grouped {int((old & ~same).sum())}",
        "knobs_chosen": sorted({grid[g] for g in chosen}),
        "chosen_on_all": grid[int(np.argmax(gain.sum(axis=1)))],
    }


def intent_report(probes: list[dict[str, Any]], path: Path = SETS / "intents_memory.json") -> dict[str, Any]:
    """Leave-one-out of ``versions.Knobs.answer_margin`` and ``answer_floor`` (module docstring)."""
    items = []
    for p in probes:
        words, ask = intents.reading(p["query"])
        if ask and p["level"] in EXPECTED_INTENTS:
            items.append(
                (words, p["sims"], [Written(t) for t in p["texts"]], p["rows"], EXPECTED_INTENTS[p["level"]])
            )
    scenario_items = len(items)
    for item in json.loads(path.read_text())["items"]:
        facts = written_versions(item)
        rows = encode([f.content for f in facts])
        sims = rows @ encode([v.as_learner(item["question"])])[0]
        items.append((intents.reading(item["question"])[0], sims, facts, rows, {item["intent"]}))
    grid = [(None, 0.0)] + [(m, f) for m in MARGINS if m <= 0.4 for f in reversed(FLOORS) if f >= 0.2]
    gain = np.array(
        [
            [
                int(v.settle(w, v.held(s, fs, r, v.Knobs(answer_margin=m, answer_floor=f))) in want)
                for w, s, fs, r, want in items
            ]
            for m, f in grid
        ]
    )
    chosen = _loo(gain, grid)
    decided = np.array([gain[g, i] for i, g in enumerate(chosen)])
    return {
        "scenario_questions": scenario_items,
        "memory_items": len(items) - scenario_items,
        "loo_scenario": int(decided[:scenario_items].sum()),
        "loo_memory": int(decided[scenario_items:].sum()),
        "without_the_question_net": [
            int(gain[0, :scenario_items].sum()),
            int(gain[0, scenario_items:].sum()),
        ],
        "knobs_chosen": sorted({str(grid[g]) for g in chosen}),
        "chosen_on_all": grid[int(np.argmax(gain.sum(axis=1)))],
    }


def kinds_report(path: Path = KIND_PAIRS) -> dict[str, Any]:
    """Leave-one-out of ``answer_kinds.MARGIN`` and ``FLOOR`` over two statements of one message.

    An item is right when ``answer_order`` moves the other statement first exactly when it should
    (``move``); a wrong move costs ``WRONG`` (the right answer leaves first place).
    """
    items = json.loads(path.read_text())["items"]
    for item in items:
        texts = [item["first"], item["other"]]
        item["texts"] = texts
        item["movable"] = [True, not not_current(item["other"])]  # as the fact store reads it
        item["sims"] = encode(texts) @ encode([v.as_learner(item["question"])])[0]
    margins = [round(x, 2) for x in np.arange(0.0, 0.62, 0.05)]
    grid = [(m, f) for m in margins for f in reversed(FLOORS)]
    rows = []
    for margin, floor in grid:
        row = []
        for item in items:
            moved = answer_kinds.answer_order(
                item["question"],
                item["texts"],
                item["sims"],
                ["t", "t"],
                item["movable"],
                margin=margin,
                floor=floor,
            )
            right = (moved == 1) == item["move"]
            row.append(1 if right else -WRONG if moved == 1 else 0)
        rows.append(row)
    gain = np.array(rows)
    chosen = _loo(gain, grid)
    decided = np.array([gain[g, i] for i, g in enumerate(chosen)])
    should = np.array([i["move"] for i in items])
    never = np.array(
        [0 if i["move"] else 1 for i in items]
    )  # keeping the search's order: every item that should not move is right
    return {
        "items": len(items),
        "right_loo": int((decided > 0).sum()),
        "moved_wrongly_loo": f"{int((decided < 0).sum())}/{int((~should).sum())}",
        "missed_loo": f"{int(((decided == 0) & should).sum())}/{int(should.sum())}",
        "right_without": int(never.sum()),
        "knobs_chosen": sorted({grid[g] for g in chosen}),
        "chosen_on_all": grid[int(np.argmax(gain.sum(axis=1)))],
    }


def main() -> None:
    """Print both reports as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="*", type=Path, default=DEV_SETS)
    args = parser.parse_args()
    probes = scenario_probes(args.sets)
    pairs = json.loads(PAIRS.read_text())["items"]
    print(
        json.dumps(
            {"net": net_report(probes, pairs), "intents": intent_report(probes), "kinds": kinds_report()},
            indent=1,
            default=str,
        )
    )


if __name__ == "__main__":
    main()
