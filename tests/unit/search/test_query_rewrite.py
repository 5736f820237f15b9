"""Keyword queries and stem prefixes for full text, and the session vote of the ``session`` retriever."""

from __future__ import annotations

import pytest

from agent.errors import InvalidInputError
from agent.search.recipes import SearchRecipe
from agent.search.rewrite import content_word, keyword_query, light_stem, stem_prefixes
from agent.search.sessions import vote_sessions


@pytest.mark.parametrize(
    ("question", "keywords"),
    [
        ("When did Caroline go to the LGBTQ support group?", "Caroline go LGBTQ support group"),
        ("What is Caroline's identity?", "Caroline identity"),
        ("How many times has Joanna\u2019s script been rejected?", "many times Joanna script rejected"),
        ("Did Melanie paint a sunrise in 2022?", "Melanie paint sunrise 2022"),
        ("C++ AND (joins)", "C joins"),  # edge punctuation goes; AND is a stop word here
    ],
)
def test_keyword_query_keeps_content_words_in_order(question: str, keywords: str) -> None:
    assert keyword_query(question) == keywords


def test_keyword_query_never_empties_a_query() -> None:
    assert keyword_query("What did he do?") == "What did he do?"
    assert keyword_query("   ") == "   "
    assert content_word("The") is None and content_word("?!") is None
    assert content_word("(Pixel's)") == "Pixel"


@pytest.mark.parametrize(
    ("word", "stem"),
    [
        ("Researching", "research"),
        ("camped", "camp"),
        ("paintings", "painting"),  # one suffix only: the prefix still matches "painted"
        ("classes", "class"),
        ("dancers", "danc"),
        ("kids", "kids"),  # "kid" would be shorter than MIN_STEM
        ("sing", "sing"),
        ("2023", "2023"),
    ],
)
def test_light_stem_strips_one_suffix_and_keeps_min_stem(word: str, stem: str) -> None:
    assert light_stem(word) == stem


def test_stem_prefixes_come_from_content_words_once_each() -> None:
    assert stem_prefixes("When did Caroline go camping and camped with kids?") == ["caroline", "camp", "kids"]
    assert stem_prefixes("What's C++ in LGBTQ+?") == ["lgbtq"]
    assert stem_prefixes("What did he do?") == []


def test_vote_sessions_sums_each_sessions_best_hits() -> None:
    fused = [("a", 0.9), ("b", 0.5), ("c", 0.45), ("d", 0.4), ("e", 0.3), ("note", 0.99)]
    session_of = {"a": "s1", "b": "s2", "c": "s2", "d": "s2", "e": "s3"}
    # s2 = 0.5 + 0.45 + 0.4 = 1.35 beats s1 = 0.9; hits without a session do not vote.
    assert vote_sessions(fused, session_of, top=3) == ["s2", "s1", "s3"]
    assert vote_sessions(fused, session_of, top=1) == ["s2"]
    # With one vote per session the single best hit decides.
    assert vote_sessions(fused, session_of, top=2, votes=1) == ["s1", "s2"]
    assert vote_sessions([], session_of, top=3) == []


def test_session_sizes_are_validated() -> None:
    with pytest.raises(InvalidInputError):
        SearchRecipe("bad", session_weight=1.0, session_top=0)
