"""The two held-out specs of the system-learning set (``bench.kernel.learning_set`` builds them).

Same shape as ``learning_set.DEV``: other concepts, errors and wording. ``HELDOUT`` was
written after the first run and not shown to the reflection's author; ``HELDOUT2`` after the
method was frozen, before it first ran on it (28 learners, 5 sessions).
"""

from __future__ import annotations

from typing import Any

HELDOUT: dict[str, Any] = {
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

HELDOUT2: dict[str, Any] = {
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
