"""Which values of a kind a text names as the learner's own: the frames that make a named thing theirs.

``question_net.answer_groups`` joins a statement to the best answer to a question below its floor
when the statement names a value of the kind asked in such a frame: a thing of the learner's at or
in it, what the learner got, a thing of theirs that happens there ("my badge photo at <firm>", "the
<laptop> my company gave me", "my reviews happen in <app>"). Read from spaCy's parse and entities.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from agent.language.answer_kinds import NAME, OLD, PERSON, PLACE, learners_name
from agent.language.current_values import is_person
from agent.language.grammar import entities, holds_text, parse
from agent.language.people import entity_labels
from agent.language.same_thing import values

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

_LEARNERS = frozenset({"my", "our"})
_SPEAKER = frozenset({"i", "we"})
ENTITY_LABELS = {PLACE: frozenset({"GPE", "LOC", "FAC", "ORG"}), PERSON: frozenset({"PERSON"})}
"""spaCy's labels of a name of each kind (as ``answer_kinds.holds_kind`` reads them)."""
_ALIKE = (frozenset({"ORG", "FAC"}), frozenset({"GPE", "LOC"}), frozenset({"PERSON"}))
"""Labels spaCy gives one sort of place alike: a firm or a school (an organisation or its building),
a city or a region."""


def alike(labels: frozenset[str], others: set[str]) -> bool:
    """A label of ``labels`` and one of ``others`` name the same sort of place or a person (``_ALIKE``)."""
    return any(labels & alike and others & alike for alike in _ALIKE)


@holds_text
@lru_cache(maxsize=1024)
def held_as_learners(kind: str, text: str) -> frozenset[str]:
    """The labels of the values of ``kind`` (a place, a person, a name) ``text`` names as the learner's own.

    spaCy's entity labels ("ORG", "GPE") for a place or a person, ``NAME`` for a name; empty when none.

    A change told as a remark about the new thing names it in a frame that makes it the learner's:
    a thing of theirs at or in it ("my badge photo at <firm>", "my <city> studio", "from my balcony
    in <city>"), what the learner or a thing of theirs got ("the <laptop> I picked up", "the <laptop>
    my company gave me"), a thing of theirs that happens in it ("my reviews happen in <app>"). Its
    words may be far from the question's (a badge photo for "where does the learner work?"), so
    ``answer_groups`` joins it to the best answer below ``ANSWER_FLOOR``. Another's thing ("my
    cousin got hired at <firm>", "my flatmate's <laptop>"), a visit, a plan or a trial ("an interview
    at <firm>", "tried <app> once") names the value in no such frame.
    """
    doc = parse(text)
    own = learners_name(text)
    there = _learners_there(doc)
    if kind in ENTITY_LABELS:
        return frozenset(
            label
            for a, b, name, label in entities(text)
            if label in ENTITY_LABELS[kind]
            and name.lower() not in own
            and (there or any(_in_learners_frame(doc[i]) for i in range(a, b)))
        )
    # a name the tagger reads as a common noun ("Lingvist's audio …") is still one of the text's names
    names = {w.lower() for v in values(text) if not v[:1].isdigit() for w in v.split()} - own
    framed = any(
        there or _in_learners_frame(t)
        for t in doc
        if t.pos_ == "PROPN" and t.lower_ not in own or t.lower_ in names
    )
    return frozenset({NAME}) if framed else frozenset()


def _learners_there(doc: Doc) -> bool:
    """``doc`` says the learner does or has something "there" now ("my streak there is …").

    "There" after the sentence's first word, on a verb in the present whose subject is the learner or
    a thing of theirs (or shared with such a verb: "I exported … and do my reviews there"), points back
    to the place or the name the sentence names. Not a past visit ("I stayed there three nights").
    """
    for token in doc:
        if token.lower_ != "there" or token.i == token.sent.start:
            continue
        verb = token.head
        subject = verb.head if verb.dep_ == "conj" and not _subjects(verb) else verb
        if verb.tag_ in ("VBP", "VBZ") and any(s.lower_ in _SPEAKER or _owned(s) for s in _subjects(subject)):
            return True
    return False


def _subjects(verb: Token) -> list[Token]:
    """The subjects of ``verb``."""
    return [c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")]


def _in_learners_frame(token: Token) -> bool:
    """``token`` is in a frame that makes it the learner's (``held_as_learners``).

    Up its heads: a noun the learner owns or got, the speaker's "here" ("here in <city>"), or a verb
    reached by a preposition whose subject is a thing the learner owns.
    """
    node, via = token, ""
    while True:
        if _owned(node) or _got_by_learner(node) or node.lower_ == "here" and via == "prep":
            return True
        if _learners_stretch(node):
            return True  # "three weeks into night shifts at <place>"
        if node.pos_ in ("VERB", "AUX"):
            # "my badge photo at <firm> is awful"; "survived my first fortnight at <place>" (the
            # parser hangs the place on the verb, beside the learner's stretch of time there)
            return via == "prep" and any(
                s.dep_ in ("nsubj", "nsubjpass")
                and _owned(s)
                or s.dep_ in ("dobj", "npadvmod")
                and _learners_stretch(s)
                and all(t.lower_ in _SPEAKER for t in _subjects(node))
                for s in node.children
            )
        if node.head.i == node.i:
            return False
        via, node = node.dep_, node.head


def _learners_stretch(noun: Token) -> bool:
    """``noun`` is a stretch of the learner's time somewhere, under way: "my first month", "three weeks into".

    A noun of time (a span NER reads as a date, or one the learner owns: "my first shift") counted by
    an ordinal ("first", "second": the start of what goes on), or by a number with "into" after it
    ("three weeks into night shifts at <place>"); another's ("her first week") is not. Time told as
    under way at a place makes the place the learner's ("first month in the <lab> done!"); a counted
    visit ("two days at the <city> conference") is no such stretch.
    """
    if noun.pos_ != "NOUN" or any(c.dep_ == "poss" and c.lower_ not in _LEARNERS for c in noun.children):
        return False
    labels = entity_labels(noun.doc.text)
    if labels.get(noun.i) != "DATE" and not _owned(noun):
        return False
    counts = [c for c in noun.children if c.dep_ in ("nummod", "amod")]
    under_way = any(c.dep_ == "prep" and c.lower_ == "into" for c in noun.children)
    # an ordinal is a number word the tagger reads as an adjective ("first"), a count is tagged CD
    return any(c.like_num and (c.tag_ != "CD" or under_way) for c in counts)


def _owned(noun: Token) -> bool:
    """``noun`` is a thing the learner calls theirs ("my desk"): not a person, not one called old.

    A noun with an apposition names someone ("my old schoolmate <name>").
    """
    return (
        noun.pos_ in ("NOUN", "PROPN")
        and any(c.dep_ == "poss" and c.lower_ in _LEARNERS for c in noun.children)
        and not any(c.dep_ == "amod" and c.lower_ in OLD or c.dep_ == "appos" for c in noun.children)
        and not is_person(noun)
    )


def _got_by_learner(node: Token) -> bool:
    """``node`` has a relative clause told by the learner or a thing of theirs, or given to them."""
    for clause in (c for c in node.children if c.dep_ == "relcl"):
        for c in clause.children:
            if c.dep_ == "nsubj" and (
                c.lower_ in _SPEAKER or any(p.dep_ == "poss" and p.lower_ in _LEARNERS for p in c.children)
            ):
                return True
            if c.dep_ in ("dative", "dobj") and c.lower_ in ("me", "us"):
                return True
    return False
