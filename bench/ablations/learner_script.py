"""A deterministic, multi-session learner script for ablations.

The learner states early facts (name, goal, preference, workplace, practice
database, pet), then many filler turns fill working memory, then probe
questions ask for each early fact at a growing distance. A last "recent" fact is
probed a few turns after it was said, so a window that still holds it can
answer: recall of early facts is then a real test, not a script that nobody
can pass.

Probes are phrased "What did I mention …?", which the offline policy maps to
``conversation_search`` (rule 5 of ``agent/models/offline_policy.py``), and every
expected answer is a distinctive word of the fact (``Okafor``, ``wardsdb``, …)
that no filler turn contains. Filler turns state no fact, goal or question, so
the offline policy calls no tool on them.

One fact is **superseded** (``MOVED``): the learner says where they live in session 1
and that they moved at the start of session 2, and session 3 asks where they live *now*.
Retrieval alone finds the old statement, which shares the question's words ("live"),
and not the move, which shares none; only the full system's fact store knows which value
is current (``search_facts``). This is what ``full`` has that ``rag_only`` has not.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Fact:
    """An early fact the learner states and a later probe asks about."""

    key: str
    """Short id, e.g. ``name``."""
    statement: str
    """What the learner says."""
    probe: str
    """The question that asks for it later."""
    expected: str
    """A distinctive word of the fact: the answer recalls it when it contains this (case-insensitive)."""


@dataclass(frozen=True)
class Turn:
    """One learner request of the script."""

    index: int
    """Position in the whole script (0-based): the x axis of recall-vs-turn plots."""
    session: str
    """Session id (recall storage groups messages by it)."""
    text: str
    """The request."""
    end_session: bool = False
    """True on the last turn of a session (writes Zettelkasten notes)."""
    states: tuple[str, ...] = ()
    """Keys of the facts this turn states."""
    probes: str | None = None
    """Key of the fact this turn asks about, if it is a probe."""


@dataclass(frozen=True)
class LearnerScript:
    """Sessions of turns plus the facts they state and probe."""

    turns: tuple[Turn, ...]
    facts: dict[str, Fact] = field(default_factory=dict)

    @property
    def sessions(self) -> list[str]:
        """Session ids in order."""
        return list(dict.fromkeys(t.session for t in self.turns))

    def fact_turn(self, key: str) -> int:
        """Index of the turn that states fact ``key``."""
        return next(t.index for t in self.turns if key in t.states)

    def probe_turns(self) -> list[Turn]:
        """The probe turns, in order."""
        return [t for t in self.turns if t.probes]


FACTS: tuple[Fact, ...] = (
    Fact("name", "My name is Ana Okafor.", "What did I mention my full name is?", "Okafor"),
    Fact(
        "goal",
        "I want to pass the hospital data analyst exam by Friday.",
        "What did I mention about the exam I am preparing for?",
        "analyst",
    ),
    Fact(
        "preference",
        "I prefer worked examples with tiny tables over long theory.",
        "What did I mention I prefer when learning?",
        "tiny tables",
    ),
    Fact(
        "workplace",
        "I work night shifts as a nurse at Riverside Hospital.",
        "Where did I mention I work night shifts?",
        "Riverside",
    ),
    Fact(
        "database",
        "Remember that my practice database is called wardsdb.",
        "What did I mention my practice database is called?",
        "wardsdb",
    ),
    Fact(
        "pet",
        "My cat is called Miso and sits on the keyboard.",
        "What did I mention my cat is called?",
        "Miso",
    ),
)
FORMER_HOME = "I live in Da Nang, close to the beach."
"""Session 1's home, superseded by ``MOVED`` in session 2 (no probe expects it)."""
MOVED = Fact(
    "home",
    "Actually, I moved to Hanoi last month.",
    "Where do I live now?",
    "Hanoi",
)
RECENT = Fact(
    "buddy",
    "My study buddy this week is called Jonas.",
    "What did I mention my study buddy is called?",
    "Jonas",
)

# Plain statements: no fact about the learner, no goal, no question, so the offline policy calls no tool.
FILLER: tuple[str, ...] = (
    "Today we looked at GROUP BY: it collapses rows that share a value into one row per group, and "
    "aggregate functions such as COUNT, SUM and AVG then run once for each group instead of once overall.",
    "A HAVING clause filters groups after aggregation, while WHERE filters single rows before any "
    "grouping happens, so a condition on COUNT(*) belongs in HAVING and a condition on a column value "
    "belongs in WHERE.",
    "An index on a column lets the database find matching rows without scanning the whole table, at the cost "
    "of slower inserts and updates, because every write has to maintain the index as well as the table.",
    "A primary key identifies each row uniquely and cannot be NULL, and a foreign key in another table "
    "refers to it, so the database can refuse an order line that points to a product that does not exist.",
    "Normalisation splits repeated data into separate tables: third normal form removes columns that depend "
    "on other non-key columns, which avoids update anomalies when the same value is stored twice.",
    "A subquery in the FROM clause acts as a temporary table, and a common table expression written with "
    "WITH does the same job with a name, which makes long queries easier to read from top to bottom.",
    "Window functions such as ROW_NUMBER and RANK compute a value over a set of related rows without "
    "collapsing them, so each row keeps its own identity while it also sees the rows around it.",
    "A transaction groups statements so they all succeed or all fail together; COMMIT makes the changes "
    "durable and ROLLBACK undoes them, which keeps a bank transfer from losing money halfway through.",
    "The ORDER BY clause sorts the final result, LIMIT keeps only the first rows, and OFFSET skips rows, "
    "which together give simple pagination, although deep offsets get slow on very large tables.",
    "A UNION stacks the rows of two queries with the same columns and removes duplicates, while UNION ALL "
    "keeps the duplicates and is faster because the database does not have to compare every row.",
    "NULL means unknown, so any comparison with NULL is neither true nor false, and the right test is IS "
    "NULL or IS NOT NULL; COALESCE returns the first value in its list that is not NULL.",
    "A view stores a query under a name so it can be selected from like a table; a materialised view also "
    "stores the result, which makes reads fast but means it must be refreshed when the data changes.",
)


def build_script(filler: int = 6) -> LearnerScript:
    """The script with ``filler`` filler turns between probes (6: full run; 1–2: CI).

    Session 1 states the early facts (two of them in one turn, a two-tool
    chain), then ``filler`` turns. Sessions 2 and 3 alternate ``filler`` turns
    and one probe, probing the early facts in order, so each probe is further
    from its fact than the one before. Session 3 ends with the recent fact,
    one filler turn and its probe. The superseded fact: ``FORMER_HOME`` closes session 1's
    statements, ``MOVED`` opens session 2, and its probe comes before the recent fact.
    """
    if filler < 1:
        raise ValueError("filler must be at least 1")
    turns: list[Turn] = []
    cursor = iter(range(10_000))
    fill = iter(FILLER * 100)

    def add(session: str, text: str, **kw: object) -> None:
        turns.append(Turn(index=next(cursor), session=session, text=text, **kw))  # type: ignore[arg-type]

    by_key = {f.key: f for f in FACTS}
    s1 = "session-1"
    add(s1, f"Hi! {by_key['name'].statement} I am a beginner in SQL.", states=("name",))
    add(s1, f"{by_key['goal'].statement} {by_key['preference'].statement}", states=("goal", "preference"))
    for key in ("workplace", "database", "pet"):
        add(s1, by_key[key].statement, states=(key,))
    add(s1, FORMER_HOME)
    for _ in range(filler):
        add(s1, next(fill))
    probes = list(FACTS)
    add("session-2", MOVED.statement, states=(MOVED.key,))
    for session, chunk in (("session-2", probes[:3]), ("session-3", probes[3:])):
        for fact in chunk:
            for _ in range(filler):
                add(session, next(fill))
            add(session, fact.probe, probes=fact.key)
    add("session-3", MOVED.probe, probes=MOVED.key)
    add("session-3", RECENT.statement, states=(RECENT.key,))
    add("session-3", next(fill))
    add("session-3", RECENT.probe, probes=RECENT.key)
    last_of = {t.session: t.index for t in turns}
    marked = tuple(
        Turn(t.index, t.session, t.text, t.index == last_of[t.session], t.states, t.probes) for t in turns
    )
    return LearnerScript(turns=marked, facts={f.key: f for f in (*FACTS, MOVED, RECENT)})
