"""What a statement is about: which one-value part of a learner's life it tells (MiniLM).

A learner tells a new job, home, major, study device, language or note app in words no rule
lists ("These days I teach chemistry", "Writing from my new flat in Lyon"). Two such
statements share few words and their whole-sentence cosine is low (0.1 to 0.5), yet they
are about the same thing. ``about`` reads which part a statement is about with a logistic
regression over MiniLM vectors (``agent.language.encoder``), trained on statements written
for KAG (``about_exemplars.ABOUT``); ``other`` is the class of everything else (scores,
dates, feelings, someone else's life). A label counts only when its probability is at least
``SURE``; otherwise the statement is about ``other``. ``agent.language.facts`` also asks it
whether a statement without the first person tells the learner's life ("Home is a village
outside Kraków.").

``agent.language.same_thing.same_pairs`` uses it at read time only: two open facts about
the same part that are also at least ``same_thing.ABOUT_FLOOR`` close show newest first. It
never retires a fact: a wrong label at write time would lose data (a reader of this kind
choosing the slot at write time was taken back on 2026-11-27: "I moved to Hanoi" read as
study). ``SURE`` was chosen by leave-one-out over fact pairs (``python -m bench.fact_knobs``),
``REGULARISATION`` by leave-one-out accuracy over the exemplars (C 1: 0.70, 4: 0.77, 8: 0.78,
16: 0.79; measured before the exemplars of 2026-11-29).

A statement is read as a whole and clause by clause (``clauses``): "I'm Aino, and I rent a
room in Tartu" tells a home in its second clause only. The likeliest part other than
``other``, over the sentence and its clauses, is what it is about when sure enough.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from agent.language.about_exemplars import ABOUT
from agent.language.encoder import encode, encode_kept

if TYPE_CHECKING:  # sklearn costs seconds to import: loaded on the first read, not with the fact store
    from sklearn.linear_model import LogisticRegression

OTHER = "other"
SURE = 0.55
"""Probability at which a statement is read as about a part (else ``other``)."""
REGULARISATION = 16.0
"""Inverse L2 strength of the logistic regression (``C``)."""


def train(texts: list[str], labels: list[str], *, c: float = REGULARISATION) -> LogisticRegression:
    """A classifier of MiniLM vectors of ``texts`` by ``labels``."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(C=c, max_iter=2000)
    model.fit(encode(texts), labels)
    return model


@lru_cache(maxsize=1)
def _classifier() -> LogisticRegression:
    texts = [t for label in ABOUT for t in ABOUT[label]]
    labels = [label for label in ABOUT for _ in ABOUT[label]]
    return train(texts, labels)


_CLAUSE = re.compile(r"\s*(?:[,;:()\u2013\u2014]|\s-\s)\s*|\s+(?:and|but|so|because|which|while)\s+", re.I)
"""Where a statement's clauses meet: punctuation inside it or a connective."""
CLAUSE_WORDS = 3
"""A clause of fewer words ("ten minutes") tells no part of a life on its own."""


def clauses(text: str) -> list[str]:
    """The clauses of ``text`` of at least ``CLAUSE_WORDS`` words (none when it has only one).

    Keeping only first-person clauses ("works at a bank" in "My sister lives in Lisbon and works
    at a bank" is the sister's) was measured and not kept: leave-one-out found 45/73 pairs with
    12/900 wrongly grouped, against 46/73 and 10/900 with every clause.
    """
    parts = [p.strip() for p in _CLAUSE.split(text) if p and len(p.split()) >= CLAUSE_WORDS]
    return parts if len(parts) > 1 else []


def probabilities(
    vectors: np.ndarray, texts: Sequence[str] | None = None, model: LogisticRegression | None = None
) -> tuple[list[str], np.ndarray]:
    """``(classes, probabilities)``: each row of ``vectors`` per class, at least what its best clause reads.

    A statement tells a part of a life in one of its clauses ("I'm Aino, and I rent a room in
    Tartu, ten minutes from the library"): with ``texts``, each statement's probability of a
    part is the highest of the whole sentence's and its clauses' (``clauses``).
    """
    model = model or _classifier()
    probs = model.predict_proba(np.asarray(vectors, dtype="float32"))
    classes = [str(c) for c in model.classes_]
    for i, text in enumerate(texts or ()):
        parts = clause_vectors(text)
        if len(parts):
            probs[i] = np.maximum(probs[i], model.predict_proba(parts).max(axis=0))
    return classes, probs


def clause_vectors(text: str) -> np.ndarray:
    """L2-normalised MiniLM rows of the ``clauses`` of ``text`` (none: zero rows).

    Kept (``encode_kept``): the read-time net reads the same facts again and again.
    """
    parts = clauses(text)
    return encode_kept(parts) if parts else np.zeros((0, _classifier().n_features_in_), dtype="float32")


def parts(vectors: np.ndarray, texts: Sequence[str], *, sure: float | None = None) -> list[frozenset[str]]:
    """Every part each row of ``vectors`` (``texts``) is sure to tell, besides ``other``.

    A compound statement can tell two ("We're relocating to Milan, so Italian lessons have
    taken over my mornings": a home and a language), so two statements are about one part when
    their sets meet (``agent.language.same_thing.same_pairs``).
    """
    if len(vectors) == 0:
        return []
    sure = SURE if sure is None else sure
    classes, probs = probabilities(vectors, texts)
    return [
        frozenset(c for c, p in zip(classes, row, strict=True) if c != OTHER and p >= sure) for row in probs
    ]


def read(
    vectors: np.ndarray,
    texts: Sequence[str] | None = None,
    model: LogisticRegression | None = None,
    *,
    sure: float | None = None,
) -> list[str]:
    """The part each row of ``vectors`` (L2-normalised MiniLM; ``texts``: read per clause too) is about.

    The likeliest part other than ``other``, when its probability is at least ``sure``; else ``other``.
    """
    if len(vectors) == 0:
        return []
    sure = SURE if sure is None else sure
    classes, probs = probabilities(vectors, texts, model)
    probs[:, classes.index(OTHER)] = -1.0  # the likeliest part counts when it is sure enough
    best = probs.argmax(axis=1)
    return [classes[b] if probs[i, b] >= sure else OTHER for i, b in enumerate(best)]


def about(text: str) -> str:
    """The part of the learner's life ``text`` tells (``job``, ``home`` …), or ``other``."""
    if not isinstance(text, str) or not text.strip():
        return OTHER
    return read(encode([text]), [text])[0]
