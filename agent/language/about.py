"""What a statement is about: which one-value part of a learner's life it tells (MiniLM).

A learner tells a new job, home, major, study device, language or note app in words no rule
lists ("These days I teach chemistry", "Writing from my new flat in Lyon"). Two such
statements share few words and their whole-sentence cosine is low (0.1 to 0.5), yet they
are about the same thing. ``about`` reads which part a statement is about with a logistic
regression over MiniLM vectors (``agent.language.encoder``), trained on statements written
for KAG (``about_exemplars.ABOUT``); ``other`` is the class of everything else (scores,
dates, feelings, someone else's life). A label counts only when its probability is at least
``SURE``; otherwise the statement is about ``other``.

``agent.language.same_thing.same_pairs`` uses it at read time only: two open facts about
the same part that are also at least ``same_thing.ABOUT_FLOOR`` close show newest first. It
never retires a fact: a wrong label at write time would lose data (a reader of this kind
choosing the slot at write time was taken back on 2026-11-27: "I moved to Hanoi" read as
study). ``SURE`` was chosen by leave-one-out over fact pairs (``python -m bench.fact_knobs``),
``REGULARISATION`` by leave-one-out accuracy over the exemplars (C 1: 0.70, 4: 0.77, 8: 0.78,
16: 0.79).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from sklearn.linear_model import LogisticRegression

from agent.language.about_exemplars import ABOUT
from agent.language.encoder import encode

OTHER = "other"
SURE = 0.4
"""Probability at which a statement is read as about a part (else ``other``)."""
REGULARISATION = 16.0
"""Inverse L2 strength of the logistic regression (``C``)."""


def train(texts: list[str], labels: list[str], *, c: float = REGULARISATION) -> LogisticRegression:
    """A classifier of MiniLM vectors of ``texts`` by ``labels``."""
    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(encode(texts), labels)
    return model


@lru_cache(maxsize=1)
def _classifier() -> LogisticRegression:
    texts = [t for label in ABOUT for t in ABOUT[label]]
    labels = [label for label in ABOUT for _ in ABOUT[label]]
    return train(texts, labels)


def read(
    vectors: np.ndarray, model: LogisticRegression | None = None, *, sure: float | None = None
) -> list[str]:
    """The part each row of ``vectors`` (L2-normalised MiniLM) is about, or ``other``."""
    if len(vectors) == 0:
        return []
    model = model or _classifier()
    sure = SURE if sure is None else sure
    probs = model.predict_proba(np.asarray(vectors, dtype="float32"))
    best = probs.argmax(axis=1)
    return [str(model.classes_[b]) if probs[i, b] >= sure else OTHER for i, b in enumerate(best)]


def about(text: str) -> str:
    """The part of the learner's life ``text`` tells (``job``, ``home`` …), or ``other``."""
    if not isinstance(text, str) or not text.strip():
        return OTHER
    return read(encode([text]))[0]
