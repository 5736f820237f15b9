"""The scripted multi-learner set for system learning (``bench/data/system_learning.json``).

Format ``kag-system-learning-v1``: learners, each with dated sessions of learner messages,
and the planted truth the bench scores against:

- **bottlenecks**: concepts that most learners struggle with (``share`` of the learners
  say so, in varied wording, some of it outside any rule list on purpose);
- **non_bottlenecks**: concepts one or two learners struggle with, and many mention
  without struggling: mentions alone must not make a bottleneck;
- **recurring_errors**: per learner, one error on one concept stated in three different
  sessions; the same (concept, error) planted for several learners is a **common error**;
- **one_off_errors**: errors a learner mentions once (distractors: not a pattern).

Three sets, same shape: ``DEV`` (``system_learning.json``; its wording was shown to the
reflection's author after the first run, and the rules were extended for it), ``HELDOUT``
(``system_learning_heldout.json``: other concepts, errors and wording; written blind, but its
failure was later diagnosed, so it is no longer blind) and ``HELDOUT2``
(``system_learning_heldout2.json``: written after the method was frozen and before it first ran
on it; other concepts, errors, wording, 28 learners and 5 sessions). Deterministic
(``random.Random(seed)``). Regenerate them with ``.venv/bin/python -m bench.kernel.learning_set``.
"""

from __future__ import annotations

import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.kernel.learning_heldout import HELDOUT, HELDOUT2

FORMAT = "kag-system-learning-v1"
PATH = Path(__file__).resolve().parents[1] / "data" / "system_learning.json"
SEED = 14
LEARNERS = 20
SESSIONS = 4
START = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)

BOTTLENECKS = {
    "recursion": ["recursion", "recursive function"],
    "SQL joins": ["sql join", "join", "left join"],
    "closures": ["closure"],
}
BOTTLENECK_LEARNERS = {"recursion": 14, "SQL joins": 13, "closures": 12}
NON_BOTTLENECKS = {
    "list comprehensions": ["list comprehension"],
    "decorators": ["decorator"],
    "big O notation": ["big o", "big o notation"],
    "regular expressions": ["regular expression", "regex"],
    "normalisation": ["normalisation", "normalization"],
    "binary trees": ["binary tree"],
}
STRUGGLE = [
    "I'm confused about {c} again.",
    "Honestly, {c} is really hard for me.",
    "I don't understand {c} at all.",
    "I'm stuck on {c}, the exercise makes no sense to me.",
    "I'm struggling with {c} today.",
    "I have trouble with {c} when the examples get bigger.",
    "{C} is so confusing.",
    "I still don't get {c}.",
]
STRUGGLE_HARD = [
    "{C} just doesn't click for me yet.",  # no rule cue on purpose: wording varies in real life
    "Could you go over {c} once more? I'm lost.",
]
NEUTRAL = [
    "Can we look at an example of {c}?",
    "Let's do another exercise on {c}.",
    "I read the chapter on {c} yesterday.",
    "Thanks, that explanation of {c} helps.",
    "What is a good use case for {c}?",
]
RECURRING = [
    # (concept, aliases, error kind, three statements in different words)
    (
        "binary search",
        ["binary search"],
        "off-by-one",
        [
            "I keep getting an off-by-one error in binary search.",
            "Off-by-one in binary search again, same as last week.",
            "I got binary search wrong again, another off-by-one error in binary search.",
        ],
    ),
    (
        "dictionary lookups",
        ["dictionary", "dictionary lookup", "dict"],
        "KeyError",
        [
            "I keep getting a KeyError in dictionary lookups.",
            "Another KeyError with dictionary lookups, I did it again.",
            "I made a mistake with dictionary lookups again: KeyError when the key is missing.",
        ],
    ),
    (
        "list slicing",
        ["list slicing", "slicing", "slice"],
        "IndexError",
        [
            "I keep getting an IndexError in list slicing.",
            "IndexError in list slicing again.",
            "I got list slicing wrong again, IndexError.",
        ],
    ),
    (
        "while loops",
        ["while loop"],
        "infinite loop",
        [
            "I made an infinite loop in while loops again.",
            "Another infinite loop with while loops today.",
            "I keep getting while loops wrong: infinite loop every time.",
        ],
    ),
    (
        "string formatting",
        ["string formatting", "f-string", "format"],
        "TypeError",
        [
            "I keep getting a TypeError in string formatting.",
            "TypeError with string formatting again.",
            "I got string formatting wrong again, a TypeError.",
        ],
    ),
]
RECURRING_PLAN = [0, 0, 0, 0, 1, 1, 1, 2, 3, 4]
"""Indexes into ``RECURRING`` for learners 1-10: binary search x4 and dictionaries x3 are common."""
ONE_OFF = [
    ("averages", "I got a ZeroDivisionError in averages once, but I fixed it."),
    ("file paths", "I made a mistake with file paths yesterday."),
    ("sorting", "I failed the quiz on sorting, but it was a one-off."),
    ("imports", "I hit an ImportError in imports this morning."),
]


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


DEV = {
    "bottlenecks": BOTTLENECKS,
    "bottleneck_learners": BOTTLENECK_LEARNERS,
    "non_bottlenecks": NON_BOTTLENECKS,
    "struggle": STRUGGLE,
    "struggle_hard": STRUGGLE_HARD,
    "neutral": NEUTRAL,
    "recurring": RECURRING,
    "recurring_plan": RECURRING_PLAN,
    "one_off": ONE_OFF,
}
"""The first set: its wording was shown to the reflection's author after the first run (a dev set)."""

HELDOUT_PATH = PATH.with_name("system_learning_heldout.json")
HELDOUT_SEED = 15

HELDOUT2_PATH = PATH.with_name("system_learning_heldout2.json")
HELDOUT2_SEED = 16


def build(seed: int = SEED, spec: dict[str, Any] | None = None) -> dict[str, Any]:
    """The whole set of ``spec`` (default ``DEV``), deterministically from ``seed``."""
    spec = spec or DEV
    rng = random.Random(seed)
    learner_count, session_count = spec.get("learners", LEARNERS), spec.get("sessions", SESSIONS)
    ids = [f"learner-{i:02d}" for i in range(1, learner_count + 1)]
    sessions: dict[str, list[list[str]]] = {lid: [[] for _ in range(session_count)] for lid in ids}
    concepts = [*spec["bottlenecks"], *spec["non_bottlenecks"]]

    def say(lid: str, session: int, template: str, concept: str) -> None:
        sessions[lid][session].append(template.format(c=concept, C=_cap(concept)))

    for lid in ids:  # background: neutral mentions of every kind of concept
        for s in range(session_count):
            for concept in rng.sample(concepts, 2):
                say(lid, s, rng.choice(spec["neutral"]), concept)
    strugglers: dict[str, list[str]] = {}
    for concept, count in spec["bottleneck_learners"].items():
        strugglers[concept] = sorted(rng.sample(ids, count))
        for lid in strugglers[concept]:
            for s in rng.sample(range(session_count), rng.choice((1, 2))):
                hard = rng.random() < 0.15
                say(lid, s, rng.choice(spec["struggle_hard" if hard else "struggle"]), concept)
    for concept in spec["non_bottlenecks"]:
        strugglers[concept] = sorted(rng.sample(ids, rng.choice((1, 2))))
        for lid in strugglers[concept]:
            say(lid, rng.randrange(session_count), rng.choice(spec["struggle"]), concept)
    recurring = []
    for lid, index in zip(ids, spec["recurring_plan"], strict=False):
        concept, aliases, kind, lines = spec["recurring"][index]
        for s, line in zip(rng.sample(range(session_count), 3), lines, strict=True):
            sessions[lid][s].append(line)
        recurring.append({"learner": lid, "concept": concept, "aliases": aliases, "error_kind": kind})
    one_off = []
    planned = len(spec["recurring_plan"])
    for lid, (concept, line) in zip(ids[planned : planned + 8], spec["one_off"] * 2, strict=False):
        sessions[lid][rng.randrange(session_count)].append(line)
        one_off.append({"learner": lid, "concept": concept})
    learners = []
    for n, lid in enumerate(ids):
        dated = []
        for s, messages in enumerate(sessions[lid]):
            rng.shuffle(messages)
            when = START + timedelta(days=3 * s, hours=n % 9)
            dated.append({"id": f"s{s + 1}", "date": when.isoformat(), "messages": messages})
        learners.append({"id": lid, "sessions": dated})
    common = {}
    for r in recurring:
        common.setdefault((r["concept"], r["error_kind"]), []).append(r["learner"])
    return {
        "format": FORMAT,
        "description": __doc__.split("\n\n")[1].replace("\n", " "),
        "seed": seed,
        "truth": {
            "bottlenecks": [
                {"concept": c, "aliases": a, "learners": strugglers[c]}
                for c, a in spec["bottlenecks"].items()
            ],
            "non_bottlenecks": [
                {"concept": c, "aliases": a, "learners": strugglers[c]}
                for c, a in spec["non_bottlenecks"].items()
            ],
            "recurring_errors": recurring,
            "common_errors": [
                {"concept": c, "error_kind": k, "learners": who}
                for (c, k), who in common.items()
                if len(who) >= 3
            ],
            "one_off_errors": one_off,
        },
        "learners": learners,
    }


def main() -> None:
    """Write the three sets (``system_learning.json``, ``_heldout.json``, ``_heldout2.json``)."""
    for path, seed, spec in (
        (PATH, SEED, DEV),
        (HELDOUT_PATH, HELDOUT_SEED, HELDOUT),
        (HELDOUT2_PATH, HELDOUT2_SEED, HELDOUT2),
    ):
        path.write_text(json.dumps(build(seed, spec), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
