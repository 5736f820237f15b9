"""Whether a statement names a value, and whether the value is the learner's own (issue 39).

A learner tells a value of theirs without a first-person word: with the subject "I" left out
("Passed the B1 Dutch exam!", "Did another 15% over the weekend") or as something others did to
it ("They brought the final forward three days"). ``has_a_value`` reads whether a statement names
a value at all (a number, a date, a name or a code); ``owns_a_value`` whether it reads like a
value of the learner's rather than news, a general truth or someone else's life: a logistic
regression over MiniLM vectors of ``agent.language.fact_exemplars`` (the reader of
``agent.language.about``, trained on other exemplars). ``agent.language.facts`` asks it only for
statements no other rule stores, so what was a fact stays one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from agent.language.about import train
from agent.language.encoder import encode
from agent.language.fact_exemplars import NOT_OWN, OWN
from agent.language.quantities import numbers
from agent.language.shifts import states_a_value

if TYPE_CHECKING:  # sklearn costs seconds to import: loaded on the first read
    from sklearn.linear_model import LogisticRegression

OWN_VALUE = 0.4
"""Probability at which a statement without the first person tells a value of the learner's own
(``owns_a_value``), chosen by leave-one-out over ``fact_exemplars`` (``bench.fact_write_knobs``)."""
_NAMED = re.compile(r"(?<=\S)\s+(?!I\b|I'[a-z]+\b)(?:[A-Z][\w.+#'-]*|[a-z]+[A-Z0-9][\w.+#-]*|\w*\d\w*)")
"""A name, a code or a number after the first word ("at Mercado Libre", "the B1 exam", "iPad", "N3");
"I" is no name."""


@lru_cache(maxsize=1)
def _own_classifier() -> LogisticRegression:
    """The classifier over every exemplar (trained on first use)."""
    return train([*OWN, *NOT_OWN], ["own"] * len(OWN) + ["not"] * len(NOT_OWN))


def own_probability(texts: list[str], model: LogisticRegression | None = None) -> list[float]:
    """Probability that each of ``texts`` tells a value of the learner's own (``fact_exemplars``)."""
    if not texts:
        return []
    model = model or _own_classifier()
    column = list(model.classes_).index("own")
    return [float(p) for p in model.predict_proba(encode(texts))[:, column]]


def has_a_value(text: str) -> bool:
    """True when ``text`` names a value: a number, a date, a name or a code after its first word."""
    return bool(numbers(text) or _NAMED.search(text) or states_a_value(text))


def owns_a_value(text: str) -> bool:
    """True when ``text``, with no first-person word, tells a value of the learner's own.

    The subject "I" left out ("Passed the B1 Dutch exam!"), or the learner's thing changed by
    others ("They brought the final forward three days"): a value (``has_a_value``) and a
    statement like ``fact_exemplars.OWN`` rather than ``NOT_OWN`` (news, general truths, someone
    else's life), at least ``OWN_VALUE``.
    """
    return has_a_value(text) and own_probability([text])[0] >= OWN_VALUE
