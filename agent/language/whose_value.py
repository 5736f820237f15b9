"""Does a stored statement tell the learner's current value? (the parse, ``agent.language.grammar``).

The read-time net (``agent.language.same_thing``) groups the facts that answer one question with
different values and shows the newest first, the older "was until …". A newer statement is no
newer version of the learner's value when it only *might* be one, or when it is someone else's:

- **hedged** (``hedged``): its verb carries a modal of possibility or wish ("I might do a summer
  course in Dresden", "I'd love to work at Spotify"), an epistemic adverb ("Thinking about maybe
  trying Pimsleur", "probably won't even reply"), or a negated "will" (an offer declined: "won't
  even reply"). Verbs of intention are not a hedge here: "…my major is computer science and I
  want to be solid on recursion" states the value in one clause and a wish in another;
- **another person's**: the reader the write side stores by (``agent.language.current_values.others``:
  "My friend Lena has lessons with Herr Kaltenbrunner", "my flatmate gets 650", "She is using
  MongoDB"; not "the teacher put me in the B2 class" or "Prof. Hallberg has taken over my
  supervision"), so the two sides agree about whose a value is; and, read here only for now, a person
  of the learner's told by role and name with a value of their own (``named_others``: "My friend
  Karthik hit 1600", "My study buddy Sarah still uses a Chromebook"; not "My supervisor, Dr.
  Okonkwo, wants a first draft of the literature review", which sets the learner's value);
- **another group's** (``other_group``, beside the other facts read): "The marketing team got
  €6,000 for training" when the learner calls "our team" theirs.

Such a statement may still be shown, but it never becomes the newer version of the learner's value,
never ranks above it in a group, nor marks it "was until" (``not_current``). It reads the
text alone, so facts stored by any older write read the same. Only closed grammatical classes are
named here: modal verbs and epistemic adverbs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from agent.language.current_values import is_person, main_clause, others
from agent.language.grammar import is_learner, owner_of, parse, subject_of

if TYPE_CHECKING:
    from spacy.tokens import Token

_NAMES = frozenset({"PROPN"})
_OBJECTS = frozenset({"dobj", "dative", "iobj", "attr", "oprd"})
_DEFINITE = frozenset({"the", "this", "that", "these", "those", "it", "them"})
_SHARED_BY = frozenset({"conj", "xcomp", "pcomp"})

HEDGE_MODALS = frozenset({"might", "may", "could", "would", "should", "'d"})
"""Modal verbs of possibility or wish (not "will", "can", "must": "I will start at Bosch on Monday")."""
EPISTEMIC = frozenset({"maybe", "perhaps", "probably", "possibly"})
"""Adverbs that leave a statement open."""


def hedged(text: str) -> bool:
    """Whether ``text`` leaves its statement open: a modal of possibility or wish, an epistemic adverb."""
    for token in parse(text):
        lemma = token.lemma_.lower()
        if token.tag_ == "MD" and (
            lemma in HEDGE_MODALS
            or token.lower_ in HEDGE_MODALS
            or (lemma == "will" and _negated(token.head))
        ):
            return True  # "might do", "'d love to", "won't even reply"
        if token.dep_ == "advmod" and lemma in EPISTEMIC:
            return True
    return False


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def _named_person(subject: Token) -> bool:
    """True for a person of the learner's told by name: "my friend Karthik", "my study buddy Sarah".

    The parse joins the role and the name either way: the name as the role's apposition ("My friend
    Karthik", "My running club mate Sipho") or the role as the name's compound ("My study buddy
    Sarah"). Either way "my" owns the phrase and a proper name stands in it: a person of the learner's,
    not the learner.
    """
    if subject.pos_ in _NAMES:
        role = next(
            (c for c in subject.children if c.dep_ in {"compound", "appos"} and c.pos_ == "NOUN"), None
        )
    else:
        named = any(c.dep_ in {"appos", "compound"} and c.pos_ in _NAMES for c in subject.children)
        role = subject if named and subject.pos_ == "NOUN" else None
    # the role must name a person (the write side's classifier): "My Duolingo streak" names a thing
    return role is not None and _unowned_or_learners(subject) and is_person(role)


def _unowned_or_learners(token: Token) -> bool:
    """Whether the phrase of ``token`` is the learner's ("my friend Karthik") or no one's ("Gym buddy Marco").

    Not another's ("Daiki's friend Bo": ``current_values.others`` reads a possessor).
    """
    owners = [t for t in token.doc[token.left_edge.i : token.i + 1] if t.dep_ == "poss"]
    return all(is_learner(t) for t in owners)


def _about_learner(verb: Token) -> bool:
    """True when ``verb`` acts on the learner or on a thing the conversation already knows.

    "My supervisor, Dr. Okonkwo, wants a first draft of the literature review" (a definite thing,
    the learner's review), "My tutor Ana moved our lesson", "My coach Ben told me to rest": the
    named person sets the learner's value. Read on the verb's objects, their prepositional objects
    and its complement clauses, not on the clauses beside it ("…, which makes me anxious").
    """
    for child in verb.children:
        if child.dep_ in {"xcomp", "ccomp"}:
            if any(is_learner(t) for t in child.subtree):
                return True  # "wants me certified", "told me to rest", "said my word order is off"
            continue
        if child.dep_ not in _OBJECTS and child.dep_ != "prep":
            continue
        for token in _phrase(child):
            if is_learner(token):
                return True  # "told me", "for us", "our lesson"
            if child.dep_ in _OBJECTS and token.lower_ in _DEFINITE:
                return True  # a thing already known: "the literature review", "it" (not "in the centre")
    return False


def _learner_clause(head: Token) -> bool:
    """True when ``head`` heads a clause of the learner's: a first-person subject or none ("Did 16 more")."""
    if head.dep_ not in {"ROOT", "advcl", "conj", "ccomp", "parataxis"}:
        return False
    subject = subject_of(head, shared_by=_SHARED_BY)
    return subject is None or is_learner(subject)


def _phrase(token: Token) -> list[Token]:
    """``token`` and the words of its noun phrase and prepositional objects (no clauses)."""
    found, todo = [], [token]
    while todo:
        node = todo.pop()
        found.append(node)
        todo += [c for c in node.children if c.dep_ in {"det", "poss", "pobj", "prep", "compound", "amod"}]
    return found


def named_others(text: str) -> bool:
    """True when ``text`` tells the own value of a person of the learner's named in its subject.

    "My friend Karthik hit 1600 the same weekend", "My study buddy Sarah still uses a Chromebook",
    "My running club mate Sipho is doing 90 km a week": the subject is that person, and the clause
    acts on nothing of the learner's (``_about_learner``). Not the learner's person setting the
    learner's value ("My supervisor, Dr. Okonkwo, wants a first draft of the literature review",
    "My teacher Frau Obermaier moved our lesson") nor naming them ("My teacher is Frau Obermaier").
    """
    root = main_clause(text)
    if root is None:
        return False
    subject = subject_of(root, shared_by=_SHARED_BY)
    if subject is None or subject.dep_ == "nsubjpass" or not _named_person(subject):
        return False
    if any(_learner_clause(head) for head in subject.doc[: subject.i] if head.pos_ in {"VERB", "AUX"}):
        return False  # "Did 16 more this week, my friend Karan has done 40": the learner's value too
    if root.lemma_ == "be" and any(c.dep_ == "attr" and c.pos_ in _NAMES for c in root.children):
        return False  # "My teacher is Frau Obermaier": who the learner's person is
    return not _about_learner(root)


def other_group(text: str, learners: Sequence[str]) -> bool:
    """True when ``text`` gives a value to another group than the one the learner calls theirs.

    "The marketing team got €6,000 for training" beside "Our team's training budget is €4,000":
    the subject is a group told by a modifier of its own ("marketing"), not the learner's, and a
    statement of ``learners`` owns a group of that head noun ("our team") without that modifier.
    """
    root = main_clause(text)
    subject = None if root is None else subject_of(root, shared_by=_SHARED_BY)
    if subject is None or subject.pos_ != "NOUN" or subject.dep_ == "nsubjpass" or owner_of(subject):
        return False
    marks = {c.lemma_.lower() for c in subject.children if c.dep_ in {"compound", "amod"}}
    if not marks or _about_learner(root):
        return False
    head = subject.lemma_.lower()
    for other in learners:
        doc = parse(other)
        lemmas = {t.lemma_.lower() for t in doc}
        if marks <= lemmas:
            continue  # "the evening class" is the learner's "my evening class"
        if any(t.lemma_.lower() == head and owner_of(t) == "learner" for t in doc):
            return True
    return False


def not_current(text: str) -> bool:
    """Whether ``text`` is no version of the learner's current value: hedged or another's."""
    if not isinstance(text, str) or not text.strip():
        return False
    return hedged(text) or others(text) or named_others(text)
