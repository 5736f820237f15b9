"""Procedures told as a sequence (issue 39, L4): the score over a forms set, and its knobs by leave-one-out.

``python -m bench.procedure_knobs [bench/cognitive/sets/procedures_forms.json]``

The set (``kag-procedure-forms-v1``) holds:

- ``statements``: the learner's previous message (``context``), a message telling a procedure,
  the words its steps must hold in order (``expect``) and a ``request`` for it. A statement
  passes when the offline policy's readers store a procedure from it
  (``procedures.parse_procedure``, else ``told_procedures.told_procedure``), its text
  ("How to <name>: 1. …") holds the words in order, and the request would find it: the
  procedure store keeps a vector-only candidate at cosine ``MIN_COSINE`` (MiniLM, request vs
  text), or full text finds a word of the request's query in it;
- ``negatives``: a story of one time, someone else's routine, a plan, facts: no procedure;
- ``requests``: whether ``procedures.is_procedure_request`` reads a question as a request for
  the learner's own steps (``asks``).

The knobs of ``agent.language.told_procedures`` (``HABIT_SHARE``, ``LEARNER_SHARE``,
``MIN_STEPS_ONE_CUE``, ``NAME_MIN``) are chosen by leave-one-out over statements and negatives:
each item is scored with the values that do best on the others (ties: the shipped value).
"""

from __future__ import annotations

import itertools
import json
import re
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

from agent.language import told_procedures as told
from agent.language.encoder import encode
from agent.language.procedures import is_procedure_request, parse_procedure, procedure_query
from agent.language.sentences import sentence_spans
from agent.memory.procedures import MIN_COSINE, procedure_text

DEFAULT_SET = Path(__file__).parent / "cognitive" / "sets" / "procedures_forms.json"
GRID: dict[str, tuple[float, ...]] = {
    "HABIT_SHARE": (0.5, 0.6, 0.7, 0.8),
    "LEARNER_SHARE": (0.34, 0.5, 0.67),
    "MIN_STEPS_ONE_CUE": (2, 3, 4),
    "NAME_MIN": (0.1, 0.2, 0.3, 0.4),
}


@contextmanager
def knobs(values: Mapping[str, float]) -> Iterator[None]:
    """``told_procedures`` with ``values`` for its knobs (restored after)."""
    saved = {name: getattr(told, name) for name in values}
    try:
        for name, value in values.items():
            setattr(told, name, value)
        yield
    finally:
        for name, value in saved.items():
            setattr(told, name, value)


def stored(context: str, message: str) -> tuple[str, list[str]] | None:
    """``(name, steps)`` the offline policy stores for ``message``, as ``procedure_actions`` reads it."""
    spans = sentence_spans(message)
    for start, _ in reversed(spans):
        parsed = parse_procedure(message[start:])
        if parsed is not None:
            return parsed
    found = told.told_procedure([s for _, s in spans], context)
    return (found.name, found.steps) if found is not None else None


def in_order(text: str, words: list[str]) -> bool:
    """Every word in ``text``, each after the previous one (case-insensitive)."""
    at = 0
    for word in words:
        found = text.lower().find(word.lower(), at)
        if found < 0:
            return False
        at = found + len(word)
    return True


@lru_cache(maxsize=4096)
def findable(request: str, text: str) -> bool:
    """The procedure store would keep the procedure for the request (cosine or a shared query word)."""
    vectors = encode([request, text])
    shared = {w.lower() for w in re.findall(r"\w+", procedure_query(request))} & {
        w.lower() for w in re.findall(r"\w+", text)
    }
    return float(vectors[0] @ vectors[1]) >= MIN_COSINE or len(shared - {"i", "my", "do", "how"}) > 0


def score_item(kind: str, item: Mapping[str, Any]) -> tuple[bool, str]:
    """``(passed, what was stored)`` for one statement or negative."""
    found = stored(item.get("context", ""), item["message"])
    if kind == "negatives":
        return found is None, "" if found is None else procedure_text(*found)
    if found is None:
        return False, "nothing stored"
    text = procedure_text(*found)
    ok = in_order(text, item["expect"]) and findable(item["request"], text)
    return ok, text


def items(data: Mapping[str, Any]) -> list[tuple[str, Mapping[str, Any]]]:
    """Statements and negatives, tagged with their kind."""
    return [(kind, item) for kind in ("statements", "negatives") for item in data[kind]]


def leave_one_out(data: Mapping[str, Any]) -> tuple[int, int, dict[str, list[float]]]:
    """``(passed, total, chosen values per knob)`` when each item is scored with the others' best knobs."""
    names = list(GRID)
    shipped = tuple(getattr(told, n) for n in names)
    combos = list(itertools.product(*GRID.values()))
    table: dict[tuple[float, ...], list[bool]] = {}
    for combo in combos:
        with knobs(dict(zip(names, combo, strict=True))):
            table[combo] = [score_item(kind, item)[0] for kind, item in items(data)]
    passed, chosen = 0, {n: [] for n in names}
    for held in range(len(items(data))):

        def others(combo: tuple[float, ...], held: int = held) -> tuple[int, bool]:
            return sum(ok for i, ok in enumerate(table[combo]) if i != held), combo == shipped

        best = max(combos, key=others)
        passed += table[best][held]
        for name, value in zip(names, best, strict=True):
            chosen[name].append(value)
    return passed, len(items(data)), chosen


def main(path: str | None = None) -> int:
    """Print the score at the shipped knobs, the requests' score, and the leave-one-out score."""
    data = json.loads(Path(path or DEFAULT_SET).read_text(encoding="utf-8"))
    for kind, item in items(data):
        ok, text = score_item(kind, item)
        print(f"{'ok  ' if ok else 'FAIL'} {kind[:3]} {item['id']}: {text[:160]}")
    results = [(r["text"], is_procedure_request(r["text"]) == r["asks"]) for r in data["requests"]]
    for text, ok in results:
        print(f"{'ok  ' if ok else 'FAIL'} req {text}")
    by_kind = {
        kind: sum(score_item(kind, item)[0] for item in data[kind]) for kind in ("statements", "negatives")
    }
    print(f"statements {by_kind['statements']}/{len(data['statements'])}")
    print(f"negatives {by_kind['negatives']}/{len(data['negatives'])}")
    print(f"requests {sum(ok for _, ok in results)}/{len(results)}")
    if "--no-loo" in sys.argv:
        return 0
    passed, total, chosen = leave_one_out(data)
    print(f"leave-one-out {passed}/{total}")
    for name, values in chosen.items():
        print(f"  {name}: shipped {getattr(told, name)}, chosen {sorted(set(values))}")
    return 0


if __name__ == "__main__":
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    raise SystemExit(main(paths[0] if paths else None))
