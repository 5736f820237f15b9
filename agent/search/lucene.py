"""Build safe Lucene queries for Neo4j full-text indexes from untrusted text.

User text never reaches Lucene as syntax: every special character is escaped
and the boolean keywords AND/OR/NOT are lower-cased into plain terms, so odd
input never raises and never widens the scope of a query. The only syntax we add
ourselves is a trailing ``*`` on alphanumeric stems (prefix terms).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# Lucene's special characters (classic QueryParser); ``&&`` and ``||`` are covered
# by escaping each ``&`` and ``|``.
LUCENE_SPECIAL = frozenset('+-&|!(){}[]^"~*?:\\/')
LUCENE_KEYWORDS = frozenset({"AND", "OR", "NOT"})
MAX_TERMS = 32  # far below Lucene's 1,024 clause limit
MAX_TERM_CHARS = 64
_HAS_WORD = re.compile(r"[^\W_]")  # a term the standard analyzer keeps


def escape_lucene(text: str) -> str:
    """Escape every Lucene special character and neutralise AND/OR/NOT."""
    escaped = "".join(f"\\{c}" if c in LUCENE_SPECIAL else c for c in text)
    return " ".join(w.lower() if w in LUCENE_KEYWORDS else w for w in escaped.split(" "))


def query_terms(text: str) -> list[str]:
    """Split ``text`` into at most ``MAX_TERMS`` escaped terms that contain a letter or digit."""
    terms: list[str] = []
    for raw in text.split():
        if not _HAS_WORD.search(raw):
            continue  # pure punctuation would analyse to nothing
        terms.append(escape_lucene(raw[:MAX_TERM_CHARS]))
        if len(terms) >= MAX_TERMS:
            break
    return terms


def prefix_terms(stems: Sequence[str]) -> list[str]:
    """``stem*`` prefix terms (lower-cased, at most ``MAX_TERMS``) for the alphanumeric ``stems``.

    Anything else is dropped rather than escaped: a prefix term is syntax, so only
    plain letters and digits may reach it. The index lower-cases what it stores and
    prefix terms are not analysed, hence the lower-casing here. Stems are cut to
    ``MAX_TERM_CHARS`` like any term: Lucene refuses a prefix automaton of 1,000+ states.
    """
    return [f"{s[:MAX_TERM_CHARS].lower()}*" for s in stems if s.isalnum()][:MAX_TERMS]


def scoped_query(
    field: str | None, text: str, *, key_field: str, key: str, prefixes: Sequence[str] = ()
) -> str | None:
    """``+key_field:key +field:(terms prefix*...)``, or None when ``text`` has no searchable term.

    ``field`` and ``key_field`` are trusted identifiers; ``field`` None matches the terms in
    any of the index's properties (``+key_field:key +(terms)``). ``key`` must be a single
    alphanumeric token (a learner key), which is asserted here. ``prefixes`` are
    stems matched as prefixes too (see ``prefix_terms``); they only add optional terms.
    """
    if not key.isalnum():
        raise ValueError("scope key must be alphanumeric")
    terms = query_terms(text)
    if not terms:
        return None
    scope = f"{field}:" if field else ""
    return f"+{key_field}:{key} +{scope}({' '.join(terms + prefix_terms(prefixes))})"
