"""A part of a total told as the change: a fraction lost, the learner's share, work done several times over.

Three shapes of an incremental update name a part, not an amount with a direction (issue 39, L6):

- **a fraction or percent of the total lost**: "blew a third of the grant", "forgot 10% of my
  words", "trimmed a quarter of section 4", "used up half the budget". The verb of the clause says it is
  lost (``_LOSS``, lemmas by ``simplemma``, or a direction word down, ``directions.sign``); a part with no
  such verb is no change ("about a third of my words are verbs", "a quarter of the credits is reserved");
  a part of someone else's ("half her words") is theirs.
- **the learner's share of a group's count**: "the group did 50, 11 of those were mine", "my share was
  19 km", "I did 7 of them": the share adds, in the group count's unit; the group's own count changes
  nothing of the learner's.
- **work done several times over**: "two more lessons, 1.5 hours each", "rode 25 km three times",
  "40 minutes a day for five days": the count of sessions times the part each adds.

The verbs of loss are a short closed list on purpose: MiniLM does not encode which way a change goes
(docs/decisions/language-layer.md), as for ``agent.language.directions``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent.language.number_roles import not_done
from agent.language.numerals import SYMBOL_BEFORE, numbers
from agent.language.units import unit_of

_PARTS = {"half": 0.5, "third": 1 / 3, "quarter": 0.25, "fifth": 0.2, "tenth": 0.1}
_PORTION = re.compile(
    rf"(?:\b(?:a|one)\s+(?P<part>{'|'.join(_PARTS)})|\b(?P<half>half)|(?P<pct>(?<![\w.])\d+(?:\.\d+)?)\s*"
    r"(?:%|per\s*cent\b|percent\b))\s+(?:of\s+(?P<whose>\w+)|(?P<det>the|my|our|his|her|their))\b",
    re.I,
)
"""A part of a whole: "a third of the grant", "half the budget", "10% of my words", "a quarter of section
2" (not "increasing my spend 50% to add …")."""
_LOSS = frozenset(
    {"lose", "forget", "burn", "use", "spend", "blow", "delete", "remove", "cut", "trim", "erase", "waste"}
    | {"eat", "drop", "scrap", "reset", "wipe"}
)
"""Lemmas of verbs that take a part of a total away (a closed class: MiniLM does not encode direction)."""
_GONE = re.compile(
    r"^\s*(?:[\w'-]+\s+){0,3}?(?:(?:went|goes|gone|go)\s+(?:on|to)\b|(?:are|is|were|was|ha(?:ve|s)\s+been)\s+"
    r"(?:just\s+|simply\s+|all\s+|completely\s+|totally\s+)?(?:gone|lost|forgotten)\b)",
    re.I,
)
"""After the part: it went away ("half of it went on rent", "a fifth of the grant went to fees")."""
_TOOK = re.compile(r"\b(?:took|taken|(?:had|have|has|needed)\s+to\s+take)(?:\s+out)?\s+$", re.I)
"""Before the part: a draw done ("I had to take a fifth of the fund", "took half of my savings"); a habit
("I take half of my lessons online") tells no change."""
REMAINING = re.compile(
    r"(?:what(?:'s|\s+(?:is|was))\s+(?:left|remaining)|what\s+remain(?:s|ed)|the\s+(?:remaining|rest))\b",
    re.I,
)
"""A part of what is left ("a quarter of what was left", "half of the remaining verses"): done, it is gone."""
OTHERS = frozenset({"his", "her", "hers", "their", "theirs", "its"})
"""Possessives of another: "half of hers", "doubled his" are theirs."""


_FRACTION_BEFORE = re.compile(
    rf"(?:(?<![\w/])(?P<num>\d{{1,2}})\s*/\s*(?P<den>\d{{1,2}})|\b(?P<count>a|one|two|three|four)\s+"
    rf"(?P<part>{'|'.join(_PARTS)})s?|\b(?P<half>half))\s+(?:of\s+)?(?:the|my|our|all|those)?\s*$",
    re.I,
)
"""Right before a number: a fraction of it ("2/5 of the 60", "three quarters of my 40", "half the 30")."""
_COUNTS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4}


def fraction_of(text: str, start: int) -> float | None:
    """The fraction told right before the number at ``start`` ("done 3/4 of the 40 drills": 0.75), or None.

    The learner's count is that part of the named total, not the total ("of the 40 drills" names the whole).
    """
    found = _FRACTION_BEFORE.search(text[:start])
    if found is None:
        return None
    if found["num"]:
        num, den = int(found["num"]), int(found["den"])
        return num / den if 0 < num < den else None
    if found["half"]:
        return 0.5
    return _COUNTS[found["count"].lower()] * _PARTS[found["part"].lower()]


_TAKEN_BACK = re.compile(
    r"^\s+of\s+(?:them|those|these|(?:the|my|\w+'s)\s+[\w']+|\w+'s)\b[^.;!?]*?\b(?:(?:was|were|are|is|turned\s+out)"
    r"\s+(?:actually\s+|all\s+|to\s+be\s+)?(?:wrong|incorrect|invalid|mistakes?)\b"
    r"|(?:don't|didn't|doesn't|do\s+not|did\s+not|does\s+not)\s+count\b)",
    re.I,
)
"""After a count: a part of work told before judged not done ("2 of yesterday's were wrong", "3 of them
don't count"); a closed class of judgements, as the verbs of loss are."""


_TAKEN_OFF = re.compile(
    r"^[^.;!?]*?\b(?:(?:take|took|subtract(?:ed)?|knock(?:ed)?|remove[d]?)\s+(?:those|them|these|that)\s+"
    r"(?:off|out\s+of|from)\s+(?:the|my|our)\s+(?:count|total|tally|number)"
    r"|(?:they|those|these)\s+(?:don't|do\s+not|no\s+longer|shouldn't|should\s+not)\s+count)\b",
    re.I,
)
"""Later in the sentence, the count told is taken off the total ("found 12 repeats, so take those off the
count", "deleted 8 cards, they don't count"): the pronoun names the count."""


def taken_back(text: str) -> Portion | None:
    """A part of the learner's work taken back, as a decrement ("3 of those were wrong": -3), or None."""
    for n in numbers(text):
        if _TAKEN_BACK.match(text[n.end :]) or _TAKEN_OFF.match(text[n.end :]):
            return Portion(delta=-n.value)
    return None


@dataclass(frozen=True)
class Portion:
    """A part of the total: ``factor`` a loss leaves, or ``delta`` the learner's share adds, in ``unit``."""

    factor: float | None = None
    delta: float | None = None
    unit: str | None = None


def lost_portion(text: str) -> Portion | None:
    """The factor a part of the total lost leaves ("forgot 10% of my words": x0.9), or None."""
    import simplemma  # noqa: PLC0415 - loaded only when a part is named

    for match in _PORTION.finditer(text):
        if (match["whose"] or match["det"]).lower() in OTHERS or not_done(text, match.start()):
            continue
        clause = re.split(r"[.;!?,:]", text[: match.start()])[-1]
        words = re.findall(r"[A-Za-z]+", clause)[-4:]
        lemmas = {simplemma.lemmatize(w.lower(), lang="en") for w in words}
        gone = _GONE.match(text[match.end() :]) or REMAINING.match(
            text[match.start("whose") or match.end() :]
        )
        gone = gone or _TOOK.search(clause)
        if not lemmas & _LOSS and not gone:
            continue
        part = float(match["pct"]) / 100 if match["pct"] else _PARTS[(match["part"] or "half").lower()]
        if 0 < part < 1:
            return Portion(factor=1 - part)
    return None


_MINE_AFTER = re.compile(
    r"^\s*(?:[A-Za-z]+\s+)??(?:of\s+(?:them|those|these|which|it|that)\s+)?(?:(?:were|was|are|is)\s+)?"
    r"(?:mine|my\s+(?:own|part|share|doing|work))\b",
    re.I,
)
"""After a share: "11 of those were mine", "nine of them mine", "12 were my part", "3 km of that was mine"."""
_MY_SHARE_BEFORE = re.compile(
    r"\bmy\s+(?:own\s+)?(?:share|part|portion|contribution|bit)\s+(?:was|is|came\s+to|:)?\s*(?:about\s+|around\s+)?$",
    re.I,
)
"""Before a share: "my share was 19 km"."""
_EACH_BEFORE = re.compile(r"\b(?:we|they)\s+(?:both\s+|all\s+)?each\s+[a-z]+\s+(?:about\s+)?$", re.I)
"""Before a share of joint work: "we each get 5", "we each logged 3" (the learner's is one of them)."""
_FOR_ME_AFTER = re.compile(r"^\s*(?:[A-Za-z]+\s+)?(?:counts?|counted|goes|go|went)\s+(?:for|to)\s+me\b", re.I)
"""After a share: "so 3 count for me", "4 hours went to me"."""
_I_BEFORE = re.compile(r"\b(?:I|I've|I'd)\s+(?:[a-z]+\s+){1,2}$")
_OF_THEM_AFTER = re.compile(r"^\s*(?:[A-Za-z]+\s+)?of\s+(?:them|those|these|it|which|the\s+\w+)\b", re.I)
""""I did 7 of them", "I read 45 of those": the learner's own part of what the clause before counts."""


def own_share(text: str) -> Portion | None:
    """The learner's share of a group's count ("the group did 50, 11 of those were mine": +11), or None.

    Its unit is the share's own or the group count's ("60 problems"), told before it.
    """
    found = numbers(text)
    for i, n in enumerate(found):
        before, after = SYMBOL_BEFORE.sub("", text[: n.start]), text[n.end :]
        mine = _MINE_AFTER.match(after) or _MY_SHARE_BEFORE.search(before)
        mine = mine or (_I_BEFORE.search(before) and _OF_THEM_AFTER.match(after))
        mine = mine or _EACH_BEFORE.search(before) or _FOR_ME_AFTER.match(after)
        if not mine or not_done(text, n.start):
            continue
        unit = unit_of(text, n)
        if unit is None or re.match(r"(?:of|were|was|mine)\b", unit, re.I):
            unit = next((unit_of(text, m) for m in found[:i] if unit_of(text, m)), None)
        return Portion(delta=n.value, unit=unit)
    return None


_TIMES_EACH = re.compile(
    r"\s+(?:more\s+|extra\s+|new\s+|additional\s+)?(?:[A-Za-z][\w-]*\s+)?[A-Za-z][\w-]*(?:\s+this\s+\w+)?"
    r"(?:\s*,\s*|\s+of\s+|\s+at\s+)"
)
"""Between a count of sessions and the amount of each: "three sessions, 2 hours each", "two rides of 9 km"."""
_EACH_CLAUSE = re.compile(
    r"\s+(?:[A-Za-z][\w-]*\s*){1,5}?(?:[,;]\s*(?:and\s+)?|and\s+)"
    r"(?:each(?:\s+one|\s+of\s+them)?|every\s+one)\s+(?:was|is|lasted|took|ran)\s+(?:about\s+|around\s+)?",
    re.I,
)
"""The amount of each in its own clause: "three more lessons, each one was 1.5 hours"."""
_EACH_ONE = re.compile(r"\b(?:each|every)\s+one$", re.I)
"""'one' of 'each one' is no count."""
_EACH_AFTER = re.compile(r"\s*[A-Za-z]+\s+(?:each|apiece|a\s+piece|per\s+\w+|every\s+time)\b", re.I)


def repeated_work(text: str) -> Portion | None:
    """Work done several times over: the count of sessions times the amount of each, or None.

    "two more lessons, 1.5 hours each": 3 hours; "rode 25 km three times"; "4 hours twice" (a rate
    over a span, "40 minutes a day for five days", is ``quantities``').
    """
    found = [n for n in numbers(text) if not not_done(text, n.start) and not _EACH_ONE.search(text[: n.end])]
    for a, b in zip(found, found[1:], strict=False):
        between, after = text[a.end : b.start], text[b.end :]
        # "three sessions, 2 hours each", "two rides of 9 km"
        each = _EACH_AFTER.match(after) or ("of" in between.split() and unit_of(text, b))
        each = re.fullmatch(_TIMES_EACH, between) and each
        if each or (_EACH_CLAUSE.fullmatch(between) and unit_of(text, b)):
            return Portion(delta=a.value * b.value, unit=unit_of(text, b))
        by_times = re.fullmatch(r"\s*[A-Za-z]+\s+", between) and re.match(r"\s+times\b", after, re.I)
        if by_times:
            return Portion(delta=a.value * b.value, unit=between.split()[0])
    for a in found:
        if re.match(r"\s*[A-Za-z]+\s+twice\b", text[a.end :], re.I):
            return Portion(delta=2 * a.value, unit=unit_of(text, a))
    return None
