r"""Knobs of a reminder topic named in other words, by leave-one-out over the reminder sets.

A turn may name a reminder's topic without its words (``agent.language.trigger_sense``:
``_names_by_meaning``): a phrase as near the topic as ``MEANING_THRESHOLD`` by MiniLM, a form of a
topic word in the language learnt (``topic_words.COGNATE_DICE``), or a short English form
(``topic_words.COGNATE_ZIPF``). The three are chosen together by leave-one-out over the given
sets' scenarios (each scored with the knobs that make the fewest errors on all the others:
a missed fire, a false fire, a second fire), replayed through the language layer as
``bench.reminder_knobs`` does (the sense knobs stay as they are). Then reported on every set.

    S=bench/cognitive/sets
    .venv/bin/python -m bench.reminder_meaning_knobs $(ls $S/reminders_*.json $S/heldout*.json \
        $S/language_*.json | grep -v other_words_frozen) ../shared/bench/cognitive_dev.json

``reminders_other_words_frozen.json`` was written after the knobs were frozen and is only reported.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agent.language import grammar, reminder_turns, topic_words, trigger_sense
from bench import reminder_knobs

OFF = 9.0
"""A value no similarity reaches: the reading turned off."""
MEANINGS = [*(round(x, 2) for x in np.arange(0.62, 0.91, 0.02)), OFF]
DICES = [0.5, 0.6, 0.7, OFF]
ZIPFS = [0.0, 3.0, 3.5, 4.0]
GRID = [(m, d, z) for m in MEANINGS for d in DICES for z in ZIPFS]


def _set(knobs: tuple[float, float, float]) -> None:
    trigger_sense.MEANING_THRESHOLD, topic_words.COGNATE_DICE, topic_words.COGNATE_ZIPF = knobs


def _memoise() -> None:
    """Keep every parse and every phrase vector for the run: each knob replays the same turns."""
    reminder_knobs._memoise_sense()
    trigger_sense.parse = reminder_turns.parse = lru_cache(maxsize=None)(grammar.parse)
    reminder_turns.said_for_later = trigger_sense.said_for_later = lru_cache(maxsize=None)(
        reminder_turns.said_for_later
    )
    encode = trigger_sense.encode
    cached = lru_cache(maxsize=None)(lambda texts: encode(list(texts)))
    trigger_sense.encode = lambda texts: cached(tuple(texts))
    trigger_sense.encode_kept = trigger_sense.encode


def main(argv: list[str] | None = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Choose the three knobs by leave-one-out and report them on every set."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sets", nargs="+", help="kag-cognitive-v1 sets with reminder checks")
    args = parser.parse_args(argv)
    _memoise()
    now = (trigger_sense.MEANING_THRESHOLD, topic_words.COGNATE_DICE, topic_words.COGNATE_ZIPF)
    sense = (trigger_sense.SENSE_THRESHOLD, trigger_sense.RARE_ZIPF)
    by_set = {p: reminder_knobs._load(p) for p in args.sets}
    scenarios = [s for found in by_set.values() for s in found]
    errors: dict[tuple[float, float, float], list[int]] = {}
    for knobs in GRID:
        _set(knobs)
        errors[knobs] = [reminder_knobs.score([s], sense)["errors"] for s in scenarios]
    total = {k: sum(e) for k, e in errors.items()}
    chosen, loo = [], 0
    for i in range(len(scenarios)):
        rest = {k: total[k] - errors[k][i] for k in GRID}
        ties = [k for k in GRID if rest[k] == min(rest.values())]
        pick = ties[len(ties) // 2]
        chosen.append(pick)
        loo += errors[pick][i]
    best = min(total.values())
    ties = [k for k in GRID if total[k] == best]
    report: dict[str, Any] = {
        "leave_one_out_errors": loo,
        "folds_chose": sorted(set(chosen)),
        "best_on_all": ties,
        "errors_now": total.get(now),
        "knobs_now": now,
        "sets": {},
    }
    _set(now)
    for path, found in by_set.items():
        got = reminder_knobs.score(found, sense)
        report["sets"][Path(path).stem] = {k: got[k] for k in ("fires_once", "false_fires")}
    echo(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
