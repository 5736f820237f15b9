"""Is a new statement a new value for something the learner told before? (MiniLM cosine).

Two readers with opposite costs, so two sets of knobs:

- **At write time** (``retire_choice``) a wrong answer loses the learner's data: the old
  fact would be closed. So the closest current fact is retired only when it is near-certain
  the new statement is about the same thing: its cosine is at least ``RETIRE_MIN`` *and*
  beats the second closest by ``RETIRE_MARGIN`` *and* the new statement gives it a new
  value (``gives_a_new_value``: a number, date or name the old fact does not hold, and no
  other instance: "the second quiz" is not a new value of "the first quiz"); cosine alone
  cannot tell "I scored 71 on the second quiz" from a new score of the first (0.92).
  A change stated as a difference ("by a week") that resolves against a fact
  (``agent.language.differences``) is near-certain at the lower ``CHANGE_MIN``: it names
  the thing it changes and needs its one date or number.
  When unsure, nothing is retired: both facts stay open and the read-time net orders them.
- **At read time** (``same_pairs``, ``disagreeing``) a wrong answer only reorders: two open
  facts about the same thing show newest first, the older with ``was_until`` ("was X until
  …", ``agent.memory.fact_order.newest_first``). Same thing is decided by what the
  statements are *about*, not by their words: a job, home, major, device, language or app
  (``agent.language.about``: "I bake bread at a bakery" and "my days are spent doing IT
  support" share no words, cosine 0.10); or one gives the other a new value of its kind
  (both dates, both numbers: ``new_value_of_kind``) at ``VALUE_MIN``; or the sentences are
  nearly the same (``NET_SAME``). A statement that adds a value ("too", "also") is never
  the same thing as the one it adds to.

With the question (``answer_groups``, called by ``fact_order.newest_first`` with the query's
vector) the read-time net also groups what the two statements alone cannot join: the best answer
to the question and the facts about as close to it (within ``ANSWER_MARGIN``) that state another
value ("Where do I work?": "I'm a junior data analyst at Zalando" / "First week at Delivery Hero
went ok"). Its knobs come from ``python -m bench.readnet_knobs``: scenario probes of the eight dev
sets 60 -> 84 of 150 passed (the probe's ``first`` on sentence-level memories), our question pairs
(``question_pairs.json``, 91, nine classes) 21 -> 41 of 53 found, but 9 -> 28 of 38 hard negatives
grouped (an unrelated or someone else's newer value shown first, the right one "was until").
A statement that tells several things (a self-introduction) is read there by its clause closest to
the question (``answering_clause``): the kind asked and the part of a life it tells come from that
clause, so an older introduction no longer outranks a later value of the thing asked because one of
its other clauses tells a language or a level (``question_pairs_order.json``: 15 -> 17 of 23 found,
4 of 12 hard negatives grouped before and after; no new knob). A later value written in the unit of
the best answer's (a currency, a letter prefix: ``another_in_unit``) answers it however far its words
are from the question ("it's €550 a month now" beside "an allowance of €400 a month"), at the floor.

A statement that is no version of the learner's current value, hedged, planned or wished ("I
might do a summer course in Dresden") or another person's ("My friend Lena has lessons with Herr
Kaltenbrunner"), read from the parse (``agent.language.whose_value``), is never a group's newest
member (``fact_order.newest_first`` drops it): shown where the search ranks it, never promoted,
never marking the learner's value "was until". As an older member it may be grouped (a wrong
reading of an old fact, "My PhD supervisor, Dr. Okafor, wants a draft", must not keep the new
supervisor from first place). It reads the text alone, so facts stored by any older write read the same.

Items of a numbered series ("Note one:", "Step 4:", "the second quiz") are other instances
(``other_instance``): never retired by, nor grouped with, another item.

Every knob was chosen by leave-one-out over pairs written for KAG, same-thing and
different-thing, with hard negatives (someone else's job, a second language learned too, two
quizzes, items of a series): ``python -m bench.fact_knobs`` (``bench/cognitive/sets/``
``fact_pairs.json``, ``fact_pairs_about.json`` and ``fact_pairs_compound.json``; write time:
the most cautious knobs within one right retirement of the best, a wrong one costing 100;
read time: a pair found +1, a wrong grouping -1; 2026-11-29: write 12 right, 0 wrong, 61
missed; read 48/73 found, 10/900 wrongly grouped, unchanged after the device exemplars of
round 2). ``fact_pairs_values.json`` (dates and scores changed by others or events) and
``fact_pairs_parts.json`` (a new device or teacher) are scored apart: at today's knobs 58/93
found, 11/1043 wrongly grouped over all five files; leave-one-out over all five would lower
``VALUE_MIN`` to 0.52 (60/93) at 15/1043 wrongly grouped, the new ones other people's values
("my flatmate scored 91 on the same quiz"), so it stays 0.58. They
hold for MiniLM vectors only; the fact store skips both readers with another embedding model.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from agent.language.about import clause_vectors, clauses, parts
from agent.language.encoder import encode_kept
from agent.language.facts import fact_slot
from agent.language.numerals import CURRENCY, numbers
from agent.language.shifts import shift, value_kind

NET_SAME = 0.70
"""Read time: two open facts at least this close are about the same thing (ordering only)."""
VALUE_MIN = 0.58
"""Read time: … or at least this close when one gives the other a new value of its kind."""
RETIRE_MIN = 0.70
"""Write time: the closest current fact is retired only at this cosine or more …"""
RETIRE_MARGIN = 0.30
"""… and only when it beats the second closest by this much."""
CHANGE_MIN = 0.38
"""Write time: a change stated as a difference applies to a fact at least this close."""
ABOUT_FLOOR = 0.25
"""Read time: two open facts about one part of the learner's life (``agent.language.about``)
are the same thing from this cosine on (below ``NET_SAME``: their words differ)."""
ANSWER_MARGIN = 0.34
"""Read time, with the question: open facts whose cosine with the question is within this of the
best answer's answer it about as well (``answer_groups``). Leave-one-out over the scenario probes
and ``question_pairs.json`` (``python -m bench.readnet_knobs``, a wrong grouping costing two
misses; folds chose 0.34-0.36)."""
ANSWER_FLOOR = 0.10
"""… and at least this close to the question (folds chose 0.05-0.10)."""


_NAME_WORD = r"[A-Z](?:[^\W\d]|-)*(?!\w)"
_VALUE = re.compile(rf"(?<![\w.])(?:\w*\d[\w.,:/-]*\w|\w*\d|{_NAME_WORD}(?:\s+{_NAME_WORD})*)")
"""A value a statement holds: a token with a digit, or a run of capitalised words. A code ends a
run: "the B1 Dutch exam" holds "b1" and "dutch" (one run "b1 dutch" held the "dutch" of "I'm at A2
in Dutch", so the new level was no new value)."""
_ORDINAL = re.compile(
    r"\b(?:first|second|third|fourth|fifth|sixth|next|another|\d+(?:st|nd|rd|th)|(?:number|no\.)\s*\d+)\b|#\d+",
    re.I,
)
"""Words that name one instance of a series ("the second quiz", "pet number 2"): a closed class."""
_NUMBER_WORDS = "one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve"
_LABEL = re.compile(
    rf"^\W*((?:[^\W\d_]+\s+){{0,2}}?(?:#?\d{{1,3}}[a-z]?|{_NUMBER_WORDS})(?:\s+[^\W\d_]+)?)\s*(?::|\s[-\u2013\u2014]\s|\))",
    re.I,
)
"""A heading that labels a statement as one item of a numbered series, by its shape, not its
noun: up to two words and a number (digits, "#3" or a number word), then a colon, a dash or a
bracket ("Note one:", "Step 4:", "Week 3 -", "Chapter 5 summary:", "Item #2:")."""
_ADDED = re.compile(r"\b(?:also|as well)\b|\btoo\s*(?:[.,;:!?]|$)", re.I)
"""Words that add a value beside the old one ("I'm learning Spanish too"): a closed class
("too" only at a clause's end: "too hard" adds nothing)."""


def values(text: str) -> set[str]:
    """The numbers, dates and names in ``text``, lower-cased.

    "I" and a sentence's first word are no names unless they hold a capital or digit past
    their first letter ("RStudio").
    """
    found = set()
    for match in _VALUE.finditer(text):
        value = match.group(0)
        if not text[: match.start()].strip(" \"'("):  # a sentence's first word is capitalised anyway
            head, _, rest = value.partition(" ")
            value = head if re.search(r"[A-Z\d]", head[1:]) else rest
        if value and value != "I":
            found.add(value.lower())
    return found


def new_value_of_kind(a: str, b: str) -> bool:
    """One of ``a``, ``b`` gives the other a new value of the same kind (both dates, or both numbers)."""
    kind = value_kind(a)
    return kind is not None and kind == value_kind(b) and (gives_a_new_value(a, b) or gives_a_new_value(b, a))


def series_item(text: str) -> str | None:
    """The label of ``text`` when it is one item of a numbered series ("note three"), else None."""
    match = _LABEL.match(text)
    return None if match is None else re.sub(r"\s+", " ", match.group(1).lower())


def _instance(text: str) -> tuple[frozenset[str], str | None]:
    """The ordinals ``text`` names and its series label ("note three"), if any."""
    return frozenset(m.lower() for m in _ORDINAL.findall(text)), series_item(text)


def other_instance(new: str, old: str, *, both: bool = False) -> bool:
    """``new`` names another instance of a series than ``old``.

    Another ordinal ("the second quiz" / "the first quiz"), or another label ("Note three:" /
    "Note one:"): items of a series are never one thing with a new value, whatever their
    words. With ``both`` (read time, symmetric) only when each names its own instance; else
    (write time, cautious) when ``new`` names one ``old`` does not, or ``old`` has a label.
    """
    (new_ord, new_label), (old_ord, old_label) = _instance(new), _instance(old)
    if both:
        return bool(new_ord and old_ord and new_ord != old_ord) or (
            new_label is not None and old_label is not None and new_label != old_label
        )
    return bool(new_ord and new_ord != old_ord) or new_label != old_label


def gives_a_new_value(new: str, old: str) -> bool:
    """``new`` holds a value ``old`` does not, and names no other instance of it (docstring)."""
    return bool(values(new) - values(old)) and not other_instance(new, old)


def retire_choice(new: str, facts: Sequence[str], scores: Sequence[float]) -> int | None:
    """Index in ``facts`` of the current fact ``new`` replaces (``scores``: cosines), or None."""
    if not scores:
        return None
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    best = scores[order[0]]
    second = scores[order[1]] if len(order) > 1 else -1.0
    if best < RETIRE_MIN or best - second < RETIRE_MARGIN:
        return None
    return order[0] if gives_a_new_value(new, facts[order[0]]) else None


SLOT_PARTS = {"residence": "home", "job": "job", "study": "study", "tool": "tool"}
"""The part of a life a rule-table slot (``agent.language.facts.fact_slot``) tells for sure."""


def slot_part(text: str) -> str | None:
    """The part ``text`` tells by the rule table's narrow slots ("I live in …": home), or None."""
    slot = fact_slot(text)
    return None if slot is None else SLOT_PARTS.get(slot[1])


def told_parts(texts: Sequence[str], vectors: np.ndarray) -> list[frozenset[str]]:
    """The parts each of ``texts`` tells: by meaning (``about.parts``) and by the rule table's slot."""
    return [
        found | ({part} if (part := slot_part(t)) else set())
        for found, t in zip(parts(vectors, texts), texts, strict=True)
    ]


def same_pairs(texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
    """Which of ``texts`` (rows of ``vectors``, L2-normalised MiniLM) are about the same thing, pairwise.

    Same: cosine at least ``NET_SAME``; or at least ``VALUE_MIN`` when one gives the other a
    new value of its kind (``new_value_of_kind``: "is 120 days" / "hit 151 days"); or both
    about one part of the learner's life (``agent.language.about``) at ``ABOUT_FLOOR`` or
    more. Never a statement that adds a value beside the other ("too", "also": ``_ADDED``).
    """
    sims = vectors @ vectors.T
    told = told_parts(texts, vectors)
    n = len(texts)
    same_part = np.array([[bool(told[i] & told[j]) for j in range(n)] for i in range(n)], dtype=bool).reshape(
        n, n
    )
    kinds = np.array(
        [[i != j and new_value_of_kind(texts[i], texts[j]) for j in range(n)] for i in range(n)], dtype=bool
    ).reshape(n, n)
    added = np.array([bool(_ADDED.search(t)) for t in texts], dtype=bool)
    items = np.array(
        [[i != j and other_instance(texts[i], texts[j], both=True) for j in range(n)] for i in range(n)],
        dtype=bool,
    ).reshape(n, n)
    same = (sims >= NET_SAME) | (kinds & (sims >= VALUE_MIN)) | (same_part & (sims >= ABOUT_FLOOR))
    return same & ~added[:, None] & ~added[None, :] & ~items


def states_another_value(a: str, b: str) -> bool:
    """``a`` and ``b`` hold different values (a number, date or name one of them lacks).

    Never when one adds a value beside the other ("too", "also") or names another item of a series.
    """
    if _ADDED.search(a) or _ADDED.search(b) or other_instance(a, b, both=True):
        return False
    held_a, held_b = values(a), values(b)
    if not held_a and not held_b:  # common nouns only ("a barista" / "a junior web developer")
        return _content(a) != _content(b)
    return bool(_beyond(held_a, held_b) or _beyond(held_b, held_a))


def brings_another_value(text: str, best: str) -> bool:
    """``text`` holds a value the ``best`` answer does not (``states_another_value``, one way).

    A statement whose names and numbers the best answer holds already restates part of it ("Gave
    the ThinkPad to my little brother" beside "I code on an old ThinkPad running Ubuntu 22.04";
    "My sister is keeping my old room in Lyon" beside "I live in Lyon"): no other version of it.
    """
    if not states_another_value(text, best):
        return False
    held = values(text)
    # one told in common nouns only ("Started my new position as a junior web developer") stays another
    return not held or bool(_beyond(held, values(best)))


def _content(text: str) -> frozenset[str]:
    """The lemmas (``simplemma``) of the words of ``text`` of four letters or more.

    What two plain statements differ in ("Working as a barista" says what "I work as a barista" says).
    """
    import simplemma  # noqa: PLC0415 - loaded only when neither statement holds a value

    return frozenset(simplemma.lemmatize(w.lower(), lang="en") for w in re.findall(r"[^\W\d_]{4,}", text))


def _beyond(found: set[str], known: set[str]) -> set[str]:
    """The values of ``found`` that no value of ``known`` holds or is part of ("docs" is in "google docs")."""
    return {
        v for v in found if not any(re.search(rf"(?<!\w){re.escape(k)}(?!\w)", v) or v in k for k in known)
    }


def answer_groups(
    asked: np.ndarray,
    texts: Sequence[str],
    *,
    margin: float | None = None,
    floor: float | None = None,
    vectors: np.ndarray | None = None,
    question: np.ndarray | None = None,
) -> list[list[int]]:
    """The facts that answer one question about equally well and state different values (indexes).

    The question names what is asked, which two statements alone do not ("I'm a junior data
    analyst at Zalando" / "First week at Delivery Hero went ok" share no part a reader is sure
    of). ``asked``: each text's cosine with the question. The best answer, and every other text
    within ``margin`` (``ANSWER_MARGIN``) of it and at ``floor`` (``ANSWER_FLOOR``) or more that
    states another value (``states_another_value``) of the best answer's kind (``_answers_in_kind``:
    a date for a date), are versions of what is asked: one group
    (none when no other text qualifies). ``vectors``: the texts' MiniLM rows when the caller has
    them (the fact store's stored vectors), so the about-reader does not encode them again.
    ``question``: the question's L2-normalised MiniLM row, when the caller has it, so the about-reader
    reads each statement by the clause that answers it (``answering_parts``).
    """
    if len(texts) < 2:
        return []
    margin = ANSWER_MARGIN if margin is None else margin
    floor = ANSWER_FLOOR if floor is None else floor
    best = int(np.argmax(asked))
    low = max(floor, float(asked[best]) - margin)
    if asked[best] < floor:
        return []
    # the kind asked is read in the clause of the best answer that answers it ("renting a room in
    # Coimbra", not the "A2" of its language clause)
    answer = texts[best] if question is None else answering_clause(question, texts[best])[0]
    kind = value_kinds(answer)
    units = unit_values(answer)
    near = [
        i
        for i in range(len(texts))
        if i != best
        and (asked[i] >= low or asked[i] >= floor and another_in_unit(texts[i], units))
        and brings_another_value(texts[i], texts[best])
        and _answers_in_kind(kind, texts[i])
    ]
    if not near:
        return []
    # The question fills in what the about-reader is unsure of; it never overrules it: "I work
    # as a nurse…" answers "where does the learner live" nearly as well as "I live in Da Nang",
    # but the reader is sure one tells a job and the other a home, so neither is the other's
    # older version.
    chosen = [best, *near]
    named = [texts[i] for i in chosen]
    rows = encode_kept(named) if vectors is None else vectors[chosen]
    told = parts(rows, named) if question is None else answering_parts(question, rows, named)
    apart = [bool(told[0] and t and not told[0] & t) for t in told[1:]]
    group = [best] + [i for i, away in zip(near, apart, strict=True) if not away]
    return [group] if len(group) > 1 else []


_UNIT_VALUE = re.compile(
    rf"(?<![\w.])([{re.escape(''.join(CURRENCY))}]|[^\W\d_]{{1,3}}-?)(\d(?:[\d,.]*\d)?)(?![\w])"
)
"""A value written with its unit: a currency symbol ("€550") or a prefix of one to three letters
("R4800", "B2", "N3", "S23") right before its digits."""


def unit_values(text: str) -> dict[str, frozenset[str]]:
    """The values ``text`` writes with a unit (``_UNIT_VALUE``), by unit: ``{"€": {"550"}, "b": {"2"}}``."""
    found: dict[str, set[str]] = {}
    for match in _UNIT_VALUE.finditer(text):
        found.setdefault(match.group(1).lower().rstrip("-"), set()).add(match.group(2))
    return {unit: frozenset(held) for unit, held in found.items()}


def another_in_unit(text: str, units: dict[str, frozenset[str]]) -> bool:
    """``text`` writes another value in a unit of ``units`` (the best answer's), and no difference.

    "It's €550 a month now" beside "an allowance of €400 a month": the same unit, another value,
    though the question's words ("allowance") are not in it, so its cosine with the question is far
    below the best answer's. A change told as a difference ("cut by $300", ``shifts.shift``) is no
    value of its own: the arithmetic resolves it (``agent.language.differences``).
    """
    if not units:
        return False
    held = unit_values(text)
    return any(held.get(unit, frozenset()) - values for unit, values in units.items()) and shift(text) is None


def answering_clause(
    question: np.ndarray, text: str, row: np.ndarray | None = None
) -> tuple[str, np.ndarray]:
    """The clause of ``text`` closest to ``question`` and its MiniLM row.

    The whole statement or one of its ``about.clauses``. ``row``: the statement's own row when the
    caller has it (else encoded).
    """
    whole = encode_kept([text])[0] if row is None else row
    found = clause_vectors(text)
    if not len(found):
        return text, whole
    sims = found @ question
    best = int(np.argmax(sims))
    return (clauses(text)[best], found[best]) if sims[best] > float(whole @ question) else (text, whole)


def answering_parts(question: np.ndarray, vectors: np.ndarray, texts: Sequence[str]) -> list[frozenset[str]]:
    """The parts (``about.parts``) each of ``texts`` tells in its clause closest to ``question``.

    A statement that tells several things ("Ana here, a nurse from Braga, renting a room in Coimbra
    and learning German") is read by the clause that answers the question ("renting a room in
    Coimbra"), not by any of its clauses: its language clause must not set it apart from a later
    home ("The new place in Porto is bright, I can see the river from my desk", whose second clause
    reads as a desk). ``vectors``: the texts' rows.
    """
    out = []
    for row, text in zip(vectors, texts, strict=True):
        clause, clause_row = answering_clause(question, text, row)
        out.append(parts(clause_row[None, :], [clause])[0])
    return out


def value_kinds(text: str) -> frozenset[str]:
    """The kinds of value ``text`` holds: ``"date"``, ``"number"`` (not a day of a date), ``"code"``.

    A code is a name with a digit ("B1", "B2.1", "N4"). A statement may hold more than one: "I took
    the GRE in December and got a 158 in quant", "I'm in the B1 evening class, Mondays and Wednesdays".
    """
    kinds = {kind} if (kind := value_kind(text)) else set()
    if numbers(text):
        kinds.add("number")
    if any(re.search(r"\d", v) and re.search(r"[^\W\d_]", v) for v in values(text)):
        kinds.add("code")
    return frozenset(kinds)


def _answers_in_kind(kinds: frozenset[str], text: str) -> bool:
    """``text`` holds a value of a kind the best answer holds: a date for a date, a number for a number.

    "My goal is to pass the exam on March 20" answers "What is my exam date?"; "I practised SELECT
    yesterday" (no date) is no other version of it, however close. A best answer with no such value
    is answered alike by any name; one that holds a number by any value; one that holds a date beside
    a number or a code ("got a 158 in quant" in December) by either ("Scores posted: 165 on quant").
    """
    found = value_kinds(text)
    return not kinds or bool(kinds & found) or ("number" in kinds and bool(found))


def merged(groups: Sequence[Sequence[int]]) -> list[list[int]]:
    """``groups`` joined where they share a member (each index in one group, sorted)."""
    out: list[set[int]] = []
    for group in groups:
        joined = set(group)
        for other in [o for o in out if o & joined]:
            joined |= other
            out.remove(other)
        out.append(joined)
    return [sorted(g) for g in out]


def disagreeing(texts: Sequence[str], vectors: np.ndarray) -> list[list[int]]:
    """Groups (indexes, two or more) of ``texts`` about the same thing that say different things.

    ``vectors``: one L2-normalised row per text. Same thing: ``same_pairs``, linked through
    any member; different: not the same text.
    """
    if len(texts) < 2:
        return []
    same = same_pairs(texts, vectors)
    parent = list(range(len(texts)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    for i in range(len(texts)):
        for j in range(i + 1, len(texts)):
            if same[i, j] and texts[i].strip().lower() != texts[j].strip().lower():
                parent[root(j)] = root(i)
    groups: dict[int, list[int]] = {}
    for i in range(len(texts)):
        groups.setdefault(root(i), []).append(i)
    return [g for g in groups.values() if len(g) > 1]
