"""The words of a reminder's topic in any form: dictionary lemmas, Snowball stems for jargon, rarity.

``word_lemmas`` says when two words are one ("merging" / "merges", "memoization" / "memoize");
``zipf`` how common a word is in English (``wordfreq``), which ``agent.language.reminders`` reads
as how many senses a topic word may have. Both libraries ship their data; nothing downloads.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache
from typing import TYPE_CHECKING

import snowballstemmer
from simplemma import is_known, lemmatize
from wordfreq import zipf_frequency

from agent.language.grammar import holds_text, parse

if TYPE_CHECKING:
    from spacy.tokens import Doc
from agent.text import FUNCTION_WORDS

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
        # every known verb it may come from: "writing" is "write" as much as "writ"
        lemmas.update(
            v for v in (doubled, stem, stem + "e") if len(v) >= 3 + (v != doubled) and is_known(v, lang="en")
        )
    elif lowered.endswith("s") and not lowered.endswith("ss") and not is_known(lowered, lang="en"):
        # the dictionary lacks most programming words ("dataframes", "coroutines", "subqueries"):
        # their plural is read by its regular ending
        lemmas.add(lowered[:-3] + "y" if lowered.endswith("ies") else lowered[:-1])
    return frozenset(lemmas)


COGNATE_DICE = 0.6
"""Least share of letter trigrams (``trigram_dice``) a word the English dictionary does not know
has in common with a topic word to be its form in the language learnt ("Genitiv" / "genitive" 0.92,
"futuro" / "future" 0.80). Chosen by leave-one-out (``bench/reminder_meaning_knobs.py``)."""
COGNATE_ZIPF = 3.5
"""An English word that opens a topic word ("mol" of "moles", Zipf 3.2) is its short form when it
is rarer than this; a commoner one has its own sense ("art" is not "articles"). Chosen by
leave-one-out with ``COGNATE_DICE``."""


def _trigrams(word: str) -> frozenset[str]:
    """Letter trigrams of ``word`` with its start marked ("mol" -> "^mo", "mol"), accents folded.

    The term in the language learnt often differs from the English one by its accents only
    ("pretérito", "théorème"): a letter and its accented form are one letter here.
    """
    folded = "".join(c for c in unicodedata.normalize("NFKD", word) if not unicodedata.combining(c))
    padded = "^" + folded.lower()
    return frozenset(padded[i : i + 3] for i in range(len(padded) - 2))


def trigram_dice(a: str, b: str) -> float:
    """Dice share of the start-marked letter trigrams of ``a`` and ``b`` (0..1)."""
    x, y = _trigrams(a), _trigrams(b)
    return 2 * len(x & y) / (len(x) + len(y)) if x and y else 0.0


def is_cognate(word: str, topic_word: str) -> bool:
    """``word`` is the topic word in the language learnt ("Genitiv", "futuro") or shortened ("mol").

    A word the English dictionary does not know that shares most letter trigrams with the topic
    word (``COGNATE_DICE``) and is no longer than it by more than a letter (a compound,
    "Dockerfile", names another thing than "Docker"); or a rare English word that opens it
    (``COGNATE_ZIPF``), a plural one without its "s" ("comps" of "comprehensions"). An English
    word that only shares letters has its own sense ("integrals" is not "integration", "tension"
    not "tense"); a dictionary form is ``word_lemmas``' own.
    """
    lowered, topic = word.lower(), topic_word.lower()
    if len(lowered) < 3 or not lowered.isalpha() or word_lemmas(lowered) & word_lemmas(topic):
        return False
    if is_known(lowered, lang="en"):
        # a plural short form opens the plural topic word without its "s" ("comps", "comprehensions")
        plural = lowered.endswith("s") and topic.endswith("s")
        short, whole = (lowered[:-1], topic[:-1]) if plural else (lowered, topic)
        return len(short) < len(whole) and whole.startswith(short) and zipf(lowered) < COGNATE_ZIPF
    return len(lowered) <= len(topic) + 1 and trigram_dice(lowered, topic) >= COGNATE_DICE


def is_kind_of(word: str, topic_word: str) -> bool:
    """``word`` is a closed compound whose head is the topic word: a kind of it ("cycloalkanes" of "alkanes").

    The head of a compound comes last ("comonads" are monads); one that opens it names another
    thing ("Dockerfile" is no "Docker", ``is_cognate``). Only a topic word of a subject's jargon
    (rarer than ``STEM_ZIPF``) and a compound rarer still: an everyday head ends many words of
    their own ("staircase", and in the sets' turns a lifecycle rule, an uppercase string, verbal
    adverbs: each read 0.46 or more from a trigger on "cycle", "case", "verbs"). The topic word is
    at least four letters and the rest at least two.
    """
    lowered, topic = word.lower(), topic_word.lower()
    return (
        lowered.isalpha()
        and len(topic) >= 4
        and len(lowered) >= len(topic) + 2
        and lowered.endswith(topic)
        and zipf(topic) < STEM_ZIPF
        and zipf(lowered) < zipf(topic)
    )


def is_initialism(word: str, topic: str) -> bool:
    """``word`` is written in capitals from the initials of ``topic``'s words ("OOP", "ML").

    "object-oriented programming" -> "OOP", "machine learning" -> "ML": the words of the topic
    split at hyphens, without function words; two letters at least.
    """
    words = [w for w in re.findall(r"[^\W\d_]+", topic) if w.lower() not in FUNCTION_WORDS]
    return (
        len(words) >= 2 and word.isupper() and word.isalpha() and word == "".join(w[0] for w in words).upper()
    )


def spells_initials(words: list[str], keyword: str) -> bool:
    """``words`` spell out the initials ``keyword`` is written in ("principal component analysis" / "PCA").

    ``keyword`` one word in capitals, two to six letters, a plural "s" allowed ("ODEs"); ``words``
    as many as its letters, none a function word ("Did Nina send" is no "DNS"): the reverse of
    ``is_initialism``.
    """
    letters = keyword[:-1] if keyword.endswith("s") else keyword
    if not (2 <= len(letters) <= 6 and letters.isalpha() and letters.isupper()) or len(words) != len(letters):
        return False
    pairs = zip(words, letters, strict=True)
    return all(w[:1].upper() == c and w.lower() not in FUNCTION_WORDS for w, c in pairs)


def spelled_heads(doc: Doc, keyword: str) -> list[str]:
    """The last word of each run of ``doc``'s words that spells ``keyword``'s initials, ending on a noun.

    Hyphens join the words they split ("object-relational mapping" spells "ORM"); the run ends on a
    noun, so a clause whose words happen to start with the letters ("Did Nina send …") is none.
    """
    words = [t for t in doc if t.is_alpha]
    size = len(keyword) - keyword.endswith("s")
    return [
        run[-1].text
        for run in (words[i : i + size] for i in range(len(words) - size + 1))
        if run[-1].pos_ in {"NOUN", "PROPN"}
        and all(
            b.i - a.i == 1 or doc[a.i + 1].text == "-" and b.i - a.i == 2
            for a, b in zip(run, run[1:], strict=False)
        )
        and spells_initials([t.text for t in run], keyword)
    ]


def other_head(words: list[str], topic: list[str]) -> bool:
    """A phrase holds no topic word, or is the topic with another head ("hash maps" for "hash tables").

    A topic word alone ("passive" for "passive voice") or with other words around it ("passive in
    meetings", "Café Fourier") is near the topic by that word, not by its meaning.
    """
    if not any(word_lemmas(x) & word_lemmas(w) for x in words for w in topic):
        return True
    return (
        len(words) == len(topic) > 1
        and all(word_lemmas(x) & word_lemmas(w) for x, w in zip(words[:-1], topic[:-1], strict=True))
        and not word_lemmas(words[-1]) & word_lemmas(topic[-1])
    ) or _head_left_out(words, topic)


def _head_left_out(words: list[str], topic: list[str]) -> bool:
    """The topic without its head noun, said by its adjective ("final written" for "final written exam").

    English leaves a head out after an adjective when the thing is known ("the written", "the
    advanced conversational"); at least two words must stay, so a lone modifier ("final") is none.
    A noun before the head ("binary search trees") is a topic of its own ("binary search"), so
    only an adjective or a participle, by the parse of the topic, stands for the thing.
    """
    if not 2 <= len(words) == len(topic) - 1:
        return False
    if not all(word_lemmas(x) & word_lemmas(w) for x, w in zip(words, topic, strict=False)):
        return False
    word = parse(" ".join(topic))[len(words) - 1]
    return word.pos_ == "ADJ" or word.tag_ == "VBN"  # "the written", "the spoken": participles too
