"""Word-level helpers the notes package shares: concept stems over ``agent.text``'s stop words."""

from __future__ import annotations

import re

from agent.text import STOP_WORDS

WORD = re.compile(r"[a-z][a-z0-9+#_-]*")
"""A lowercase word (letters first; digits, ``+#_-`` allowed after)."""

STOP = STOP_WORDS
"""Words that never name a concept: KAG's one stop-word list (``agent.text``)."""


def stem(word: str) -> str:
    """A plural normaliser for concept names: ``joins`` -> ``join``, ``rows`` -> ``row``.

    Not ``agent.text.light_stem``: the search stemmer keeps four letters, so it
    leaves "rows" whole, and changing it would move the retrieval figures.
    """
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
