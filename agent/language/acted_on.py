"""Whether a clause acts on the learner or on a thing of theirs (the parse, ``agent.language.grammar``).

The reader of whose value a statement gives (``agent.language.whose_value``) asks it of a clause
whose subject is another person or group: "My tutor Ana moved our lesson", "My coach told me to
rest", "The lecturer gave the whole seminar a week more" act on the learner; so does a person who acts on
the learner's things on a thing the conversation knows ("My teacher put the lessons on Thursdays",
"My supervisor wants the draft by May"). A peer's deed on a definite thing is the peer's own ("My
brother finished the whole trilogy over the weekend") unless the clause gives the thing a value
("My mum moved the dentist appointment to Friday"); a clause beside the complement ("… she'll stay
a barista while I apply for …") and "mine" standing for another's thing ("his laptop cost 2000,
mine's cheaper") name no thing of the learner's. Only closed grammatical classes are named here:
determiners, pronouns, prepositions and particles of a goal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.language.grammar import is_learner, subject_of
from agent.language.own_values import has_a_value
from agent.language.people import is_name

if TYPE_CHECKING:
    from spacy.tokens import Token

_OBJECTS = frozenset({"dobj", "dative", "iobj", "attr", "oprd"})
_FORMER = frozenset({"old", "former", "previous", "ex"})
"""Adjectives that put a thing of the learner's in the past: "took my old seat" is the taker's now."""
_DEFINITE = frozenset({"the", "this", "that", "these", "those"})
"""Determiners of a thing the conversation may know: the learner's when the clause gives it a value."""
_ANAPHORS = frozenset({"it", "them"})
"""Pronouns of a thing told before: acted on by another, it is the learner's ("My teacher doubled it")."""
_TOWARDS = frozenset({"to", "until", "till", "by", "into", "from", "back", "forward"})
"""Prepositions and particles of a goal or limit (a closed class): "moved the exam to Friday" sets a
value of the thing; "read the book over the summer" tells when the reader did it."""
_STANDING = frozenset({"mine", "ours"})
"""Possessive pronouns standing for a thing named before: "…, mine's cheaper" compares, it holds no value."""
_SHARED_BY = frozenset({"conj", "xcomp", "pcomp"})


def about_learner(verb: Token, *, known: bool = True, deeds: bool = False) -> bool:
    """True when ``verb`` acts on the learner or on a thing the conversation already knows.

    "My supervisor, Dr. Okonkwo, wants a first draft of the literature review" (a definite thing,
    the learner's review), "My tutor Ana moved our lesson", "My coach Ben told me to rest": the
    named person sets the learner's value. Read on the verb's objects, their prepositional objects
    and its complement clauses, not on the clauses beside it ("…, which makes me anxious"); a
    copula's attribute told by a clause that acts on the learner names the learner's person by a
    role ("<person> is the one signing my forms now": the learner's supervisor, told without the word).
    ``deeds``: the subject is a peer (``people.peer``), whose deed on a definite thing, or on a thing
    of the learner's, is their own unless the clause gives the thing a value (``_known_thing``,
    ``_taken``).
    """
    subject = subject_of(verb, shared_by=_SHARED_BY)
    for child in verb.children:
        if subject is not None and child.dep_ == "prep" and subject.i < child.i < verb.i:
            continue  # the parser's slip: "Lena from my course switched …" tells who Lena is
        if child.dep_ in {"xcomp", "ccomp"}:
            if any(_learners_now(t) for t in _without_asides(child)):
                return True  # "wants me certified", "told me to rest", "said my word order is off"
            continue
        if child.dep_ not in _OBJECTS and child.dep_ != "prep":
            continue
        if child.dep_ == "attr" and any(
            c.dep_ in {"acl", "relcl"} and about_learner(c, known=known, deeds=deeds) for c in child.children
        ):
            return True  # "<person> is the one who grades my essays": the learner's grader, by a role
        for token in _phrase(child):
            if _learners_now(token) and not (deeds and _taken(token, verb, child)):
                return True  # "told me", "for us", "our lesson"
            # a copula's attribute describes the subject, it is not acted on ("is a doctor at the Charité")
            acted_on = known and child.dep_ in _OBJECTS and child.dep_ != "attr"
            if acted_on and _known_thing(token, verb, child, deeds=deeds):
                return True  # a thing already known: "the literature review by June", "it"
    return False


def plays_a_role(head: Token) -> bool:
    """True when the clause of ``head`` has a person told by name act on the learner's own thing.

    "… so <name> is the one signing my forms now", "<name> plans my sessions from now on": the learner's
    person, told by what they do for the learner. A thing the learner calls theirs, not the learner
    alone ("Tom … sent me his notes" tells no role).
    """
    subject = subject_of(head)
    if subject is None or not is_name(subject) or not about_learner(head, known=False):
        return False
    return any(t.dep_ == "poss" and is_learner(t) for t in head.subtree)


def _taken(token: Token, verb: Token, thing: Token) -> bool:
    """A peer's deed on a thing of the learner's that gives it no value: the thing is the peer's now.

    "my flatmate took over my room", "my cousin moved into my flat in <city>": the learner's old
    home, job or device is told as the peer's, so it is no value of the learner's (the learner's own
    change is told elsewhere). "My mum moved my dentist appointment to Friday" gives the thing a
    value (``_sets_a_value``): the learner's.
    """
    return token.dep_ == "poss" and not _sets_a_value(verb, thing)


def _known_thing(token: Token, verb: Token, thing: Token, *, deeds: bool) -> bool:
    """True when ``token`` marks a thing the conversation knows, which ``verb`` acts on as the learner's.

    "it" or "them", or a definite phrase ("My teacher put the lessons on Thursdays"); of a peer's
    deeds, only when the clause gives the thing a value ("My mum moved the dentist to Friday"): "My
    brother finished the whole trilogy over the weekend" is the brother's own deed.
    """
    if token.lower_ in _ANAPHORS:
        return True
    return token.lower_ in _DEFINITE and (not deeds or _sets_a_value(verb, thing))


def _sets_a_value(verb: Token, thing: Token) -> bool:
    """True when ``verb`` gives its object ``thing`` a value: to someone, or towards a goal or limit.

    A dative ("gave the seminar two more days"), an object predicate, a particle of direction
    ("pushed the session back"), or a phrase of a goal or limit that names a value ("to next
    Thursday", "by 3 May"; not "by herself"), on the verb or, as the parser may hang it, on the thing.
    """
    for child in (*verb.children, *thing.children):
        if child.dep_ in {"dative", "iobj", "oprd"} or (child.dep_ == "prt" and child.lower_ in _TOWARDS):
            return True
        towards = child.dep_ == "prep" and child.lower_ in _TOWARDS
        if towards and has_a_value(" ".join(t.text for t in child.subtree)):
            return True
    return False


def standing(token: Token) -> bool:
    """``token`` is "mine" or "ours" standing for a thing named before (``_STANDING``)."""
    return token.lower_ in _STANDING


def _without_asides(head: Token) -> list[Token]:
    """The words of ``head``'s subtree without its subordinate clauses that have a subject of their own.

    "keeps teasing that he'll be a waiter forever while I apply for grad school": the learner is the
    subject of a clause beside the joke, not what the joke is about.
    """
    aside = {
        t.i
        for c in head.subtree
        if c.dep_ == "advcl" and any(m.dep_ == "mark" for m in c.children) and subject_of(c) is not None
        for t in c.subtree
    }
    return [t for t in head.subtree if t.i not in aside]


def _learners_now(token: Token) -> bool:
    """``token`` is the learner or a thing the learner has now, not one they had ("my old seat").

    Not "mine" or "ours" standing for a thing of another's named before ("…, mine's cheaper").
    """
    if not is_learner(token) or standing(token):
        return False
    former = any(c.dep_ == "amod" and c.lower_ in _FORMER for c in token.head.children)
    return token.dep_ != "poss" or not former


def _phrase(token: Token) -> list[Token]:
    """``token`` and the words of its noun phrase and prepositional objects (no clauses)."""
    found, todo = [], [token]
    while todo:
        node = todo.pop()
        found.append(node)
        todo += [c for c in node.children if c.dep_ in {"det", "poss", "pobj", "prep", "compound", "amod"}]
    return found
