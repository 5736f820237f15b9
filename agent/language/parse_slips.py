"""Where the small parser's tree says what the sentence does not, read as the sentence means it.

spaCy's small English model hangs some clauses in the wrong place; the readers of whose a value
is (``agent.language.whose_value``) ask these before they trust a subject or a reported clause.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.language.current_values import is_person

if TYPE_CHECKING:
    from spacy.tokens import Token


def an_amount(subject: Token) -> bool:
    """True when ``subject`` is an amount, which owns nothing: "I've got GH₵ 640 put aside".

    The small parser makes the amount the subject of "put aside" under "got", and a sign it does
    not know ("GH₵") reads as a name. An amount of people ("two friends", "3 of my classmates")
    or of someone's ("my sister's 300 cards") is no amount here.
    """
    counted = subject.like_num or any(c.dep_ == "nummod" for c in subject.children)
    owned = any(c.dep_ in {"poss", "prep"} for c in subject.children)
    return (
        counted
        and not owned
        and subject.ent_type_ not in {"PERSON", "NORP", "ORG"}
        and not is_person(subject)
    )


_RELATIVE = frozenset({"that", "which", "who", "whom"})


def relative_clause(head: Token, clause: Token) -> bool:
    """True when ``clause`` is a relative clause the parser hung on ``head`` as its complement.

    "cut 4 pages of the review that my supervisor hated": after the object, opened by "that" and
    with its own object missing (the pages are what was hated), it says which pages, not what
    someone reported; read as speech, the learner's cut was the supervisor's.
    """
    objects = [
        c for c in head.children if c.dep_ == "dobj" and c.pos_ in {"NOUN", "PROPN"} and c.i < clause.i
    ]
    opener = clause.left_edge
    own_object = any(
        c.dep_ in {"dobj", "ccomp", "xcomp"} and c.lower_ not in _RELATIVE for c in clause.children
    )
    return bool(objects) and clause.pos_ == "VERB" and opener.lower_ in _RELATIVE and not own_object
