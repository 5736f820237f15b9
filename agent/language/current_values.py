"""Whether a statement tells a value the learner has now, and whether it is the learner's (issue 39).

A message stores what the learner *has*: a home, a job, a score, a deadline. Two kinds of
statement name such a value without being it, and shown as the newest value they answer the
question wrongly:

- **not now** (``maybe``): a plan, wish, offer or hedge. "I might do a summer course in Dresden,
  not sure yet" is no home; "A recruiter messaged me about a role at Qantas, probably won't even
  reply" is no job. Read from the parse (``agent.language.grammar``): an unsure modal verb
  (``UNSURE_MODALS``, a closed class: might, may, could, would, should) on the main clause or on
  a clause of the learner's, or the learner's negated "will" ("won't even reply"); and for the
  learner's clause with a verb complement ("I want to move to Berlin", "I'm going to start at
  Siemens"), a MiniLM classifier of wishes and plans against values and announced changes
  (``agent.language.current_exemplars``, ``MAYBE_MIN``); or an adverb that leaves the clause open
  ("Maybe I'll move to Lyon", a closed class: ``EPISTEMIC``). An announced change ("I'm moving to
  Leipzig next month", "from March I'll be at Siemens") stays a value: it is scheduled, not maybe.
  A **goal** in the same mood is kept (``goal``): "The plan is to sit the JLPT N3 in December",
  "I'd like to get 7.5 in IELTS" name a target the learner aims at (a level, score, exam, result),
  a fact about the learner; only a maybe of a value they have ("I might switch to Rust") is not
  stored. Told apart by a MiniLM classifier of targets against changes and asides (``GOALS`` /
  ``CHANGES``, ``ASIDES``: "Today I'd like to go over the subjunctive"; ``GOAL_MIN``).
- **someone else's**: read by ``agent.language.whose_value.whose`` (one reader for the write
  and the read side), which asks ``is_person`` here whether a noun names a person (a MiniLM
  classifier, ``PERSON_MIN``: "sister", "colleague", "study buddy", not "stipend").

``agent.language.facts`` stores neither as a fact (the message stays in the conversation's
recall), so the read-time net never shows them as the learner's current value.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from agent.language import grammar
from agent.language.about import train
from agent.language.current_exemplars import ASIDES, CHANGES, GOALS, MAYBE, PEOPLE, SO, THINGS
from agent.language.encoder import encode

if TYPE_CHECKING:
    from sklearn.linear_model import LogisticRegression
    from spacy.tokens import Span, Token

MAYBE_MIN = 0.5
"""Probability at which a learner's clause with a verb complement is a wish or plan (``MAYBE``),
chosen by leave-one-out (``bench.fact_write_knobs``)."""
GOAL_MIN = 0.5
"""Probability at which a statement read as a maybe tells a target the learner aims at (``GOALS``
against ``CHANGES``), chosen by leave-one-out (``bench.fact_write_knobs``)."""
PERSON_MIN = 0.5
"""Probability at which the head noun of a subject the learner owns is a person (``PEOPLE``), chosen
by leave-one-out (``bench.fact_write_knobs``)."""
UNSURE_MODALS = frozenset({"might", "may", "could", "would", "should"})
"""Modal verbs (the closed class) that say a clause may, not does, hold."""
EPISTEMIC = frozenset({"maybe", "perhaps", "probably", "possibly"})
"""Adverbs (the closed class) that leave a clause open: "Maybe I'll move to Lyon"."""
CONDITIONS = frozenset({"if", "unless"})
"""Subordinators (the closed class) that open a condition: the clause they govern holds only under it."""
NOT_CONDITIONS = frozenset({"even", "as"})
"""Words that make a condition's subordinator something else: a concession ("even if"), a manner ("as if")."""
TO_THE_LISTENER = frozenset({"you", "that", "this"})
"""Subjects of a condition said of the talk, not of the value: "if you're curious", "if that matters"."""
THIRD_PERSON = frozenset({"he", "she", "him", "her", "his", "hers", "himself", "herself"})
"""Third-person singular pronouns: another person (not "they", which often names an institution)."""
_COMPLEMENTS = frozenset({"xcomp", "ccomp", "pcomp"})
_SHARED_BY = frozenset({"conj", "xcomp", "pcomp"})


@lru_cache(maxsize=1)
def _maybe_classifier() -> LogisticRegression:
    return train([*MAYBE, *SO], ["maybe"] * len(MAYBE) + ["so"] * len(SO))


@lru_cache(maxsize=1)
def _goal_classifier() -> LogisticRegression:
    others = [*CHANGES, *ASIDES]
    return train([*GOALS, *others], ["goal"] * len(GOALS) + ["change"] * len(others))


@lru_cache(maxsize=1)
def _person_classifier() -> LogisticRegression:
    return train([*PEOPLE, *THINGS], ["person"] * len(PEOPLE) + ["thing"] * len(THINGS))


def probability(model: LogisticRegression, label: str, texts: list[str]) -> list[float]:
    """Probability of ``label`` for each of ``texts`` under ``model``."""
    if not texts:
        return []
    column = list(model.classes_).index(label)
    return [float(p) for p in model.predict_proba(encode(texts))[:, column]]


def _subject(head: Token) -> Token | None:
    # a controlled or prepositional verb shares the subject too: "I want to move" is the learner's move
    return grammar.subject_of(head, shared_by=_SHARED_BY)


def _by_learner(head: Token) -> bool:
    subject = _subject(head)
    return subject is None or grammar.is_learner(subject)


def _modal(head: Token) -> tuple[str, bool]:
    """The modal verb of ``head`` (or of the verb it complements) and whether it is negated."""
    for verb in (head, head.head) if head.dep_ in _COMPLEMENTS else (head,):
        modal = next((c.lemma_.lower() for c in verb.children if c.tag_ == "MD"), "")
        if modal:
            return modal, any(c.dep_ == "neg" for c in verb.children)
    return "", False


_MAIN = frozenset({"ROOT", "ccomp", "conj", "parataxis", "csubj"})
_CLAUSES = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis", "xcomp", "pcomp", "csubj"})


def _heads(text: str) -> list[Token]:
    """The verbs that head a clause of ``text``, in the order of the text."""
    return [t for t in grammar.parse(text) if t.pos_ in {"VERB", "AUX"} and t.dep_ in _CLAUSES]


def main_clause(text: str) -> Token | None:
    """The head of the clause ``text`` opens with (the small parser often roots a later one)."""
    return next((t for t in _heads(text) if t.dep_ in _MAIN), None)


def _done_for(head: Token, complement: Token) -> bool:
    """True when a past ``head`` has its complement done to a thing ("I've had 11 PRs merged").

    The thing is the complement's own subject and the complement a participle (the small tagger may
    read it as a past form): a result told, no plan or wish, as the head is past ("I want my score
    raised" stays a wish).
    """
    past = head.tag_ in {"VBD", "VBN"} or any(c.dep_ == "aux" and c.lemma_ == "have" for c in head.children)
    own_subject = any(c.dep_ in {"nsubj", "nsubjpass"} for c in complement.children)
    return past and own_subject and complement.tag_ in {"VBN", "VBD"}


def _obliged_and_done(head: Token, complement: Token) -> bool:
    """True when ``head`` is a past "have to" ("had to take 90 out", "I've had to pay the fee").

    A past obligation is told as met: English reads "I had to pay" as "I paid", unlike a wish in
    the past ("I wanted to move") or a present or future one ("I have to pay", "I'll have to pay").
    """
    past = head.tag_ in {"VBD", "VBN"} and not any(c.tag_ == "MD" for c in head.children)
    return head.lemma_ == "have" and past and any(c.lower_ == "to" for c in complement.children)


def _has_complement(head: Token) -> bool:
    """True when ``head`` takes a verb as its complement ("want to move", "thinking about moving")."""
    for child in head.children:
        if child.dep_ in _COMPLEMENTS and not _done_for(head, child) and not _obliged_and_done(head, child):
            return True
        # "thinking about moving", "dreaming of living" (not "spend 50 dollars on learning apps")
        if child.lower_ in {"about", "of"} and any(g.dep_ == "pcomp" for g in child.children):
            return True
    return False


def unsure(text: str) -> bool:
    """True when the parse of ``text`` says it may hold, not that it holds (module docstring).

    The main clause's modal is unsure ("I might do a course in Dresden"); or, when someone else
    is its subject (an offer: "A recruiter messaged me about a role"), the learner's own clause
    hedges it ("probably won't even reply").
    """
    main = main_clause(text)
    if main is None:
        return False
    if _modal(main)[0] in UNSURE_MODALS:
        return True
    # the small parser often roots a later clause ("Perhaps I'll take the job in Vienna, they want
    # an answer by Friday"): an adverb leaving open the learner's first clause leaves the statement open
    first = next((h for h in _heads(text) if _by_learner(h)), None)
    if _open(main) or (first is not None and _open(first)):
        return True
    if _by_learner(main):
        return False
    for head in _heads(text):
        modal, negated = _modal(head)
        if _by_learner(head) and (modal in UNSURE_MODALS or (modal in {"will", "shall"} and negated)):
            return True
    return False


def _open(head: Token) -> bool:
    """True when an epistemic adverb leaves ``head``'s clause open ("Maybe I'll move to Lyon")."""
    return any(c.dep_ == "advmod" and c.lower_ in EPISTEMIC for c in head.children)


def conditional(text: str) -> bool:
    """True when a condition governs the main clause of ``text``'s first sentence (issue 39, L5).

    "If we ever win the lottery we're moving to <city>", "I'll get a <laptop> if the bonus comes
    through": what the main clause names holds only under the condition, so it tells no value the
    learner has now. Read from the parse: a subordinator of ``CONDITIONS`` (``mark``) on the
    sentence's root or on a clause hung on the root (``advcl``; the small parser may root the
    condition itself and hang the rest under it). Not a condition said of the talk ("if you're
    curious, I live in <city> now": ``TO_THE_LISTENER``), a concession ("even if") or a manner ("as
    if"); nor one inside a later clause ("I live in <city>, and if I get the job I'll move"), which
    ``fact_parts.now_part`` reads clause by clause; nor a hedge over a value held now
    (:func:`_hypothetical`).
    """
    doc = grammar.parse(text)
    first = next(iter(doc.sents), None)
    if first is None:
        return False
    for mark in first:
        if mark.dep_ != "mark" or mark.lower_ not in CONDITIONS:
            continue
        if mark.i > 0 and doc[mark.i - 1].lower_ in NOT_CONDITIONS:
            continue
        head = mark.head
        if head.dep_ not in {"advcl", "ROOT"}:
            continue  # "I asked if I could switch" (a question reported), "…, and if I get the job …"
        subjects = (c for c in head.children if c.dep_ in {"nsubj", "nsubjpass", "expl"})
        if any(c.lower_ in TO_THE_LISTENER for c in subjects):
            continue
        if (head == first.root or head.head == first.root) and _hypothetical(first, head):
            return True
    return False


def _hypothetical(sentence: Span, condition: Token) -> bool:
    """True when the clause a condition governs is one still to come, not a value held now.

    "If I ever quit teaching I'm becoming a beekeeper", "I'll get a laptop if the bonus comes":
    "ever" in the condition, or a main clause in the future (a modal, a progressive, "going to")
    leaves the value for later. A present state under a condition is a hedge, and the value
    holds now: "If I'm honest, I prefer Vim now", "Unless something changes, my exam is on the 12th".
    """
    inside = {t.i for t in condition.subtree}
    if any(t.lower_ == "ever" for t in condition.subtree):
        return True
    rest = [t for t in sentence if t.i not in inside]
    return any(
        t.tag_ == "MD" or (t.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in t.children))
        for t in rest
    )


def _wish_or_hedge(text: str) -> bool:
    """True when ``text`` may hold or is wished, not told as holding (module docstring)."""
    if unsure(text) or conditional(text):
        return True
    main = main_clause(text)
    if main is None or not _by_learner(main) or not _has_complement(main):
        return False
    return probability(_maybe_classifier(), "maybe", [text])[0] >= MAYBE_MIN


def goal(text: str) -> bool:
    """True when ``text`` tells a target the learner aims at: a level, score, exam or result (``GOALS``).

    "The plan is to sit the JLPT N3 in December", "I'd like to get 7.5 in IELTS": a plan or wish in
    its mood, but what it names is the learner's goal, a fact worth keeping; against a maybe of a
    value the learner has ("I might switch to Rust", "maybe I'll move to Lyon", ``CHANGES``).
    """
    return probability(_goal_classifier(), "goal", [text])[0] >= GOAL_MIN


def maybe(text: str) -> bool:
    """True when ``text`` is a plan, wish, offer or hedge of a value the learner has, not that value now.

    A goal in the same mood is kept (``goal``): it is the learner's target, not their current value.
    """
    if not isinstance(text, str) or not text.strip():
        return False
    return _wish_or_hedge(text) and not goal(text)


def is_person(token: Token) -> bool:
    """True when ``token``'s head noun names a person (the ``PEOPLE`` / ``THINGS`` classifier)."""
    return probability(_person_classifier(), "person", [token.lemma_.lower()])[0] >= PERSON_MIN
