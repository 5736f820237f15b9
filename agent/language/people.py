"""Who a word names: a person (a name, "she", a noun of a person) or a thing (spaCy's NER, the parse).

The readers of whose value a statement gives (``agent.language.whose_value``) ask these of the
parse's tokens: a proper name read as a person by a role beside it ("my study buddy Sarah"), a
"he" or "she" later, or spaCy's named entities; a noun of a person by the MiniLM classifier
``current_values.is_person`` ("sister", "colleague"), not by a list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.language.current_values import THIRD_PERSON, is_person
from agent.language.grammar import entities

if TYPE_CHECKING:
    from spacy.tokens import Token

NAMES = frozenset({"PROPN"})
NOT_PEOPLE = frozenset({"ORG", "PRODUCT", "GPE", "LOC", "FAC", "NORP", "WORK_OF_ART", "EVENT", "DATE", "LAW"})
"""Named-entity labels of things, places and times: never a person."""


def entity_labels(text: str) -> dict[int, str]:
    """The named-entity label of each token of ``text`` (spaCy's small English NER)."""
    return {i: label for start, end, _, label in entities(text) for i in range(start, end)}


def entity_label(token: Token) -> str:
    """The named-entity label of ``token`` ("" when none)."""
    return entity_labels(token.doc.text).get(token.i, "")


def followed_by_third_person(token: Token) -> bool:
    """True when "he", "she" or the like comes after ``token`` in its text."""
    return any(t.lower_ in THIRD_PERSON for t in token.doc if t.i > token.i)


def role_of(token: Token) -> Token | None:
    """The noun beside a name that says who the person is ("my friend Karthik", "my study buddy Sarah").

    The small tagger may read the role as an adjective ("My flatmate Jonas").
    """
    return next(
        (c for c in token.children if c.dep_ in {"compound", "appos", "amod"} and c.pos_ in {"NOUN", "ADJ"}),
        None,
    )


def named(token: Token) -> bool:
    """True when a proper name stands beside ``token`` ("my friend Lena", "my classmate Rui")."""
    return any(c.dep_ in {"appos", "compound"} and c.pos_ in NAMES for c in token.children)


def person_name(token: Token, *, possessor: bool = False) -> bool:
    """Whether the proper name ``token`` names a person, not an app, firm or place.

    A person's role beside it ("my study buddy Sarah"), "he" or "she" later ("Tomás uses Anki for his
    vocab"), or spaCy's NER: a person; as a possessor ("Ana's test") any name NER does not read as an
    organisation, product or place. A bare name as subject needs a number in the sentence and no NER
    label of a thing ("Rui finished all 40 already", "Ana logged 55"): "Dr. Okafor accepted a chair in
    Edinburgh" may name the learner's supervisor, and is read with what follows.
    """
    role = role_of(token)
    if role is not None and is_person(role):
        return True
    label = entity_label(token)
    if label in NOT_PEOPLE:
        return False
    if followed_by_third_person(token):
        return True
    if possessor:
        return True
    # a capitalised role is the learner's person acting for them ("Boss approved another 400 a month")
    named = label == "PERSON" or (label == "" and token.pos_ in NAMES)
    return named and any(t.like_num for t in token.doc if t.i > token.i)


def person(token: Token, *, possessor: bool = False) -> bool:
    """Whether ``token`` names a person: "she", a name, or a noun of a person ("sister", "colleague")."""
    if token.lower_ in THIRD_PERSON:
        return True
    if is_name(token) or (possessor and token.is_title):
        return person_name(token, possessor=possessor)  # "Tomasz's thesis defence" (read as a noun)
    return token.pos_ == "NOUN" and is_person(token)


def is_name(token: Token) -> bool:
    """A proper name by its tag or by NER, or a capitalised noun with no determiner told of as he or she.

    The small tagger reads a rare name as a noun: "Rui", "Sofia got 8.5, she's …".
    """
    if token.pos_ in NAMES or entity_label(token) == "PERSON":
        return True
    # a name is singular: "Lessons are Thursdays at her place" opens with a plural noun, no name
    bare = token.tag_ == "NN" and token.is_title and not any(c.dep_ == "det" for c in token.children)
    return bare and followed_by_third_person(token)
