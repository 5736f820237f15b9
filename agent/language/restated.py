"""A total the learner states outright outranks one KAG computed from a change (issue 39, L6).

KAG writes a running total it computed into the changed fact ("Did another 6.5 hours this week
(now 46.5)", ``agent.language.differences``). When the learner later states the total outright
("Correction: my teacher's logbook says I'm at 52 hours total", "Actually it's 52 now"), the
learner's own number is the value: :func:`restates` tells the fact store
(``agent.memory.fact_changes.changed_fact``) to close the computed fact, so the newer stated
total is the current one. It applies only to a computed value ("(now …)"): a total the learner
stated twice is the read-time net's to order.

The new statement restates the total when it is no change itself (no difference), states a
number that is not another person's (``number_owners.number_owner``: "my friend has 60 hours" is
no correction) and not the computed value, and counts what the computed value counts (the same
counted word, or no word on either side: "it's 52 now"); and the two statements are at least
``RESTATE_MIN`` close (MiniLM cosine; leave-one-out: ``python -m bench.increment_knobs``).
"""

from __future__ import annotations

import re

from agent.language.number_owners import groups_count, number_owner
from agent.language.number_roles import stated_as_target
from agent.language.numerals import current_value, numbers, without_current
from agent.language.units import unit_of

RESTATE_MIN = 0.2
"""A stated total closes a computed one at least this close (cosine of the statements; leave-one-out)."""


def _words(unit: str | None) -> set[str]:
    return {w.lower().removesuffix("s") for w in re.findall(r"[A-Za-z]+", unit or "")}


def _counts(unit: str | None, units: list[str | None]) -> bool:
    """The same counted word ("52 hours total" and "6.5 hours"), or no word on either side."""
    if unit is None or not any(units):
        return True
    return any(_words(unit) & _words(u) for u in units if u)


def restates(new: str, old: str) -> bool:
    """True when ``new`` states outright the total ``old`` holds as a computed "(now …)" value."""
    from agent.language.shifts import shift  # noqa: PLC0415 - shifts imports this layer's peers

    now = current_value(old)
    if now is None or not isinstance(new, str) or shift(new) is not None or groups_count(new):
        return False  # "Our choir has sung 400 hours between us" is the choir's count, not the learner's
    computed = numbers(now)
    stated = [n for n in numbers(new) if number_owner(new, n.start) != "another"]
    base = without_current(old)
    if not any(stated_as_target(base, n) for n in numbers(base)):
        # "The limit is 12,000" beside a running count: a bound is another quantity (a bound changed is not)
        stated = [n for n in stated if not stated_as_target(new, n)]
    if len(computed) != 1 or len(stated) != 1 or stated[0].value == computed[0].value:
        return False
    units = [unit_of(base, n) for n in numbers(base)]
    return _counts(unit_of(new, stated[0]), units)
