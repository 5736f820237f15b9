"""The scripted three-session learner conversation that ``kag demo`` runs.

Sessions are separate threads: what session 3 knows of sessions 1–2 comes
from memory (core memory in Redis, archival and recall storage in Neo4j),
not from the prompt. Each session-3 turn is a ``Probe`` naming the exact fact
its answer must quote; ``kag demo`` prints pass/fail per probe and exits 1 when
one fails.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    """A recall question of session 3 and the exact fact its answer must quote."""

    request: str
    expect: str
    """A substring the reply must contain (case-insensitive): the fact, not a phrase of the policy."""
    source: str
    """Where the fact lives: core memory, or archival/recall storage reached by a search."""


PROBES: tuple[Probe, ...] = (
    Probe("What is my goal?", "master SQL joins by Friday", "core memory (current_goals)"),
    Probe(
        "What did I find confusing about the FULL OUTER JOIN before?",
        "I keep confusing a FULL OUTER JOIN with a CROSS JOIN",
        "search (archival summary or recall)",
    ),
    Probe(
        "What do you know about the CROSS JOIN of patients and wards?",
        "gives 100 rows",
        "search (archival memory)",
    ),
    Probe("What did I say about my job earlier?", "I work as a nurse", "core memory (user_profile)"),
)


def probe_passes(probe: Probe, response: str) -> bool:
    """True when the reply quotes the probe's fact."""
    return probe.expect.lower() in response.lower()


SESSIONS: list[tuple[str, list[str]]] = [
    (
        "session-1: getting to know Ana",
        [
            "Hi! My name is Ana and I am a beginner in SQL.",
            "I want to master SQL joins by Friday.",
            "Remember that an INNER JOIN returns only the rows whose keys match in both tables.",
            "Remember that a LEFT JOIN keeps every row of the left table and fills the missing "
            "right-hand columns with NULL.",
            "I work as a nurse, so my practice database is about patients and wards.",
        ],
    ),
    (
        "session-2: practice that fills working memory",
        [
            "Today I practised joining patients to wards with a LEFT JOIN, and wards without patients "
            "disappeared when I switched to an INNER JOIN, which surprised me at first.",
            "I keep confusing a FULL OUTER JOIN with a CROSS JOIN: the outer join matches on keys and "
            "keeps unmatched rows from both sides, while the cross join pairs every row with every row.",
            "Remember that a CROSS JOIN of 20 patients and 5 wards gives 100 rows, because it has no "
            "join condition at all.",
            "I also learned that a self join compares rows of the same table, like nurses and the "
            "senior nurse who supervises them, by giving the table two aliases.",
            "Remember that filtering the right table in the WHERE clause turns a LEFT JOIN into an "
            "INNER JOIN, so the filter belongs in the ON clause instead.",
            "I am planning to revise anti-joins next, using LEFT JOIN with IS NULL to find wards "
            "without patients.",
        ],
    ),
    (
        "session-3: a new day, recalling what was archived",
        [probe.request for probe in PROBES],
    ),
]

# A small budget so the short demo crosses the 70% threshold; production uses 8192.
DEMO_MAX_TOKENS = 1600
