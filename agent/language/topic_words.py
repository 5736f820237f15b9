"""The words of a reminder's topic in any form: dictionary lemmas, Snowball stems for jargon, rarity.

``word_lemmas`` says when two words are one ("merging" / "merges", "memoization" / "memoize");
``zipf`` how common a word is in English (``wordfreq``), which ``agent.language.reminders`` reads
as how many senses a topic word may have. Both libraries ship their data; nothing downloads.
"""

from __future__ import annotations

from functools import lru_cache

import snowballstemmer
from simplemma import is_known, lemmatize
from wordfreq import zipf_frequency

from agent.language.grammar import holds_text

_STEMMER = snowballstemmer.stemmer("english")
STEM_ZIPF = 2.5
"""Under this Zipf frequency a word is jargon and also meets its Snowball stem (``word_lemmas``)."""


@holds_text  # words of learner text: erasure empties them too
@lru_cache(maxsize=4096)
def zipf(word: str) -> float:
    """The Zipf frequency of ``word`` in English (``wordfreq``: 0 unknown, 7 "the")."""
    return zipf_frequency(word.lower(), "en")


@holds_text
@lru_cache(maxsize=4096)
def word_lemmas(word: str) -> frozenset[str]:
    """A word's dictionary forms; two words are one when these meet.

    Its ``simplemma`` lemma ("merging", "merges" -> "merge"; "matrices" -> "matrix"), and for an
    "-ing" word the lemmatizer keeps whole ("borrowing", "programming": its dictionary lists the
    noun) also the verb it is made from when that verb is a known word ("borrow", "program"), so
    "borrowing in Rust" is named by "can I borrow it twice in Rust?" as it was by the old stems.
    A plural the dictionary does not know ("dataframes", "subqueries") is read by its regular
    ending. A word the dictionary does not know, or a rare one (Zipf under ``STEM_ZIPF``: the
    jargon of a subject), also meets its Snowball stem ("memoization", "memoize", "memoizing" ->
    "memoiz"; "tokenizer" / "tokenization"), since the dictionary lists few of its forms. A common
    word is read by the dictionary alone: "recursive" is not "recursion".
    """
    lowered = word.lower()
    if not is_known(lowered, lang="en") or zipf(lowered) < STEM_ZIPF:
        return frozenset({*_dictionary_forms(lowered), "~" + _STEMMER.stemWord(lowered)})
    return _dictionary_forms(lowered)


def _dictionary_forms(lowered: str) -> frozenset[str]:
    """``word_lemmas`` by the dictionary alone."""
    lemmas = {lemmatize(lowered, lang="en")}
    if lowered.endswith("ing") and lowered in lemmas:
        stem = lowered[:-3]
        doubled = stem[:-1] if len(stem) > 3 and stem[-1] == stem[-2] else ""
        for verb in (doubled, stem, stem + "e"):
            if len(verb) >= 3 + (verb != doubled) and is_known(verb, lang="en"):
                lemmas.add(verb)
                break
    elif lowered.endswith("s") and not lowered.endswith("ss") and not is_known(lowered, lang="en"):
        # the dictionary lacks most programming words ("dataframes", "coroutines", "subqueries"):
        # their plural is read by its regular ending
        lemmas.add(lowered[:-3] + "y" if lowered.endswith("ies") else lowered[:-1])
    return frozenset(lemmas)
