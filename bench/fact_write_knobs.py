"""``python -m bench.fact_write_knobs``: what a learner's message stores as a fact (issue 39, write side).

1. **OWN_VALUE by leave-one-out** over ``agent.language.fact_exemplars``: each exemplar read by
   a classifier trained on the others; the threshold of ``own_values.owns_a_value`` is the one with the
   most right answers over those readings (each exemplar's own reading judged with the threshold
   the others chose, so the reported accuracy is not the one the threshold was chosen on).
2. **The write side on sentences of its own** (``bench/cognitive/sets/fact_writes.json``, written
   for KAG and never used to train): precision and recall per class of what is stored, at each
   threshold of the grid (the classifier trained on every exemplar); and on
   ``fact_writes_heldout.json``, written after the method was frozen and scored once:

   - ``split``: a sentence that asks stores its statement part (``fact_parts.stated_part``);
   - ``parts``: a compound statement's clause holding a value is not stored in the name slot
     (``fact_parts.fact_parts``, ``facts.fact_slot``), and one with nothing more to tell stays as it was;
   - ``plain``: a statement with no first-person word is stored (``facts.is_fact_statement``).

3. **Whose value, and whether now** (``agent.language.current_values``): ``MAYBE_MIN`` and
   ``PERSON_MIN`` by leave-one-out over ``agent.language.current_exemplars`` (as for
   ``OWN_VALUE``), and ``fact_writes_whose.json`` (plans and hedges, another person's value, a new
   value inside a longer message) read through the offline policy's plan: is ``value`` in a stored fact.
4. **Whose value** (``agent.language.whose_value.whose``) on ``fact_writes_owners.json``: kin,
   colleagues, friends by name, teams and groups, possessives, pronoun subjects, mixed messages
   and another quoting the learner's own value, on the write side (``owners``) and the read
   side (``owners.read``: ``current_versions.not_current``).
5. **A goal, not a maybe** (``current_values.goal``): ``GOAL_MIN`` by leave-one-out over ``GOALS``
   against ``CHANGES`` + ``ASIDES``, and ``fact_writes_goals.json`` (targets told as plans or wishes,
   stored; maybes of a value the learner has, not stored) read the same way.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from agent.language import current_values, fact_parts, facts, own_values
from agent.language.about import train
from agent.language.current_exemplars import ASIDES, CHANGES, GOALS, MAYBE, PEOPLE, SO, THINGS
from agent.language.encoder import encode
from agent.language.fact_exemplars import NOT_OWN, OWN

SET = Path(__file__).resolve().parent / "cognitive" / "sets" / "fact_writes.json"
HELDOUT = SET.with_name("fact_writes_heldout.json")
WHOSE = SET.with_name("fact_writes_whose.json")
GOALS_SET = SET.with_name("fact_writes_goals.json")
OWNERS = SET.with_name("fact_writes_owners.json")
TOOLS = frozenset({"remember_fact", "search_facts", "set_reminder", "archival_memory_insert"})
GRID = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)


def _loo_probabilities(
    yes: tuple[str, ...] = OWN, no: tuple[str, ...] = NOT_OWN
) -> tuple[np.ndarray, np.ndarray]:
    """Each exemplar's probability of ``own`` (of ``yes``), from a classifier trained on all the others."""
    texts, labels = [*yes, *no], np.array([1] * len(yes) + [0] * len(no))
    vectors = encode(texts)
    probs = np.zeros(len(texts))
    for i in range(len(texts)):
        keep = [j for j in range(len(texts)) if j != i]
        model = train([texts[j] for j in keep], ["own" if labels[j] else "not" for j in keep])
        column = list(model.classes_).index("own")
        probs[i] = model.predict_proba(vectors[i : i + 1])[0, column]
    return probs, labels


def _best(probs: np.ndarray, labels: np.ndarray) -> float:
    """The grid threshold with the most right answers (ties: the lower)."""
    return max(GRID, key=lambda t: (int(((probs >= t) == labels.astype(bool)).sum()), -t))


def threshold_report(yes: tuple[str, ...] = OWN, no: tuple[str, ...] = NOT_OWN) -> dict[str, Any]:
    """Leave-one-out accuracy per threshold, and of choosing the threshold without each exemplar."""
    probs, labels = _loo_probabilities(yes, no)
    per = {str(t): int(((probs >= t) == labels.astype(bool)).sum()) for t in GRID}
    nested = 0
    for i in range(len(probs)):
        rest = np.arange(len(probs)) != i
        nested += int((probs[i] >= _best(probs[rest], labels[rest])) == bool(labels[i]))
    return {
        "exemplars": len(probs),
        "right_per_threshold": per,
        "chosen": _best(probs, labels),
        "nested": nested,
    }


def _stored(kind: str, item: dict[str, Any]) -> bool:
    text, value = item["text"], item.get("value", "")
    if kind == "split":
        head = fact_parts.stated_part(text)
        return head is not None and value in head
    if kind == "parts":  # the value's clause is not in the name slot; a sentence without one is not split
        parts = fact_parts.fact_parts(text)
        if item["store"]:
            return any(value in p and facts.fact_slot(p) != facts.NAME_SLOT for p in parts)
        return len(parts) > 1 or (
            facts.NAMES.search(text) is not None and facts.fact_slot(text) != facts.NAME_SLOT
        )
    return facts.is_fact_statement(text)


def set_report(threshold: float, path: Path = SET) -> dict[str, Any]:
    """Precision and recall of storing, per class of ``path`` (``fact_writes.json``), at ``threshold``."""
    data = json.loads(path.read_text(encoding="utf-8"))
    kept, own_values.OWN_VALUE = own_values.OWN_VALUE, threshold
    try:
        out: dict[str, Any] = {}
        for kind in ("split", "parts", "plain"):
            rows = [(bool(item["store"]), _stored(kind, item), item["text"]) for item in data[kind]]
            tp = sum(g and p for g, p, _ in rows)
            fp = sum(p and not g for g, p, _ in rows)
            fn = sum(g and not p for g, p, _ in rows)
            out[kind] = {
                "n": len(rows),
                "precision": round(tp / (tp + fp), 3) if tp + fp else None,
                "recall": round(tp / (tp + fn), 3) if tp + fn else None,
                "wrong": [t for g, p, t in rows if g != p],
            }
        return out
    finally:
        own_values.OWN_VALUE = kept


def whose_report(path: Path = WHOSE) -> dict[str, Any]:
    """Per class of ``fact_writes_whose.json``: right answers, and the texts read wrongly."""
    from agent.models.offline_policy import plan_actions

    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for kind in (k for k in data if k != "about"):
        wrong = []
        for item in data[kind]:
            stored = [
                a[1]["content"] for a in plan_actions(item["text"], set(TOOLS), {}) if a[0] == "remember_fact"
            ]
            right = any(item["value"].lower() in f.lower() for f in stored) == item["store"]
            # a mixed message: the other's value ("not") is stored in no fact of the learner's
            right = right and not any(item.get("not", "\0").lower() in f.lower() for f in stored)
            if not right:
                wrong.append({"text": item["text"], "stored": stored})
        out[kind] = {"n": len(data[kind]), "right": len(data[kind]) - len(wrong), "wrong": wrong}
    return out


def owners_read_report(path: Path = OWNERS) -> dict[str, Any]:
    """The read side on ``fact_writes_owners.json``, per class.

    Right when a message is read as no value of the learner's (``current_versions.not_current``) exactly
    when it gives none (a mixed message holds the learner's too).
    """
    from agent.language.current_versions import not_current

    data = json.loads(path.read_text(encoding="utf-8"))
    out: dict[str, Any] = {}
    for kind in (k for k in data if k != "about"):
        wrong = [item["text"] for item in data[kind] if not_current(item["text"]) == item["store"]]
        out[kind] = {"n": len(data[kind]), "right": len(data[kind]) - len(wrong), "wrong": wrong}
    return out


def main() -> None:
    """Print the threshold's leave-one-out and the set's precision and recall as JSON."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", action="store_true", help="the set at every threshold of the grid")
    args = parser.parse_args()
    report: dict[str, Any] = {"threshold": threshold_report(), "at": own_values.OWN_VALUE}
    report["set"] = set_report(own_values.OWN_VALUE)
    report["heldout"] = set_report(own_values.OWN_VALUE, HELDOUT)
    report["maybe_min"] = threshold_report(MAYBE, SO) | {"at": current_values.MAYBE_MIN}
    report["person_min"] = threshold_report(PEOPLE, THINGS) | {"at": current_values.PERSON_MIN}
    report["whose"] = whose_report()
    report["goal_min"] = threshold_report(GOALS, (*CHANGES, *ASIDES)) | {"at": current_values.GOAL_MIN}
    report["goals"] = whose_report(GOALS_SET)
    report["owners"] = whose_report(OWNERS) | {"read": owners_read_report()}
    if args.grid:
        report["grid"] = {
            str(t): {k: v for k, v in set_report(t)["plain"].items() if k != "wrong"} for t in GRID
        }
    print(json.dumps(report, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
