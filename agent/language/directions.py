"""Which way a stated change goes: up or later, down or earlier (issue 39, L6).

``sign`` reads the direction of the change stated at a place of a learner's text from the
nearest direction word ("postponed", "brought … forward", "cut", "went up"). This one is a short
word list on purpose: MiniLM does not encode which way a change goes (leave-one-out over
direction exemplars was 0%, docs/decisions/language-layer.md); with no direction word the change
is not resolved (never a guess). The parse (``agent.language.grammar``) keeps the words of other
sentences and of clauses aside ("… because the library database was down") out of it, and
``gives_time`` reads more time given to a recipient as later ("gave the whole class an extra week").
"""

from __future__ import annotations

import re

from agent.language.grammar import parse, token_at

_UP = re.compile(
    r"\b(?:later|postpon(?:e[sd]?|ing)|delay(?:ed|s|ing)?|slip(?:s|ped|ping)?"
    r"|(?:push(?:ed|es|ing)?|put(?:s|ting)?|mov(?:e[sd]?|ing)|set(?:s|ting)?)\s+(?:\w+\s+){0,4}?(?:back|out)"
    r"|extend(?:ed|s|ing)?|rais(?:e[sd]?|ing)|increas(?:e[sd]?|ing)|up|gr[eo]wn?|growing|gain(?:s|ed|ing)?|rose"
    r"|add(?:s|ed|ing)?|more|extensions?|upp(?:ed|ing|s)|bump(?:s|ed|ing)?|boost(?:s|ed|ing)?|hik(?:e[sd]?|ing)|(?:gave|given|give[sn]?|grant(?:s|ed)?)\s+(?:me|us))\b",
    re.I,
)
"""A change up or later, in any tense ("postponed", "is reducing", "pushing it out")."""
_DOWN = re.compile(
    r"\b(?:earlier|sooner|(?:br[oi]ught|bring(?:s|ing)?|mov(?:e[sd]?|ing)|pull(?:s|ed|ing)?)\s+(?:\w+\s+){0,4}?forward"
    r"|cut(?:s|ting)?|reduc(?:e[sd]?|ing)|lower(?:s|ed|ing)?|down|shr[aiu]nk(?:s|ing)?|shorten(?:s|ed|ing)?"
    r"|drop(?:s|ped|ping)?|fell|decreas(?:e[sd]?|ing)|fewer|less|lost|losing|trim(?:s|med|ming)?|slash(?:ed|ing)?|scal(?:e[sd]?|ing)\s+back)\b",
    re.I,
)


def sign(text: str, at: int, inside: tuple[int, int] = (0, 0)) -> int | None:
    """The direction of the change stated around ``at``: the nearest direction word wins.

    "After the rent went up I reduced the budget by 100": "reduced" is nearer to "by 100"
    than "up", whose change is the rent's. A tie (or no word) is no direction. Words
    ``inside`` the span of the difference itself ("three *more* days") are no direction, nor
    words of another sentence or of a clause aside (``_asides``: "… because the database was down").
    """
    asides = _asides(text, at)
    nearest: dict[int, int] = {}
    for sign, pattern in ((1, _UP), (-1, _DOWN)):
        found = [
            m
            for m in pattern.finditer(text)
            if not inside[0] <= m.start() < inside[1] and not any(a <= m.start() < b for a, b in asides)
        ]
        spans = [m.end() if m.end() <= at else m.start() for m in found]
        if spans:
            nearest[sign] = min(abs(at - s) for s in spans)
    if not nearest or (len(nearest) == 2 and nearest[1] == nearest[-1]):
        return None
    return min(nearest, key=lambda k: nearest[k])


_ASIDE_DEPS = frozenset({"advcl", "relcl", "parataxis"})


def _asides(text: str, at: int) -> list[tuple[int, int]]:
    """Spans of ``text`` whose direction words are not the change's at ``at`` (the parse, ``grammar``).

    Other sentences, and clauses that hang off the change's clause without holding it: a reason or a
    time ("because the library database was down", "after the rent went up"), a relative clause.
    """
    doc = parse(text)
    token = next((t for t in doc if t.idx <= at < t.idx + len(t.text) + 1), None)
    if token is None:
        return []
    spans = [(s.start_char, s.end_char) for s in doc.sents if not s.start_char <= at < s.end_char]
    for head in doc:
        if head.dep_ not in _ASIDE_DEPS or head.pos_ not in {"VERB", "AUX"}:
            continue
        words = list(head.subtree)
        if token in words:
            continue
        spans.append((words[0].idx, words[-1].idx + len(words[-1].text)))
    return spans


def gives_time(text: str, at: int) -> bool:
    """True when the duration at ``at`` is given to someone ("gave the whole class an extra week").

    The parse: the duration is the direct object of a verb that also has a recipient (a dative):
    more time given is a date moved later, whoever receives it (the learner, or a group of theirs).
    """
    doc = parse(text)
    token = token_at(doc, at)
    while token is not None and token.head.pos_ not in {"VERB", "AUX"} and token.head.i != token.i:
        token = token.head
    if token is None or token.dep_ not in {"dobj", "npadvmod"}:
        return False  # the parser reads "an extra week" after a recipient as an object or a measure
    return any(c.dep_ in {"dative", "iobj"} for c in token.head.children)
