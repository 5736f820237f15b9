"""Lucene queries for Neo4j full-text indexes that depend on one learner's documents only.

Lucene's BM25 takes document frequencies, the document count and the mean length over
the whole index, i.e. over every learner. The order of a learner's own hits would then
change when another learner stores a word, and a learner watching that order could tell
which words other learners wrote. So no clause here is scored with index statistics:

- every query term is a one-term range clause, ``text:["t" TO "t"]``, which Lucene scores
  by its boost alone (prefix terms, ``stem*``, are constant-score as well);
- each clause is boosted by the term's IDF over the learner's own documents
  (:func:`idf`, from counts that ``agent.search.termstats`` takes in the same index);
- the learner's key clause is a range too, so it adds the same constant to every hit.

Range bounds are not analysed (only lower-cased), so :func:`analyze` splits text as Neo4j's
``standard-no-stop-words`` analyzer does (checked in
``tests/integration/search/test_lucene_tokens.py``). User text never reaches Lucene as
syntax: a term is letters, digits and joiners inside a quoted range bound.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

MAX_TERMS = 32  # far below Lucene's 1,024 clause limit
MAX_TERM_CHARS = 64  # prefix stems: Lucene refuses a prefix automaton of 1,000+ states
MAX_TOKEN_CHARS = 255  # Lucene's standard tokenizer splits longer words
# Hiragana and Han ideographs: the tokenizer makes each character a token.
_IDEOGRAPHS = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = rf"[^\W{_IDEOGRAPHS}]+"
_RUN = re.compile(rf"{_WORD}(?:[.'\u2019:,;]{_WORD})*|[{_IDEOGRAPHS}]")
_JOINER = re.compile(r"[.'\u2019:,;]")


def _joins(joiner: str, before: str, after: str) -> bool:
    """Whether the standard tokenizer keeps ``before joiner after`` in one word (UAX #29).

    ``:`` joins letters, ``,`` and ``;`` join digits, ``.`` and apostrophes join either
    (but not a digit to a letter).
    """
    if joiner == ":":
        return before.isalpha() and after.isalpha()
    if joiner in ",;":
        return before.isdigit() and after.isdigit()
    return (before.isalpha() and after.isalpha()) or (before.isdigit() and after.isdigit())


def _split_run(run: str) -> list[str]:
    """``run`` cut at the joiners the tokenizer would not keep."""
    words, start = [], 0
    for match in _JOINER.finditer(run):
        at = match.start()
        if not _joins(run[at], run[at - 1], run[at + 1]):
            words.append(run[start:at])
            start = at + 1
    words.append(run[start:])
    return words


def _lower(word: str) -> str:
    """Lower-case per character, as Lucene does (no final-sigma rule)."""
    return "".join(c.lower() for c in word)


def analyze(text: str) -> list[str]:
    """The distinct terms of ``text`` as the index stores them, in order, at most ``MAX_TERMS``."""
    terms: dict[str, None] = {}
    for run in _RUN.findall(text):
        for word in _split_run(run):
            if any(c.isalnum() for c in word) and len(word) <= MAX_TOKEN_CHARS:
                terms[_lower(word)] = None
                if len(terms) >= MAX_TERMS:
                    return list(terms)
    return list(terms)


def idf(n: int, df: int) -> float:
    """BM25's IDF of a term in ``df`` of ``n`` documents (always positive)."""
    df = max(0, min(df, n))
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


@dataclass(frozen=True)
class LuceneScope:
    """One learner's documents in a full-text index: the fields searched and the key clause.

    ``fields`` and ``key_field`` are our own identifiers; ``key`` is the learner's key, a
    single alphanumeric token (checked here).
    """

    fields: tuple[str, ...]
    key: str
    key_field: str = "learner_key"

    def __post_init__(self) -> None:
        """Refuse a key or field that could carry syntax."""
        if not self.key.isalnum():
            raise ValueError("scope key must be alphanumeric")
        names = (*self.fields, self.key_field)
        if not self.fields or not all(f.isascii() and f.isidentifier() for f in names):
            raise ValueError("fields must be identifiers")

    @property
    def key_clause(self) -> str:
        """The learner's documents, as a constant-score range clause."""
        return f'{self.key_field}:["{self.key}" TO "{self.key}"]'

    def _any_field(self, clauses: Sequence[str]) -> str:
        return clauses[0] if len(clauses) == 1 else f"({' '.join(clauses)})"

    def term_clauses(self, text: str) -> list[str]:
        """One clause per term of ``text``: the term in any of the fields, scored by boost only."""
        return [self._any_field([f'{f}:["{t}" TO "{t}"]' for f in self.fields]) for t in analyze(text)]

    def prefix_clauses(self, stems: Iterable[str]) -> list[str]:
        """One ``stem*`` clause per alphanumeric stem (lower-cased, cut to ``MAX_TERM_CHARS``).

        Anything else is dropped rather than escaped: a prefix term is syntax.
        """
        kept = dict.fromkeys(s[:MAX_TERM_CHARS].lower() for s in stems if s.isalnum())
        return [self._any_field([f"{f}:{s}*" for f in self.fields]) for s in list(kept)[:MAX_TERMS]]

    def count_query(self, clause: str) -> str:
        """The learner's documents that match ``clause`` (for its document frequency)."""
        return f"+{self.key_clause} +{clause}"

    def query(self, clauses: Sequence[str], weights: Mapping[str, float]) -> str | None:
        """``+key +(clause^weight ...)`` over the ``clauses`` with a weight, or None if none has.

        A clause without a weight matches none of the learner's documents, so it is left out.
        """
        kept = [f"{c}^{weights[c]:.6f}" for c in dict.fromkeys(clauses) if weights.get(c, 0.0) > 0.0]
        return f"+{self.key_clause} +({' '.join(kept)})" if kept else None
