"""The offline extractor's reading of a session: prose only, cut into sentences and clauses.

Rule 1 of ``agent.notes.offline``: tool and system turns are dropped, and so are the offline
policy's replies (a tutor turn opening with its banner: acknowledgements, memory quotes, the
learner's own note handed back) and renderings (``[calls …]`` lines, turns quoting memory); each
remaining turn is cut into sentences (by the language layer's splitter,
``agent.language.sentences``), and declarative sentences into clauses at ``:``/``;``
and before ``while``/``whereas``/``but``/``and then``. A tutor answer opening with "It …"
right after a learner question remembers the term the question was about. The learner's
aims and self-description are marked (``about_the_learner``): they illustrate no concept.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from agent.language.questions import is_question
from agent.language.sentences import EXAMPLE_OPENER
from agent.language.sentences import split_sentences as sentences_of
from agent.models.offline_reading import OFFLINE_BANNER
from agent.notes.text import clean_prose, is_boilerplate, noun_phrases, strip_lead_in

LEARNER_ROLES = frozenset({"user", "human", "learner"})
NON_PROSE_ROLES = frozenset({"tool", "function", "system"})

_CLAUSE = re.compile(r"\s*[:;]\s+|,\s+(?=(?:while|whereas|but|and then)\s)")
_CONNECTIVE = re.compile(r"^(while|whereas|but|and then)\s+", re.I)
_MEMORY_QUOTE = re.compile(r"^\s*from your memory\b", re.I)
CODE_CALL = re.compile(r"[A-Za-z_]\w*\([^)]*\)")
"""A call written as code ("RANK()", "COUNT(*)"): a code or query line illustrates, as "For example" does."""
PRONOUN_SUBJECT = re.compile(r"^(it|this|that|they)\s+(?=[a-z])", re.I)
"""A sentence whose subject is a pronoun ("It keeps …"): it may define the term just asked about."""


@dataclass(frozen=True)
class Sentence:
    """One clean sentence of the session: who said it, the text, its terms."""

    learner: bool
    text: str  # the clause as said (banner and tool renderings removed)
    statement: str  # lead-ins removed; "" for questions and boilerplate
    terms: tuple[str, ...]  # its noun phrases (lowercase surface), in order
    question: bool
    resolved: str = ""  # the term a leading "It …" refers to, if any


def _split(content: str) -> list[str]:
    """The sentences of ``content`` by the language layer's splitter, but the shortest (``"OK."``)."""
    return [s for s in sentences_of(content) if len(s) > 2]


def split_sentences(transcript: Sequence[dict[str, Any]]) -> list[Sentence]:
    """The clean sentences and clauses of a session, in order (rule 1 of ``agent.notes.offline``)."""
    out: list[Sentence] = []
    asked = ""  # the term of the learner's last question, until the tutor has answered
    for turn in transcript:
        role = str(turn.get("role", "user")).lower()
        if role in NON_PROSE_ROLES:
            continue  # tool results are JSON, not something the learner or tutor said
        learner = role in LEARNER_ROLES
        raw_content = str(turn.get("content", ""))
        if not learner and raw_content.lstrip().startswith(OFFLINE_BANNER):
            # The offline policy's own words ("Noted; …", "Got it: …", a memory quote, a note handed
            # back) teach nothing new, and would stand between an example and what it illustrates.
            continue
        content = clean_prose(raw_content)
        if not learner and _MEMORY_QUOTE.match(content):
            continue  # a tool result quoted by a tutor: a rendering, not prose
        for position, raw in enumerate(_split(content)):
            question = is_question(raw)
            boiler = is_boilerplate(raw, tutor=not learner)
            resolved = ""
            if not learner and position == 0 and asked and not (question or boiler):
                resolved = asked if PRONOUN_SUBJECT.match(raw) else ""
            clauses = [raw] if question or boiler else [c.strip() for c in _CLAUSE.split(raw) if c.strip()]
            for index, clause in enumerate(clauses):
                statement = "" if question or boiler else strip_lead_in(_CONNECTIVE.sub("", clause))
                if len(statement.split()) < 3:
                    statement = ""
                terms = tuple(p for p in noun_phrases(clause))
                out.append(
                    Sentence(learner, clause, statement, terms, question, resolved if index == 0 else "")
                )
        if learner:
            questions = [s for s in out if s.learner and s.question]
            last = questions[-1] if questions and questions[-1] is out[-1] else None
            asked = last.terms[0] if last and last.terms else ""
        else:
            asked = ""
    return out


def example_anchors(sentences: Sequence[Sentence]) -> list[Sentence | None]:
    """For each sentence that opens with an example marker or a code call, the sentence it illustrates.

    "A window function computes … For example, I used ROW_NUMBER() …": the example names
    no term, but it illustrates the statement just before it (an example of an example
    illustrates the same statement). ``None`` for every other sentence.
    """
    anchors: list[Sentence | None] = []
    for index, sentence in enumerate(sentences):
        anchor = None
        illustrates = EXAMPLE_OPENER.match(sentence.text) or CODE_CALL.match(sentence.text)
        if index and not sentence.question and illustrates:
            anchor = anchors[index - 1] or sentences[index - 1]
        anchors.append(anchor)
    return anchors


def without_example_marker(statement: str) -> str:
    """``statement`` without its opening "For example," (the note labels it an example)."""
    rest = EXAMPLE_OPENER.sub("", statement, count=1)
    if not rest:
        return statement
    first = rest.split(maxsplit=1)[0]
    if CODE_CALL.match(rest) or first[1:] != first[1:].lower():
        return rest  # code keeps its case: "makeCounter() returns …", "iPhone"
    return rest[:1].upper() + rest[1:]


# The learner about themselves: an aim, a plan, a need, who they are. Not an illustration of
# a concept, even when it names one ("My goal is to write the report with window functions").
ABOUT_ME = re.compile(
    r"^(my|our)\s+(\w+\s+)?(goal|aim|plan|target|objective|hope|wish|dream|deadline|name)s?\b"
    r"|\b(i|we)\s+(\w+\s+)?(want|wish|hope|plan|intend|aim|need|would like|am going|will|must|have to)\b"
    r"|\b(i|we)('d like|'m going|'ll)\b"
    r"|^(i|we)(\s+am|'m|\s+are|'re)\s+(a|an)\s|^(i|we)\s+work\s+(as|at|in|for)\b",
    re.I,
)


def about_the_learner(sentence: Sentence) -> bool:
    """The learner's aim, plan or self-description: it may name a concept but illustrates none."""
    return sentence.learner and bool(ABOUT_ME.search(sentence.statement or sentence.text))


_ASIDE = re.compile(r"^((?:(?:a|an|the)\s+)?[^\s,]+(?:\s+[^\s,]+){0,2}),\s+[^,.;:]{1,60},\s+(?=[a-z])", re.I)


def without_aside(statement: str) -> str:
    """``statement`` without an aside between commas after a short subject.

    "A CTE, written with WITH, lets …" -> "A CTE lets …": the verb after the subject is "lets".
    """
    return _ASIDE.sub(r"\1 ", statement, count=1)
