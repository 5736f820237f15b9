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

HELDOUT = {
    "bottlenecks": {
        "pointers": ["pointer"],
        "GROUP BY": ["group by", "grouping"],
        "CSS flexbox": ["flexbox", "css flexbox", "flex"],
    },
    "bottleneck_learners": {"pointers": 13, "GROUP BY": 12, "CSS flexbox": 14},
    "non_bottlenecks": {
        "dictionaries": ["dictionary", "dict"],
        "for loops": ["for loop"],
        "git branches": ["git branch", "branch"],
        "unit tests": ["unit test", "test"],
        "lambda functions": ["lambda", "lambda function"],
        "hash tables": ["hash table"],
    },
    "struggle": [
        "I find {c} really difficult.",
        "I have no idea how {c} works.",
        "Still confused by {c}.",
        "Why is {c} so hard?",
        "I can't wrap my head around {c}.",
        "I keep struggling with {c}.",
        "{C} is tricky for me, honestly.",
        "I'm not getting {c} at all.",
    ],
    "struggle_hard": [
        "{C} makes my head spin.",
        "Ugh, {c} again. I give up on this part.",
    ],
    "neutral": [
        "Show me one more example with {c}, please.",
        "We covered {c} in class today.",
        "Is {c} used a lot in real projects?",
        "OK, {c} is next on my list.",
        "Good, let's move on from {c}.",
    ],
    "recurring": [
        (
            "pandas merge",
            ["pandas merge", "merge"],
            "KeyError",
            [
                "Got a KeyError again when I did the pandas merge.",
                "KeyError in pandas merge, third time now.",
                "My pandas merge failed with a KeyError again.",
            ],
        ),
        (
            "array indexing",
            ["array indexing", "array index", "indexing"],
            "off-by-one",
            [
                "Another off-by-one in array indexing.",
                "I made the same off-by-one mistake with array indexing.",
                "Off-by-one error in array indexing again!",
            ],
        ),
        (
            "SQL queries",
            ["sql query", "sql"],
            "syntax error",
            [
                "Syntax error in my SQL queries again.",
                "I keep making syntax errors in SQL queries.",
                "Got a syntax error with SQL queries once more.",
            ],
        ),
        (
            "recursive functions",
            ["recursive function", "recursion"],
            "RecursionError",
            [
                "RecursionError in my recursive functions again.",
                "My recursive functions hit a RecursionError again.",
                "Another RecursionError with recursive functions.",
            ],
        ),
        (
            "type hints",
            ["type hint", "typing"],
            "TypeError",
            [
                "TypeError from my type hints again.",
                "I got type hints wrong again and Python raised a TypeError.",
                "A TypeError in type hints, same as on Monday.",
            ],
        ),
    ],
    "recurring_plan": [0, 0, 0, 1, 1, 1, 2, 3, 4, 4],
    "one_off": [
        ("date parsing", "I got a ValueError in date parsing once."),
        ("variable names", "I made a typo in variable names yesterday."),
        ("sorting algorithms", "I failed the test on sorting algorithms, just once."),
        ("file paths", "I hit a FileNotFoundError in file paths today."),
    ],
}
"""The held-out set: other concepts, errors and wording, written after the first run and not
shown to the reflection's author. Report both; the held-out one says how the rules generalise."""
HELDOUT_PATH = PATH.with_name("system_learning_heldout.json")
HELDOUT_SEED = 15

HELDOUT2 = {
    "learners": 28,
    "sessions": 5,
    "bottlenecks": {
        "database indexes": ["database index", "index", "indexes"],
        "promises": ["promise", "javascript promise"],
        "matrix multiplication": ["matrix multiplication", "matrices", "matrix"],
    },
    "bottleneck_learners": {"database indexes": 17, "promises": 15, "matrix multiplication": 19},
    "non_bottlenecks": {
        "variables": ["variable"],
        "tuples": ["tuple"],
        "HTTP requests": ["http request", "request"],
        "docker containers": ["docker container", "docker", "container"],
        "inheritance": ["inheritance"],
        "string methods": ["string method"],
    },
    "struggle": [
        "{C} confuses me every single time.",
        "I'm having a hard time with {c}.",
        "I really don't get how {c} work.",
        "Help, {c} is beyond me.",
        "I got lost in the part about {c}.",
        "{C} is a nightmare for me.",
        "No matter how often I read about {c}, I can't follow it.",
        "I'm totally baffled by {c}.",
    ],
    "struggle_hard": [
        "I've spent hours on {c} and I'm getting nowhere.",
        "Can you slow down on {c}? It went over my head.",
    ],
    "neutral": [
        "Can you summarise {c} in two lines?",
        "I practised {c} this weekend.",
        "The lecture on {c} was short.",
        "Where can I read more about {c}?",
        "Next topic after {c}, please.",
    ],
    "recurring": [
        (
            "JSON parsing",
            ["json parsing", "json", "parsing"],
            "JSONDecodeError",
            [
                "JSONDecodeError while JSON parsing, yet again.",
                "My JSON parsing blew up with a JSONDecodeError again.",
                "Same JSONDecodeError as before in the JSON parsing step.",
            ],
        ),
        (
            "loop counters",
            ["loop counter", "counter"],
            "off-by-one",
            [
                "My loop counters are off by one again.",
                "Off-by-one again on loop counters.",
                "The loop counters gave me another off-by-one bug.",
            ],
        ),
        (
            "null checks",
            ["null check", "null"],
            "NullPointerException",
            [
                "NullPointerException again because I forgot null checks.",
                "Forgot the null checks, another NullPointerException.",
                "NullPointerException in my null checks, once again.",
            ],
        ),
        (
            "API calls",
            ["api call", "api"],
            "TimeoutError",
            [
                "TimeoutError on my API calls again.",
                "The API calls timed out again with a TimeoutError.",
                "Another TimeoutError from the API calls.",
            ],
        ),
        (
            "class attributes",
            ["class attribute", "attribute"],
            "AttributeError",
            [
                "AttributeError on class attributes, same as last time.",
                "I hit an AttributeError with class attributes again.",
                "My class attributes raise AttributeError every time.",
            ],
        ),
    ],
    "recurring_plan": [0, 0, 0, 0, 1, 1, 1, 2, 3, 3, 4, 4],
    "one_off": [
        ("list sorting", "I got a TypeError in list sorting once."),
        ("css colors", "I picked the wrong css colors yesterday."),
        ("file reading", "File reading failed for me once, no big deal."),
        ("regex groups", "I messed up regex groups in the last exercise."),
    ],
}
"""The second held-out set: written after the method was frozen and before it was first run on
it; other concepts, errors, wording, learner and session counts (28 learners, 5 sessions)."""
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
