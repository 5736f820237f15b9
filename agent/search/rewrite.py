"""Query rewriting for full-text search: keep the words that carry the question's content.

Neo4j's default full-text analyzer (``standard-no-stop-words``) indexes every word,
so a question such as "When did Caroline go to the support group?" also matches
"when", "did", "go", "to" and "the" in thousands of turns. ``keyword_query``
drops English function words and question words, strips possessive ``'s`` (so
"Caroline's" matches "Caroline") and keeps names, numbers and content words in
their order. It never returns an empty query for non-blank input: when every
word is a stop word, the original text is kept. The output is plain text; Lucene
escaping still happens in ``agent.search.lucene``.

The full-text analyzer does not stem either, so "research" misses "Researching".
``stem_prefixes`` gives each content word's light stem ("camped" -> "camp",
"researching" -> "research"), which ``agent.search.lucene`` turns into prefix terms
(``camp*``): a query-side stand-in for stemming that needs no index change.
"""

from __future__ import annotations

import re

_STOP_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either
    ever few for from further had has have having he her here hers herself him himself his how
    i if in into is it its itself just let me might more most must my myself no nor not of off
    on once only or other our ours ourselves out over own same shall she should so some such
    than that the their theirs them themselves then there these they this those through to too
    under until up upon us very was we were what whatever when whenever where whether which
    while who whom whose why will with within without would yet you your yours yourself
    yourselves
"""
STOP_WORDS = frozenset(_STOP_TEXT.split())
_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")
_POSSESSIVE = re.compile(r"(?i)['\u2019]s$")
# Longest first; a stem keeps at least MIN_STEM characters, so short words stay whole.
SUFFIXES = ("ers", "ing", "ed", "es", "er", "ly", "s")
MIN_STEM = 4


def content_word(token: str) -> str | None:
    """``token`` without edge punctuation and possessive ``'s``; None for stop words."""
    word = _POSSESSIVE.sub("", _EDGE_PUNCT.sub("", token))
    if not word or word.lower() in STOP_WORDS:
        return None
    return word


def keyword_query(text: str) -> str:
    """The content words of ``text`` joined by spaces (``text`` itself if none remain)."""
    words = [w for w in (content_word(t) for t in text.split()) if w]
    return " ".join(words) if words else text


def light_stem(word: str) -> str:
    """``word`` lower-cased without its longest inflectional suffix, if MIN_STEM characters remain."""
    lowered = word.lower()
    for suffix in SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= MIN_STEM:
            return lowered[: -len(suffix)]
    return lowered


def stem_prefixes(text: str) -> list[str]:
    """Distinct light stems of the alphanumeric content words of ``text`` with MIN_STEM+ letters."""
    words = (content_word(t) for t in text.split())
    stems = [light_stem(w) for w in words if w and w.isalnum() and len(w) >= MIN_STEM]
    return list(dict.fromkeys(stems))
