"""Which sentences define a term, and how well: rule 3 of ``agent.notes.offline``.

A sentence defines a term when it opens with the term as its subject ("A left join keeps …",
after an article or nothing; an aside between commas after the subject is skipped) and a verb
follows: a defining verb ("is", "means", "returns", …) or any present-tense ``-s`` verb. Not a
definition: a bare noun phrase, a prepositional phrase with no verb, an episode in the past
("The API was slow"), or a sentence that only equates the term with another of the session's
terms ("patient_id is the primary key").

A **generic** definition is one by its shape alone, strong enough to make a note of a single
common word said once ("A dictionary maps keys to values."). The shape is the one a textbook
uses to say what a kind of thing is:

- the subject is generic: after "a"/"an" or no article ("Correlation measures …"), never
  "the" (a particular thing) — except before "means"/"refers to"/"stands for", which define
  whatever their subject;
- the verb is present tense: "is"/"are", a defining verb, or a third-person ``-s`` verb;
- it says something of the kind: after "is"/"are" a noun phrase (opening with a determiner or a
  number, a bare plural, a gerund), a passive ("is used for"), or a "when"/"where"/"how" clause —
  not a bare judgement ("Python is fun", "Python is very popular"); after any other verb at
  least two more words ("maps keys to values").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agent.language.sentences import WORD
from agent.notes.offline_prose import PRONOUN_SUBJECT, Sentence, without_aside
from agent.notes.text import DETERMINERS, noun_phrases, term_key

_ARTICLES = frozenset({"a", "an", "the"})
_PREPOSITION = re.compile(r"^(of|in|on|with|for|from|between|over|across|inside|without)\b", re.I)
DEFINING = re.compile(
    r"^(is|are|means?|refers?|returns?|keeps?|combines?|describes?|lets?|matches|"
    r"pairs?|compares?|measures?|collapses?|counts?|stores?|holds?|contains?|builds?|splits?|"
    r"finds?|marks?|speeds?|turns?|removes?|drops?|creates?|represents?|computes?|averages?|"
    r"gives?|takes?|makes?|allows?|uses?|groups?|sorts?|filters?|maps?|runs?|checks?|"
    r"produces?|applies|works?|acts?|tells?|shows?|says?|can|will|has|have)\b",
    re.I,
)
"""Verbs that, right after a term, say what the term is or does."""
_IDENTIFIES = re.compile(r"(?:^|\s)(is|are|was|were)\s+(a|an|the)\s+([^,;]+?)[.!]?$", re.I)
_NAMES = re.compile(r"^(means?|refers?\s+to|stands?\s+for)\b", re.I)
_COPULA = re.compile(r"^(is|are)\s+(\S+)", re.I)
_NUMBER = re.compile(r"^(\d+|one|two|three|four|five|six|seven|eight|nine|ten|many|several)$", re.I)
_CLAUSE_WORD = re.compile(r"^(when|where|how|what|whatever|whenever)$", re.I)


@dataclass(frozen=True)
class Definition:
    """A statement that defines a concept, how good a definition it is (lower is better), its shape."""

    text: str
    rank: tuple[int, int, int, int]
    generic: bool = False  # by its shape alone, it says what a kind of thing is (module docstring)


def subject_of(statement: str) -> tuple[str, str, str]:
    """``(article, term key, rest)`` when ``statement`` opens with a term ("A left join keeps …").

    Only after an article or nothing: "My report keeps …" is about the learner's own
    thing, not a definition of "report". An aside between commas after the subject is
    skipped ("A CTE, written with WITH, lets …": the verb is "lets").
    """
    words = WORD.findall(without_aside(statement))
    article = ""
    if words and words[0].lower() in DETERMINERS:
        if words[0].lower() not in _ARTICLES:
            return "", "", ""
        article, words = words[0].lower(), words[1:]
    phrases = noun_phrases(" ".join(words))
    if not phrases:
        return "", "", ""
    head = phrases[0].split()
    if [w.lower() for w in words[: len(head)]] != head:
        return "", "", ""
    rest = words[len(head) :]
    while rest and rest[0].lower().endswith("ly"):
        rest = rest[1:]  # "uniquely identifies": the adverb is not the verb
    return article, term_key(phrases[0]), " ".join(rest)


def generic_shape(article: str, rest: str) -> bool:
    """The subject is a kind, the verb present tense, and it says something of the kind (docstring)."""
    if _NAMES.match(rest):
        return True
    if article == "the":
        return False
    words = rest.split()
    copula = _COPULA.match(rest)
    if copula:
        after = copula.group(2)
        low = after.lower()
        return (
            low in DETERMINERS
            or bool(_NUMBER.match(low) or _CLAUSE_WORD.match(low))
            or (len(low) > 3 and low.endswith(("ing", "ed", "s")) and not low.endswith("ss"))
        )
    return len(words) >= 3


def family(subject: str, concept: str) -> bool:
    """The subject names the concept: the same term, or its multi-word tail ("outer join")."""
    if subject == concept:
        return True
    s, c = subject.split(), concept.split()
    return len(s) >= 2 and len(s) < len(c) and c[-len(s) :] == s


def _terms_used(sentences: Sequence[Sentence]) -> set[str]:
    return {term_key(t) for s in sentences if s.learner for t in s.terms}


def definitions(sentences: Sequence[Sentence], concept: str, surface: str) -> list[Definition]:
    """The session's statements that define ``concept``, best first (module docstring)."""
    found: list[Definition] = []
    others = _terms_used(sentences) - {concept}
    for order, s in enumerate(sentences):
        if not s.statement:
            continue
        text = s.statement
        if s.resolved and term_key(s.resolved) == concept:
            text = PRONOUN_SUBJECT.sub(f"The {surface} ", text, count=1)
        article, subject, rest = subject_of(text)
        if not subject or not family(subject, concept):
            continue
        same = _IDENTIFIES.search(rest)
        if same and term_key(same.group(3)) in others:
            continue  # "patient_id is the primary key": an instance of another concept
        cue = bool(DEFINING.match(rest))
        if not cue and _PREPOSITION.match(rest):
            # "A cross join of 20 patients gives …": the verb follows a prepositional phrase.
            head = " ".join(rest.split()[:8])
            if not any(DEFINING.match(w) for w in head.split()[1:]):
                continue
        elif not cue and not re.fullmatch(r"(?!was$)[a-z]+[^s]s", rest.split()[0] if rest else ""):
            continue  # a bare noun phrase, or no verb after the subject ("was": an episode, not a definition)
        digits = bool(re.search(r"\d", text))
        generic = not _PREPOSITION.match(rest) and generic_shape(article, rest)
        found.append(Definition(text, (0 if cue else 1, int(digits), int(s.learner), order), generic))
    return sorted(found, key=lambda d: d.rank)
