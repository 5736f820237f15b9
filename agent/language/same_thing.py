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

With the question, the read-time net also groups what two statements alone cannot join: the
question net (``agent.language.question_net.answer_groups``).

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

from agent.language.about import parts
from agent.language.facts import fact_slot
from agent.language.shifts import value_kind

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
        if value and value != "I" and not _shouted(value):
            found.add(value.lower())
    return found


def _shouted(value: str) -> bool:
    """A function word in capitals for stress ("tuesday AND thursday"): no name (spaCy's stop words)."""
    from spacy.lang.en.stop_words import STOP_WORDS  # noqa: PLC0415 - spaCy's import is paid by the parse

    return len(value) > 2 and value.isupper() and value.lower() in STOP_WORDS


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
    return bool(beyond(held_a, held_b) or beyond(held_b, held_a))


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
    return not held or bool(beyond(held, values(best)))


def _content(text: str) -> frozenset[str]:
    """The lemmas (``simplemma``) of the words of ``text`` of four letters or more.

    What two plain statements differ in ("Working as a barista" says what "I work as a barista" says).
    """
    import simplemma  # noqa: PLC0415 - loaded only when neither statement holds a value

    return frozenset(simplemma.lemmatize(w.lower(), lang="en") for w in re.findall(r"[^\W\d_]{4,}", text))


def beyond(found: set[str], known: set[str]) -> set[str]:
    """The values of ``found`` that no value of ``known`` holds or is part of ("docs" is in "google docs")."""
    return {
        v for v in found if not any(re.search(rf"(?<!\w){re.escape(k)}(?!\w)", v) or v in k for k in known)
    }


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
