"""Which current fact a learner's statement outside the known slots gives a new value to.

A change told as a difference ("postponed by a week", "another 60 words", "cut in half") or as
a new number for the same thing closes the fact it changes and writes the new value
(``agent.memory.facts.FactStore``); the language layer reads the change
(``agent.language.differences``, ``change_owner``, ``restated``), this module chooses the fact.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from agent.language.change_owner import (
    crosses_a_group,
    names_a_thing,
    names_another_owner,
    names_another_thing,
)
from agent.language.differences import (
    CHANGE_MIN,
    DATE_CHANGE_MIN,
    DONE_MIN,
    LOOSE_CHANGE_MIN,
    LOOSE_MARGIN,
    NAMED_LOOSE_MIN,
    NEWER_MARGIN,
    anothers_count,
    counts_alike,
    only_bounds,
    resolve_change,
)
from agent.language.encoder import encode
from agent.language.numerals import numbers
from agent.language.restated import RESTATE_MIN, restates
from agent.language.same_thing import (
    retire_choice,
    same_pairs,
)
from agent.language.shifts import names_its_value, shift
from agent.language.told_totals import total_told
from agent.language.units import same_period


def changed_fact(
    p: dict[str, Any], rows: Sequence[dict[str, Any]]
) -> tuple[dict[str, Any], str | None] | None:
    """The current fact a statement outside the known slots gives a new value to, or None.

    ``rows``: the learner's closest current facts (``FACT_CLOSEST``, best first). A change
    stated as a difference ("postponed by a week", "another 60 words", "cut in half") takes the
    closest fact it resolves against (cosine at least ``differences.CHANGE_MIN``, a date moved:
    ``DATE_CHANGE_MIN``) and the new
    value ("June 19"; from a changed fact's "(now …)" value), or with none that close the newest
    it loosely changes (an ellipsis, "Did eleven more over the weekend"; ``_loosely_changes``);
    any other statement takes
    the fact ``retire_choice`` is near-certain of, with no value (``agent.language.same_thing``),
    or else a fact holding a computed total the statement restates outright (``restated.restates``).
    """
    if p["slotted"] or not p["predicate"].startswith("fact:") or not rows:
        return None
    change = shift(p["text"])
    new_at = datetime.fromisoformat(p["valid_from"])
    if change is not None:
        low = DATE_CHANGE_MIN if change.time is not None else DONE_MIN if change.done else CHANGE_MIN
        return _changed_by_difference(p["text"], rows, new_at, low, mine=change.mine)
    part = _part_told(p["text"], rows, new_at)
    if part is not None:
        return part
    chosen = retire_choice(p["text"], [r["text"] or "" for r in rows], [r["score"] for r in rows])
    if chosen is None:
        # "Correction: … I'm at 52 hours total" after "(now 46.5)": the learner's own total outranks KAG's
        chosen = next(
            (
                i
                for i, r in enumerate(rows)
                if r["score"] >= RESTATE_MIN and restates(p["text"], r["text"] or "")
            ),
            None,
        )
    return None if chosen is None else (dict(rows[chosen]), None)


def _part_told(
    text: str, rows: Sequence[dict[str, Any]], new_at: datetime
) -> tuple[dict[str, Any], str] | None:
    """The change of a statement that tells a count of its own after it, when that count is only a part.

    "did another 5 today (now 13 this week)" beside "(now 60)" for the month: the learner's 13 is less than
    the value the change adds to, so it is a part of the total (this week's), not the total, and the change
    applies (65). A count at or above that value is the learner's total, and left to the learner's number.
    """
    told = total_told(text)
    change = None if told is None else shift(told[0])
    if told is None or change is None or change.factor is not None or not (change.amount or 0) > 0:
        return None
    low = DONE_MIN if change.done else CHANGE_MIN
    found = _changed_by_difference(told[0], rows, new_at, low, mine=change.mine)
    value = None if found is None else numbers(found[1])
    if found is None or not value or told[1] >= value[0].value - (change.amount or 0):
        return None
    return found


def _changed_by_difference(
    text: str,
    rows: Sequence[dict[str, Any]],
    new_at: datetime,
    low: float,
    *,
    mine: bool = False,
) -> tuple[dict[str, Any], str] | None:
    """The fact a difference changes and its new value: the closest it resolves against at ``low`` or more.

    Two open facts can hold one thing's old and new value when the write was not sure enough
    to close the old one ("My midterm is on May 4", then "The professor put the midterm on May
    11"); the closest may be the older. Among the facts it resolves against, a newer one about
    the same thing as the closest (``same_thing.same_pairs``, the read-time net's own test, so
    the value changed is the one a search shows first) and nearly as close to the statement
    (``differences.NEWER_MARGIN``: "20 new words to the Czech deck" is not about the Polish
    one) is the value the difference changes. The learner's share of a group's count (``mine``: "15 of
    those were mine") is the learner's whoever the group is.
    """
    found: list[tuple[dict[str, Any], str]] = []
    fits: list[tuple[dict[str, Any], str]] = []
    for row in rows:
        if row["score"] < LOOSE_CHANGE_MIN:
            break
        old_at = datetime.fromisoformat(row["valid_from"])
        value = resolve_change(
            text, row["text"] or "", old_at=old_at, new_at=new_at, close=row["score"] >= low
        )
        if value is None:
            continue
        old = row["text"] or ""
        if not mine and names_another_owner(text, old) and not names_its_value(text):
            continue  # "My instructor has put in 3000 hours" is no change of the learner's hours
        if mine and anothers_count(old):
            continue  # "nine of them were mine" adds to the learner's count, never to a friend's
        if not mine and crosses_a_group(text, old):
            continue  # "and I did 9 more myself" is no change of the study group's count
        if row["score"] >= low:
            found.append((dict(row), value))
        elif _loosely_changes(text, old, row["score"]):
            fits.append((dict(row), value))  # work done too: resolved on its word and verb, or a total so far
    if not found and fits:
        # An increment told as an ellipsis ("Did eleven more over the weekend", "Lost 20 last
        # night") is far by meaning from the total it changes: the newest it fits, else the clearly closest.
        return _loose_choice(fits)
    if len(found) < 2:
        return found[0] if found else None
    texts = [str(row["text"] or "") for row, _ in found]
    same = same_pairs(texts, encode(texts))[0]
    near = found[0][0]["score"] - NEWER_MARGIN
    newest = max(
        (k for k in range(len(found)) if k == 0 or (same[k] and found[k][0]["score"] >= near)),
        key=lambda k: str(found[k][0]["valid_from"]),
    )
    return found[newest]


def _loose_choice(loose: list[tuple[dict[str, Any], str]]) -> tuple[dict[str, Any], str] | None:
    """Of the facts a change loosely fits, the one it changes, or None when it is not clear.

    The newest when newer than all the others (what the conversation was last about), else the
    closest when at least ``differences.LOOSE_MARGIN`` closer than the next; else none: a wrong
    total is worse than none ("My supervisor granted me a two-week extension" beside a due date and
    a defence told the same day).
    """
    if len(loose) == 1:
        return loose[0]
    by_time = sorted(loose, key=lambda f: str(f[0]["valid_from"]), reverse=True)
    if str(by_time[0][0]["valid_from"]) > str(by_time[1][0]["valid_from"]):
        return by_time[0]
    by_score = sorted(loose, key=lambda f: -f[0]["score"])
    return by_score[0] if by_score[0][0]["score"] - by_score[1][0]["score"] >= LOOSE_MARGIN else None


def _loosely_changes(text: str, old: str, score: float) -> bool:
    """True when a change below the cosine knob still changes ``old`` (``differences.LOOSE_CHANGE_MIN``).

    Its number counts what the change counts, the change names no other thing, and a change that
    names its thing ("HR cut everyone's training budget") is at least ``NAMED_LOOSE_MIN`` close. A
    thing the change names by the value's role ("Professor Klein pushed the deadline back by a week",
    ``shifts.names_its_value``) or a share of a recurring amount of the same period ("The grant renewal
    came through with 10% more per month" of "My stipend is 1,500 euros a month",
    ``units.same_period``) is no other thing: the role and the period name the value. An ellipsis
    ("Churned out 730 more") continues a count, never a bound or a price ("The word limit is 25,000",
    ``differences.only_bounds``) unless it names one.
    """
    named_ok = score >= NAMED_LOOSE_MIN or not names_a_thing(text)
    if not named_ok or not counts_alike(text, old) or only_bounds(text, old):
        return False
    if names_its_value(text):
        return True  # "My supervisor pushed the deadline back": the value's role, whoever acts on it
    named = shift(text)
    counted = named is not None and named.unit not in (None, "percent")  # it names what it counts
    return not names_another_thing(text, old, counted=counted) or same_period(text, old)
