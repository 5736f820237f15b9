"""The effort a learner's request calls for, by its nearest labelled exemplars.

The intents are ``agent.heartbeat.effort``'s: ``simple_recall`` (one fact, a statement, chat),
``computation``, ``temporal_comparison``, ``multi_source_synthesis``,
``contradiction_resolution`` (which version of a changing value is current) and
``procedural``. A request takes the label of the ``TOP_K`` exemplars
(``agent.language.exemplars.INTENTS``) it is closest to on average; no word list decides.

An intent is the *frame* of a request, not its topic ("Where did I live before Hanoi?" asks
about order, as "Which editor did I use earlier?" does), and MiniLM vectors are mostly
topic. So each text is compared as its vector minus ``TOPIC_WEIGHT`` times the vector of its
content words (those outside ``agent.text.FUNCTION_WORDS``), renormalised: what is left is
how the request asks. ``TOPIC_WEIGHT`` 0.7 was chosen by leave-one-out over the exemplars
(whole vectors 0.46, frames 0.55 at k = 3; ``python -m bench.language --loo``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from agent.language import exemplars
from agent.language.encoder import ExemplarClassifier, encode
from agent.text import FUNCTION_WORDS

DEFAULT_INTENT = "simple_recall"
TOPIC_WEIGHT = 0.7
"""How much of the content words' vector is taken out of a request's (module docstring)."""
_PERSON = frozenset({"learner", "learner's", "i", "my", "me"})


def topic_words(text: str) -> str:
    """The content words of ``text`` (what it is about), or the text when it has none."""
    words = re.findall(r"[\w'+#.-]+", text)
    kept = [w for w in words if w.lower() not in FUNCTION_WORDS and w.lower() not in _PERSON]
    return " ".join(kept) or text


def frames(texts: Sequence[str]) -> np.ndarray:
    """Vectors of ``texts`` with their topic taken out (module docstring)."""
    whole = encode(list(texts))
    topic = encode([topic_words(t) for t in texts])
    framed = whole - TOPIC_WEIGHT * topic
    return framed / np.maximum(np.linalg.norm(framed, axis=1, keepdims=True), 1e-9)


@lru_cache(maxsize=1)
def _intents() -> ExemplarClassifier:
    return ExemplarClassifier(exemplars.INTENTS, embed=frames)


def intent_of(text: str) -> str:
    """The intent of ``text`` (``simple_recall`` for an empty text)."""
    if not isinstance(text, str) or not text.strip():
        return DEFAULT_INTENT
    label, _ = _intents().classify(text.strip()[:2000])
    return label
