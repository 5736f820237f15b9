"""Shared English text helpers: the one stop-word list and the one light stemmer.

KAG used to keep three stop-word lists (search query rewriting, note
extraction, the offline policy) and two stemmers. They live here now, as one
list built from three named layers:

- ``FUNCTION_WORDS``: English function and question words. Exactly the search
  rewriter's list (``agent.search.rewrite``), so retrieval figures do not move;
- ``RECALL_WORDS``: words of asking about memory ("remember", "last", "told");
- ``CHAT_WORDS``: conversational filler and tutoring words that name no topic
  ("okay", "example", "session"), from note extraction.

``STOP_WORDS`` is their union (for picking topic words out of a conversation);
``QUERY_STOP_WORDS`` drops function and recall words only, for a search box
(a union-wide filter would drop content words such as "show" or "first").

``light_stem`` is the search stemmer: it strips the longest inflectional suffix
when ``MIN_STEM`` characters remain ("camped" -> "camp", "researching" ->
"research"). Retrieval figures depend on its exact behaviour; change it only
with a new benchmark run.
"""

from __future__ import annotations

_FUNCTION_TEXT = """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing done down during each either
    ever few for from further had has have having he her here hers herself him himself his how i
    if in into is it its itself just let me might more most must my myself no nor not of off on
    once only or other our ours ourselves out over own same shall she should so some such than
    that the their theirs them themselves then there these they this those through to too under
    until up upon us very was we were what whatever when whenever where whether which while who
    whom whose why will with within without would yet you your yours yourself yourselves
"""
FUNCTION_WORDS: frozenset[str] = frozenset(_FUNCTION_TEXT.split())
"""English function and question words (the search rewriter's list)."""

_RECALL_TEXT = """
    covered discussed earlier know last mention mentioned please previous recall remember remind
    said talked tell time told
"""
RECALL_WORDS: frozenset[str] = frozenset(_RECALL_TEXT.split())
"""Words of asking about memory or past talk; they name no topic."""

_CHAT_TEXT = """
    actually answer answers anything basically bit case cases come comes correct different even
    every exactly example examples false first get gets give gives go goes going good got great
    hmm idea keep kind knows learner less lets like likes look looks lot made make makes many
    may maybe mean means mine much need needs neither new now oh ok okay old one part pretty
    probably question questions quite really right say says second see sense session show shows
    something sort still sure take takes thank thanks thing things think thinks three times
    today tries true try trying tutor two understand understood use used uses using wait want
    wants way ways well wrong yeah yes
"""
CHAT_WORDS: frozenset[str] = frozenset(_CHAT_TEXT.split())
"""Conversational filler and tutoring words that name no topic."""

QUERY_STOP_WORDS: frozenset[str] = FUNCTION_WORDS | RECALL_WORDS
"""Words a search query built from a question drops."""

STOP_WORDS: frozenset[str] = FUNCTION_WORDS | RECALL_WORDS | CHAT_WORDS
"""Every stop word (lower case): the union of the three layers."""

SUFFIXES: tuple[str, ...] = ("ers", "ing", "ed", "es", "er", "ly", "s")
"""Inflectional suffixes ``light_stem`` strips, longest first."""
MIN_STEM = 4
"""A stem keeps at least this many characters, so short words stay whole."""


def is_stop_word(word: str) -> bool:
    """True when ``word`` (any case) is in ``STOP_WORDS``."""
    return word.lower() in STOP_WORDS


def light_stem(word: str) -> str:
    """``word`` lower-cased without its longest inflectional suffix, if MIN_STEM characters remain."""
    lowered = word.lower()
    for suffix in SUFFIXES:
        if lowered.endswith(suffix) and len(lowered) - len(suffix) >= MIN_STEM:
            return lowered[: -len(suffix)]
    return lowered
