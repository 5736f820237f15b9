"""Does a stored statement tell the learner's current value? (the parse, ``agent.language.grammar``).

The read-time net (``agent.language.same_thing``) groups the facts that answer one question with
different values and shows the newest first, the older "was until …". A newer statement is no
newer version of the learner's value when it only *might* be one, or when it is someone else's:

- **hedged** (``hedged``): its verb carries a modal of possibility or wish ("I might do a summer
  course in Dresden", "I'd love to work at Spotify"), an epistemic adverb ("Thinking about maybe
  trying Pimsleur", "probably won't even reply"), or a negated "will" (an offer declined: "won't
  even reply"). Verbs of intention are not a hedge here: "…my major is computer science and I
  want to be solid on recursion" states the value in one clause and a wish in another;
- **another person's**: the reader the write side stores by (``agent.language.current_values.others``:
  "My friend Lena has lessons with Herr Kaltenbrunner", "my flatmate gets 650", "She is using
  MongoDB"; not "the teacher put me in the B2 class" or "Prof. Hallberg has taken over my
  supervision"), so the two sides never disagree about whose a value is.

Such a statement may still be shown (the search ranks it), but it never becomes the newer version
of the learner's value, nor marks the learner's value "was until" (``not_current``). It reads the
text alone, so facts stored by any older write read the same. Only closed grammatical classes are
named here: modal verbs and epistemic adverbs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.language.current_values import others
from agent.language.grammar import parse

if TYPE_CHECKING:
    from spacy.tokens import Token

HEDGE_MODALS = frozenset({"might", "may", "could", "would", "should", "'d"})
"""Modal verbs of possibility or wish (not "will", "can", "must": "I will start at Bosch on Monday")."""
EPISTEMIC = frozenset({"maybe", "perhaps", "probably", "possibly"})
"""Adverbs that leave a statement open."""


def hedged(text: str) -> bool:
    """Whether ``text`` leaves its statement open: a modal of possibility or wish, an epistemic adverb."""
    for token in parse(text):
        lemma = token.lemma_.lower()
        if token.tag_ == "MD" and (
            lemma in HEDGE_MODALS
            or token.lower_ in HEDGE_MODALS
            or (lemma == "will" and _negated(token.head))
        ):
            return True  # "might do", "'d love to", "won't even reply"
        if token.dep_ == "advmod" and lemma in EPISTEMIC:
            return True
    return False


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def not_current(text: str) -> bool:
    """Whether ``text`` is no version of the learner's current value: hedged or another's."""
    if not isinstance(text, str) or not text.strip():
        return False
    return hedged(text) or others(text)
