"""Word-level helpers the notes package shares: stemming, stopwords, concept stems."""

from __future__ import annotations

import re

WORD = re.compile(r"[a-z][a-z0-9+#_-]*")
"""A lowercase word (letters first; digits, ``+#_-`` allowed after)."""

_STOP_WORDS = """
    a an the and or but if then so of to in on at by for with from into about as is are was were
    be been being am do does did doing have has had i me my mine we our you your he she it its
    they them their this that these those there here what which who whom when where why how not
    no yes can could would should will shall may might must just also very really quite too more
    most less some any all each every both either neither one two three first second get got
    gets make makes made use used uses using like likes want wants need needs know knows think
    thinks see mean means said say says tell told let lets okay ok right sure thanks thank
    please well good great now again still only even much many thing things something anything
    way ways lot example examples question questions answer answers understand understood sense
    idea today session tutor learner kind sort bit part case cases time times show shows give
    gives take takes look looks try tries trying keep go goes going come comes because than such
    other same different new old own while after before over under between through exactly
    correct wrong true false yeah hmm oh wait maybe probably actually basically pretty
"""
STOP = frozenset(_STOP_WORDS.split())
"""Words that never name a concept."""


def stem(word: str) -> str:
    """A crude plural stem: ``joins`` -> ``join``, ``boxes`` -> ``box``; ``class`` stays."""
    if len(word) > 4 and word.endswith("es") and not word.endswith("ses"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_stems(text: str) -> set[str]:
    """Stemmed lowercase words of ``text`` (stopwords kept: the lint needs them)."""
    return {stem(w) for w in WORD.findall(text.lower())}


def concept_stems(concept: str) -> set[str]:
    """Content-word stems of a concept's most specific segment."""
    # "sql.joins" is matched by its most specific segment, "joins".
    specific = concept.lower().rsplit(".", 1)[-1]
    return {stem(w) for w in WORD.findall(specific) if w not in STOP}
