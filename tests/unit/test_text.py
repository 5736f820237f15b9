"""The one stop-word list and the one stemmer (agent.text)."""

import pytest

from agent.search import rewrite
from agent.text import (
    CHAT_WORDS,
    FUNCTION_WORDS,
    QUERY_STOP_WORDS,
    RECALL_WORDS,
    STOP_WORDS,
    is_stop_word,
    light_stem,
)


def test_stop_words_are_the_union_of_the_layers():
    assert STOP_WORDS == FUNCTION_WORDS | RECALL_WORDS | CHAT_WORDS
    assert QUERY_STOP_WORDS == FUNCTION_WORDS | RECALL_WORDS
    assert all(w == w.lower() and w.strip() == w for w in STOP_WORDS)
    assert {"the", "remember", "okay", "session"} <= STOP_WORDS
    assert not {"sql", "join", "cat", "show"} & QUERY_STOP_WORDS


def test_function_words_are_exactly_the_search_list():
    """Retrieval figures depend on the words the search rewriter drops; they must not drift."""
    assert all(rewrite.content_word(w) is None for w in FUNCTION_WORDS)
    kept = (RECALL_WORDS | CHAT_WORDS) - FUNCTION_WORDS
    assert all(rewrite.content_word(w) is not None for w in kept if w.isalpha() and len(w) > 2)


def test_is_stop_word_ignores_case():
    assert is_stop_word("The") and is_stop_word("OKAY")
    assert not is_stop_word("Caroline")


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("camped", "camp"),
        ("Researching", "research"),
        ("researchers", "research"),
        ("quickly", "quick"),
        ("joins", "join"),
        ("boxes", "boxe"),  # "box" would be shorter than MIN_STEM
        ("used", "used"),
        ("is", "is"),
        ("bus", "bus"),
        ("painter", "paint"),
        ("SQL", "sql"),
    ],
)
def test_light_stem(word, stem):
    assert light_stem(word) == stem


def test_light_stem_matches_the_search_stemmer():
    words = ["camped", "researching", "researchers", "runs", "running", "quickly", "classes"]
    words += ["boxes", "painters", "glasses", "a", "Ada's"]
    assert rewrite.light_stem is light_stem, "search uses the one stemmer"
