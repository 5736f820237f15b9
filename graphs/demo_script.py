"""The scripted three-session learner conversation that ``kag demo`` runs.

Sessions are separate threads: what session 3 knows of sessions 1–2 comes
from memory (core memory in Redis; archival, recall, facts, procedures and
reminders in Neo4j), not from the prompt. Each session-3 turn is a ``Probe``
naming the exact fact its answer must quote; ``kag demo`` prints pass/fail per
probe and exits 1 when one fails.

The story shows the cognitive memory too, in phrasings no rule names: Ana says where
she lives in session 1 and, in session 2, only that "these days I rent a small flat in
Hanoi" (a **contradiction** with no "moved" in it: the read-time net ranks the newer value
first, and ``memory_checks`` asks ``search_facts`` for it and for the old one ``as_of`` a
time between the sessions); she has solved 12 join exercises, then "Eight more join
exercises done" (an **update** as a running total: session 3 hears 20, a number she
never said); she asks for a reminder in session 1, trigger first and with
no "remind" in it ("Before we get to HAVING, don't let me forget …"), that **fires once**
in session 3 when HAVING comes up, and not again on the next HAVING turn; and
the LEFT JOIN steps she states in session 2 come back in order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.memory.stores import MemoryStores


@dataclass(frozen=True)
class Probe:
    """A recall question of session 3 and the exact fact its answer must quote."""

    request: str
    expect: str
    """A substring the reply must contain (case-insensitive): the fact, not a phrase of the policy."""
    source: str
    """Where the fact lives: core memory, or archival/recall storage reached by a search."""
    absent: str | None = None
    """A substring the reply must not contain (a superseded fact, a reminder firing twice)."""


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
    Probe("Where do I live now?", "Hanoi", "facts (search_facts: the current fact)", absent="Da Nang"),
    Probe("How many join exercises have I solved?", "20", "facts (a running total: 12, then eight more)"),
    Probe(
        "Now I'm ready for HAVING clauses.",
        "Reminder: review GROUP BY",
        "a reminder fired into working memory (then resolve_reminder)",
    ),
    Probe(
        "Before more HAVING clauses: how do I write a LEFT JOIN again?",
        "1. pick the table whose rows I must keep. 2. write LEFT JOIN",
        "procedures (recall_procedure, steps in order); the reminder does not fire again",
        absent="Reminder:",
    ),
)
REMINDER_MENTION = "Reminder: review GROUP BY"
"""How a reply mentions the demo's reminder; ``memory_checks`` counts it once in the whole story."""


def probe_passes(probe: Probe, response: str) -> bool:
    """True when the reply quotes the probe's fact (and not what it must not say)."""
    text = response.lower()
    return probe.expect.lower() in text and not (probe.absent and probe.absent.lower() in text)


async def memory_checks(
    stores: MemoryStores, learner_id: str, *, between: str, replies: Sequence[str]
) -> list[tuple[str, bool]]:
    """The cognitive stores after the story: ``(check, passed)`` rows for ``kag demo``.

    ``between`` is a time after session 1 and before session 2 (ISO-8601).
    """
    query = "where does the learner live"
    now = (await stores.facts.search(learner_id, query, k=3)).results
    then = (await stores.facts.search(learner_id, query, as_of=between, k=3)).results
    reminders = await stores.reminders.list(learner_id)
    fired = sum(REMINDER_MENTION.lower() in reply.lower() for reply in replies)
    procedures = await stores.procedures.list(learner_id)
    return [
        ("search_facts: the current fact is Hanoi, ranked first", bool(now) and "Hanoi" in now[0].text),
        (f"search_facts as_of {between[:19]}: Da Nang", bool(then) and "Da Nang" in then[0].text),
        (
            "reminder fired exactly once and was resolved",
            fired == 1 and [r.status for r in reminders] == ["resolved"],
        ),
        (
            "procedure saved once and recalled (usage_count ≥ 1)",
            len(procedures) == 1 and procedures[0].usage_count >= 1,
        ),
    ]


SESSIONS: list[tuple[str, list[str]]] = [
    (
        "session-1: getting to know Ana",
        [
            "Hi! My name is Ana and I am a beginner in SQL.",
            "I want to master SQL joins by Friday.",
            "I live in Da Nang and study SQL online in the evenings.",
            "Before we get to HAVING, don't let me forget to review GROUP BY.",
            "Remember that an INNER JOIN returns only the rows whose keys match in both tables.",
            "Remember that a LEFT JOIN keeps every row of the left table and fills the missing "
            "right-hand columns with NULL.",
            "I work as a nurse, so my practice database is about patients and wards.",
            "So far I have solved 12 join exercises on SQLZoo.",
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
            "These days I rent a small flat in Hanoi, near the hospital where I do my internship.",
            "Eight more join exercises done on SQLZoo today.",
            "Here is how I write a LEFT JOIN now: first pick the table whose rows I must keep, then write "
            "LEFT JOIN with the other table, then put the key match in ON, and only then filter with WHERE.",
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
