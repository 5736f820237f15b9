"""Query rewriting for full-text search: keep the words that carry the question's content.

Neo4j's default full-text analyzer indexes every word, so "When did Caroline go to the
support group?" also matches "when", "did", "go", "to" and "the" in thousands of turns.
``keyword_query`` keeps names, numbers and content words in their order (never an empty
query for non-blank input); Lucene escaping happens in ``agent.search.lucene``.

The full-text analyzer does not stem either, so "research" misses "Researching".
``stem_prefixes`` gives each content word's light stem ("camped" -> "camp",
"researching" -> "research"), which ``agent.search.lucene`` turns into prefix terms
(``camp*``): a query-side stand-in for stemming that needs no index change.
"""

from __future__ import annotations

import re

from agent.text import FUNCTION_WORDS, MIN_STEM, light_stem

_EDGE_PUNCT = re.compile(r"^[^\w]+|[^\w]+$")
_POSSESSIVE = re.compile(r"(?i)['\u2019]s$")


def content_word(token: str) -> str | None:
    """``token`` without edge punctuation and possessive ``'s``; None for stop words."""
    word = _POSSESSIVE.sub("", _EDGE_PUNCT.sub("", token))
    if not word or word.lower() in FUNCTION_WORDS:
        return None
    return word


def keyword_query(text: str) -> str:
    """The content words of ``text`` joined by spaces (``text`` itself if none remain)."""
    words = [w for w in (content_word(t) for t in text.split()) if w]
    return " ".join(words) if words else text


def stem_prefixes(text: str) -> list[str]:
    """Distinct light stems of the alphanumeric content words of ``text`` with MIN_STEM+ letters."""
    words = (content_word(t) for t in text.split())
    stems = [light_stem(w) for w in words if w and w.isalnum() and len(w) >= MIN_STEM]
    return list(dict.fromkeys(stems))
