"""Sentence boundaries of learner text, by ``pysbd`` (rule-based, no model, no download).

``pysbd`` (Sadvilkar and Neumann 2020, "PySBD: Pragmatic Sentence Boundary Disambiguation")
keeps code names ("functools.wraps"), version numbers ("3.11.2"), abbreviations ("e.g.",
"Dr."), decimals and URLs inside their sentence. Lines are split first: a learner's line
break ends a sentence (a list of steps, a pasted error), which ``pysbd`` would join.

Three repairs join two of its pieces back, by the shape of the text at the cut, not by a
word list: no white space at the cut (``"path?x=1"``, ``"[a-z]+.py$"``); the next piece starts
with a digit (``"approx. 2.7"``, ``"Ch. 3"``); or it starts in lower case after a word of at
most :data:`SHORT_WORD` letters and a full stop (``"Tue. and Thu."``) that is no everyday word
(``"… Friday now. two more days"`` is two sentences).
Two repairs cut where ``pysbd`` does not (:data:`_MISSED_CUT`). Its abbreviation list holds
everyday words ("me", "is", "ok", "no", "may", "man", "miss") and it never ends a sentence at
one of them followed by "I" (``"It means a lot to me. I'm glad."`` was one sentence: 19 of
LoCoMo's 2,760 turns); a full stop after a word of two letters or more (no inner dot, so not
"e.g.") followed by "I" is a boundary. And it reads numbers in a row as a list's items
(``"I am on step 1. It fails at step 2. Why?"``), cutting before each number, which the digit
repair above joins back into one sentence; a number after a word, a full stop and a capital is
a boundary (a list's "1. Open the file." at the start of a line stays whole).
Measured on ``bench/cognitive/sets/segmentation.json`` by ``python -m bench.language``.

The words of a sentence (:data:`WORD`) and an example marker at its start
(:data:`EXAMPLE_OPENER`) are read here too, once for every reader of learner text.
"""

from __future__ import annotations

import re
from functools import lru_cache

import pysbd
from wordfreq import zipf_frequency

SHORT_WORD = 3
"""A word this short before a full stop followed by lower case is an abbreviation ("Tue.", "pp."),
unless it is an everyday word (:data:`WORD_ZIPF`)."""
WORD_ZIPF = 5.25
"""A short word at least this common in English (``wordfreq`` Zipf frequency) ends a sentence before
lower case: chatty learners do not capitalise ("… Friday now. two more days"), and "now", "too", "day"
are no abbreviations; "etc" (5.0), "vs", "pp", "Tue" are rarer. Chosen by leave-one-out over the
86 texts of ``segmentation.json`` and ``segmentation_short_words.json``: 84 right from 5.0 to 5.25,
83 at 5.5, 75 at 6.0, 70 with no such cut; 83 of 86 right when each text is left out of the choice."""
_SHORT_END = re.compile(rf"(?<![^\W\d_])[^\W\d_]{{1,{SHORT_WORD}}}\.$")

WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9+#_'-]*")
"""A word of learner text, with the characters code names and contractions keep ("C++", "C#",
"row_number", "don't", "left-join")."""
_MISSED_CUT = re.compile(r"(?:(?<![\w.])[A-Za-z]{2,}\.\s+(?=I\b)|(?<=[A-Za-z] )\d+\.\s+(?=[A-Z]))")
"""A full stop and its white space where ``pysbd`` misses a cut: after a word before "I", or
after a word's number before a capital (module docstring)."""

EXAMPLE_OPENER = re.compile(r"^(for example|for instance|e\.g\.|as an example)\b[,:]?\s*", re.I)
"""An explicit example marker at the start of a sentence ("For example, I used …"), with its comma."""


@lru_cache(maxsize=1)
def _segmenter() -> pysbd.Segmenter:
    """One segmenter per process (building it compiles its rules)."""
    return pysbd.Segmenter(language="en", clean=False, char_span=False)


def split_sentences(text: str) -> list[str]:
    """The sentences of ``text``, stripped, in order (no empty ones)."""
    if not isinstance(text, str):
        return []
    out: list[str] = []
    for line in text.splitlines():
        if line.strip():
            out.extend(cut for joined in _repaired(_segmenter().segment(line)) for cut in _cut(joined))
    return out


def _cut(piece: str) -> list[str]:
    """``piece`` (a repaired sentence) cut after each :data:`_MISSED_CUT` match, stripped."""
    parts, at = [], 0
    for found in _MISSED_CUT.finditer(piece):
        parts.append(piece[at : found.end()].strip())
        at = found.end()
    return [*parts, piece[at:]]


def _joins(before: str, after: str) -> bool:
    """True when the cut between two ``pysbd`` pieces is not a sentence boundary (module docstring)."""
    head, nxt = before.rstrip(), after.lstrip()
    if not head or not nxt:
        return True
    if before == head:  # no white space at the cut
        return True
    if nxt[0].isdigit():
        return True
    short = _SHORT_END.search(head)
    return nxt[0].islower() and short is not None and zipf_frequency(short[0][:-1], "en") < WORD_ZIPF


def _repaired(pieces: list[str]) -> list[str]:
    """``pysbd``'s pieces (with their white space) joined where the cut is not a boundary, stripped."""
    merged: list[str] = []
    for piece in pieces:
        if merged and _joins(merged[-1], piece):
            merged[-1] += piece
        else:
            merged.append(piece)
    return [m.strip() for m in merged if m.strip()]


def sentence_spans(text: str) -> list[tuple[int, str]]:
    """``(start offset, sentence)`` per sentence of ``text``, offsets into ``text``."""
    spans: list[tuple[int, str]] = []
    at = 0
    for sentence in split_sentences(text):
        start = text.find(sentence, at)
        start = at if start < 0 else start
        spans.append((start, sentence))
        at = start + len(sentence)
    return spans
