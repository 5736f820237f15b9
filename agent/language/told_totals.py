"""Totals a statement tells rather than changes: its own new total, or what is still to go.

A statement of a change may give the total itself ("added 20 more, so now I have 300", "up by 45 to
1655", "did another 5 today (now 13)"): the learner's number is the value, not a sum KAG computes
(``names_a_total``; ``total_told`` cuts the statement before it for ``agent.memory.fact_changes``). An
amount compared or still to go ("3 more points than my friend", "5 more lessons to go", "10 more left")
is no change either (``still_to_go``). ``agent.language.quantities.amount_change`` reads a change only
from the amounts these leave.
"""

from __future__ import annotations

import re

from agent.language.number_roles import clause_before
from agent.language.numerals import SIGNS, Number, numbers

_STILL_TO_GO = re.compile(
    r"^[^.;!?,]*?\b(?:than|to\s+go|remaining|until|before\s+i|pending|awaiting"
    r"|still\s+(?:under|in|pending|waiting|open|to\s+\w+))\b",
    re.I,
)
"""After the amount: still to do or not done yet ("5 more lessons to go", "two still under review")."""
_LEFT_AFTER = re.compile(r"^\s+(?:[\w'-]+\s+){0,3}?left\b", re.I)
HAVE = re.compile(r"\b(?:have|has|had|got|there(?:'s|\s+is|\s+are|\s+were))\b|'ve\b", re.I)
"""Before an amount, in its clause: the learner has it ("I have 10 left"), a state, no work done."""


def still_to_go(text: str, n: Number) -> bool:
    """True when the amount is what is still to do: "5 more lessons to go", "I have 10 cards left".

    "left" after the amount is what remains when the clause has it ("I have 10 left"), else it is
    the verb of people leaving ("Three members left in January").
    """
    after = text[n.end :]
    return bool(
        _STILL_TO_GO.match(after) or (_LEFT_AFTER.match(after) and HAVE.search(clause_before(text, n.start)))
    )


_TOTAL_BEFORE = re.compile(
    r"\b(?:now(?:\s+[\w']+){0,3}|(?:is|are|stands?|sits?)\s+at|total(?:\s+of)?|reached|reaching|hits?|to)"
    rf"\s+(?:about\s+|around\s+)?[{SIGNS}]?$",
    re.I,
)
"""Before a number the statement gives as the new total ("… 20 more, so now I have 300", "up by 45 to
1655", "now at €640"): then it names its own value and there is nothing to compute."""
_RESULT_BEFORE = re.compile(
    r"\b(?:leaving(?:\s+(?:me|us|him|her|them))?(?:\s+with)?|so\s+(?:i|we)(?:'ve|\s+have)(?:\s+got)?)"
    rf"\s+(?:only\s+|just\s+)?[{SIGNS}]?$",
    re.I,
)
"""... or, after a change told before it, what the change leaves the learner ("cut 400 from it, leaving
me 800", "took 150 off, so I've 250"): the result, never a second change of the same sentence. Only after
another number: "leaving 3 days early, I did 10 more" leaves nothing."""


_COMPARED_AFTER = re.compile(r"\s+(?:[\w'-]+\s+)?(?:more|fewer|less)\b", re.I)


def left_by_change(text: str, n: Number) -> bool:
    """True when ``n`` is what a change told before it leaves ("cut 400 from it, leaving me 800").

    Read by ``_RESULT_BEFORE``; "so we have 5 fewer" is the change itself, not what it leaves.
    """
    head = text[: n.start]
    return bool(_RESULT_BEFORE.search(head) and numbers(head) and not _COMPARED_AFTER.match(text[n.end :]))


def _a_total(text: str, n: Number) -> bool:
    """True when ``text`` tells ``n`` as a total (``_TOTAL_BEFORE``, or what a change leaves)."""
    return bool(_TOTAL_BEFORE.search(text[: n.start])) or left_by_change(text, n)


def names_a_total(text: str, own: Number | None = None) -> bool:
    """True when ``text`` gives a new total beside its change ``own`` ("added 20 more, now at 300")."""
    return any(_a_total(text, n) for n in numbers(text) if n != own)


_AFTER_CHANGE = re.compile(r"\s*(?:\(|[,;:]|\b(?:so|and)\b)")
"""Where a total told after the change opens: "(now 13)", ", now 40 this month", "so now I have 300"."""


def total_told(text: str) -> tuple[str, float] | None:
    """The statement cut before the one total it tells after its change, and that total, or None.

    "did another 5 today (now 13)": ("did another 5 today", 13). The learner's own count may be the
    total or a part of it (this week's of the month's): ``agent.memory.fact_changes`` applies the change
    when the count is less than the value it changes, and leaves the learner's number alone otherwise.
    """
    if not isinstance(text, str):
        return None
    told = [n for n in numbers(text) if _a_total(text, n)]
    if len(told) != 1:
        return None
    head = text[: told[0].start]
    cuts = [m.start() for m in _AFTER_CHANGE.finditer(head) if numbers(head[: m.start()])]
    if not cuts:
        return None
    return head[: cuts[0]].strip(), told[0].value
