"""Reminder firing knobs by leave-one-out (does a turn name a reminder's trigger in its sense?).

Replays the learner turns of kag-cognitive-v1 sets through the language layer alone (no store,
no heartbeat): each turn that asks for a reminder (``parse_reminder``, sentence by sentence) sets
one, and every other turn is checked against the pending ones as ``ReminderStore.fire`` would
(``trigger_matches``), with the turn's clock. A reminder fires once. Scored on the scenarios'
``reminders`` checks: *fires once* (share of ``fires: true`` checks met) and *false fires*
(share of ``fires: false`` checks where something fired).

Two knobs are chosen together by leave-one-out over the tuning sets' scenarios (each scenario is
scored with the pair best on all the others): the sense threshold (``SENSE_THRESHOLD``) and the
rarity under which a topic word fires without the similarity veto (``RARE_ZIPF``; 0 turns it off).
Both are then reported on every set given, and on a traffic set (kag-intent-traffic/1) as false
fires of every tuning trigger on every ordinary turn.

    S=bench/cognitive/sets
    .venv/bin/python -m bench.reminder_knobs $S/reminders_sense.json $S/heldout4.json $S/heldout5.json \
        $S/reminders_forms.json $S/reminders_other_sense.json $S/reminders_times.json \
        $S/reminders_turns.json $S/reminders_dates.json $S/heldout6.json $S/heldout7.json \
        $S/reminders_local_days.json $S/reminders_fragments.json $S/reminders_told_events.json \
        $S/heldout8.json $S/reminders_homonyms.json $S/reminders_idioms.json \
        --check $S/heldout3.json $S/reminders_sense_frozen.json --traffic $S/traffic_intents.json
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from agent.language import trigger_sense
from agent.language.reminders import parse_reminder
from agent.language.sentences import split_sentences
from agent.memory.reminder_rules import trigger_matches

THRESHOLDS = [round(x, 2) for x in np.arange(0.40, 0.66, 0.01)]
"""Every leave-one-out choice since 2026-11-28 fell in 0.49-0.61; the grid spans that with room."""
RARITIES = [0.0, 1.5, 1.75, 2.0, 2.25, 2.5, 2.75]
"""Zipf cuts for ``RARE_ZIPF``; 0 turns the rarity rule off."""
Knobs = tuple[float, float]
GRID: list[Knobs] = [(t, r) for r in RARITIES for t in THRESHOLDS]


@dataclass
class Turn:
    """One learner turn with what fired on it at each threshold (filled by ``replay``)."""

    session: str
    index: int
    text: str
    when: datetime


def _turns(scenario: dict[str, Any]) -> list[Turn]:
    out = []
    for session in scenario["sessions"]:
        start = datetime.fromisoformat(session["date"])
        for i, text in enumerate(session["learner"]):
            out.append(Turn(session["id"], i, text, start + timedelta(minutes=i)))
    return out


@lru_cache(maxsize=65536)
def _parsed(text: str, now: datetime) -> tuple[dict[str, Any], ...]:
    """The requests of one turn (the same for every knob, so read once)."""
    found = [parse_reminder(s, now=now) for s in split_sentences(text)]
    return tuple(r for r in found if r is not None)


def _requests(text: str, now: datetime) -> list[dict[str, Any]]:
    return [dict(r) for r in _parsed(text, now)]


def _set_knobs(knobs: Knobs) -> Knobs:
    """Set ``(SENSE_THRESHOLD, RARE_ZIPF)`` and return the values they had."""
    saved = (trigger_sense.SENSE_THRESHOLD, trigger_sense.RARE_ZIPF)
    trigger_sense.SENSE_THRESHOLD, trigger_sense.RARE_ZIPF = knobs
    return saved


def replay(scenario: dict[str, Any], knobs: Knobs) -> dict[tuple[str, int], int]:
    """``(session, turn) -> how many reminders fired`` with the knobs ``(threshold, rarity)``."""
    pending: list[dict[str, Any]] = []
    fired: dict[tuple[str, int], int] = {}
    saved = _set_knobs(knobs)
    try:
        for turn in _turns(scenario):
            new = _requests(turn.text, turn.when)
            due = [r for r in pending if trigger_matches(r, turn.text, None, turn.when)]
            pending = [r for r in pending if r not in due] + new
            fired[(turn.session, turn.index)] = len(due)
    finally:
        _set_knobs(saved)
    return fired


def score(scenarios: list[dict[str, Any]], knobs: Knobs) -> dict[str, Any]:
    """Fires once, false fires and failing checks with ``knobs``."""
    hits = fires = false = silent = 0
    failures = []
    for scenario in scenarios:
        fired = replay(scenario, knobs)
        for check in scenario.get("reminders", []):
            n = fired.get((check["session"], check["turn"]), 0)
            if check["fires"]:
                fires += 1
                hits += n == 1
            else:
                silent += 1
                false += n > 0
            if (n == 1) != check["fires"] or n > 1:
                failures.append(f"{scenario['id']} {check['session']}#{check['turn']} fired {n}")
    return {
        "fires_once": f"{hits}/{fires}",
        "false_fires": f"{false}/{silent}",
        "errors": (fires - hits) + false,
        "failures": failures,
    }


def leave_one_out(scenarios: list[dict[str, Any]]) -> dict[str, Any]:
    """Each scenario scored with the knobs that make the fewest errors on all the others."""
    errors = {t: [score([s], t)["errors"] for s in scenarios] for t in GRID}
    total = {t: sum(e) for t, e in errors.items()}
    chosen, loo_errors, counts = [], 0, [0, 0, 0, 0]
    for i, scenario in enumerate(scenarios):
        rest = {t: total[t] - errors[t][i] for t in GRID}
        best = min(rest.values())
        ties = [t for t in GRID if rest[t] == best]
        pick = ties[len(ties) // 2]  # the middle of the best interval
        chosen.append(pick)
        loo_errors += errors[pick][i]
        held = score([scenario], pick)
        for j, part in enumerate([*held["fires_once"].split("/"), *held["false_fires"].split("/")]):
            counts[j] += int(part)
    best_all = min(total.values())
    ties = [t for t in GRID if total[t] == best_all]
    return {
        "loo_errors": loo_errors,
        "loo_fires_once": f"{counts[0]}/{counts[1]}",
        "loo_false_fires": f"{counts[2]}/{counts[3]}",
        "chosen": sorted(set(chosen)),
        "best_interval": [ties[0], ties[-1]],
        "full_set_choice": ties[len(ties) // 2],
    }


def traffic_false_fires(path: Path, triggers: list[dict[str, Any]], knobs: Knobs) -> dict[str, Any]:
    """Ordinary turns that would fire any of ``triggers`` (each pending reminder checked alone)."""
    turns = [t["text"] for t in json.loads(path.read_text())["turns"]]
    now = datetime.fromisoformat("2026-01-01T12:00:00+00:00")
    saved = _set_knobs(knobs)
    try:
        bad = [(t, r["keywords"]) for t in turns for r in triggers if trigger_matches(r, t, None, now)]
    finally:
        _set_knobs(saved)
    return {"pairs": len(turns) * len(triggers), "false_fires": len(bad), "examples": bad[:10]}


def _load(path: str) -> list[dict[str, Any]]:
    scenarios = json.loads(Path(path).read_text())["scenarios"]
    return [s for s in scenarios if s.get("reminders")]


def _keyword_triggers(scenarios: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for scenario in scenarios:
        for turn in _turns(scenario):
            out += [r for r in _requests(turn.text, turn.when) if r["trigger_kind"] != "time"]
    return out


def _memoise_sense() -> None:
    """Keep every (sentence, trigger) similarity for the run: each knob replays the same turns.

    The encoder's own memo of recent queries is small, so without this the grid re-encodes each
    turn for every knob pair (a run took over 20 minutes on a shared machine).
    """
    if not hasattr(trigger_sense.sense, "cache_info"):
        trigger_sense.sense = lru_cache(maxsize=None)(trigger_sense.sense)


def main(argv: list[str] | None = None, echo: Callable[[str], None] = print) -> dict[str, Any]:
    """Choose the sense threshold and the rarity by leave-one-out and report them on every set."""
    _memoise_sense()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tune", nargs="+", help="kag-cognitive-v1 sets to choose the knobs on")
    parser.add_argument("--check", nargs="*", default=[], help="sets only reported")
    parser.add_argument("--traffic", default=None, help="a kag-intent-traffic/1 file")
    args = parser.parse_args(argv)
    tuning = [s for path in args.tune for s in _load(path)]
    loo = leave_one_out(tuning)
    chosen = loo["full_set_choice"]
    now: Knobs = (trigger_sense.SENSE_THRESHOLD, trigger_sense.RARE_ZIPF)
    report: dict[str, Any] = {"leave_one_out": loo, "knobs_now": now, "sets": {}}
    for path in [*args.tune, *args.check]:
        report["sets"][Path(path).stem] = score(_load(path), now)
    if args.traffic:
        triggers = _keyword_triggers(tuning)
        report["traffic"] = traffic_false_fires(Path(args.traffic), triggers, now)
    echo(json.dumps({**report, "chosen_knobs": chosen}, indent=1, ensure_ascii=False))
    return report


if __name__ == "__main__":
    main()
