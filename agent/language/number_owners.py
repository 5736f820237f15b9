"""Whose value a number of a statement is: the learner's, another's, or no one's told (the parse).

The subject of the number's clause says, unless the verb changes a thing whose owner is named ("she
added 20 minutes to my daily limit" is the learner's, "he cut 10 minutes off his limit" is his) or
gives it to a recipient ("gave me 350 more points"): the learner ("I've got 11 kanji"), another
person's thing ("Her stipend went up by 50", "Lena's deck"), a third person ("she gets 650"), a
person the learner names who does or gets the number ("My teacher learned 50"), or a person of the
learner's with a value of their own ("My wife is on page 210": ``whose_value.whose``). Read by
``change_owner`` (whose thing a change names), ``differences`` and ``restated`` (another's number
is no total of the learner's).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from agent.language.grammar import holds_text, is_learner, owner_of, parse, token_at
from agent.language.numerals import numbers, without_current
from agent.language.people import is_group, person

if TYPE_CHECKING:
    from spacy.tokens import Token

SAYS = frozenset({"say", "tell", "think", "reckon", "recommend", "suggest", "advise", "insist", "reply"})
"""Verbs of saying: their subject tells the value, the reported words say whose it is ("My mentor says 15%
more per week is the minimum": no change of the mentor's)."""

THIRD = frozenset({"he", "she", "him", "her", "his", "hers"})
"""Third-person pronouns of a person ("they" is as often an institution: "They pushed the exam")."""
_RECIPIENT = frozenset({"dative", "iobj"})


@holds_text
@lru_cache(maxsize=2048)
def number_owner(text: str, start: int) -> str:
    """Whose value the number at ``text[start:]`` is: "learner", "another", or "" (the parse).

    Its clause's subject says: the learner ("I've got 11 kanji", "Mine got raised by 120"); another
    person's thing ("Her stipend went up by 50", "Lena's deck"), a third person ("she gets 650"),
    or a person the learner names who does or gets the number as the verb's object ("my flatmate
    gets 650", "My teacher learned 50", "Karan has done 40"; not "has": "My deck has 900 cards"),
    or a clause acting on another's thing ("My brother lowered his limit by 200"). A recipient
    ("gave me 350 more points", "gave the whole class an extra week") makes it not another's.
    """
    doc = parse(text)
    token = token_at(doc, start)
    verb = token
    while verb is not None and verb.pos_ not in {"VERB", "AUX"} and verb.head.i != verb.i:
        verb = verb.head
    if token is None or verb is None or verb.pos_ not in {"VERB", "AUX"}:
        return ""
    subject = next((c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}), None)
    if subject is None:
        # a person's name the parse took for a time ("Dan fixed another 6 bugs": npadvmod) is the subject
        before = (c for c in verb.children if c.dep_ == "npadvmod" and c.i < verb.i)
        subject = next((c for c in before if person(c)), None)
    if subject is None:
        return ""
    if is_learner(subject):
        return "learner"
    if verb.lemma_.lower() in SAYS and verb.idx < start:
        return ""  # "My mentor says 15% more per week is the minimum": the speaker tells, owns nothing
    if any(c.dep_ in _RECIPIENT for c in verb.children):
        return ""  # "The webinar gave me 350 more points", "Haddad gave the whole class an extra week"
    acted = _acted_on(verb, token)
    if acted:
        return acted  # "she added 20 minutes to my daily limit": the changed thing's owner, not the actor
    owner = owner_of(subject)
    if subject.lower_ in THIRD or _anothers_thing(subject):
        return "another"
    if any(c.dep_ == "case" for c in subject.children):
        return "another"  # "My flatmate's went up by 100": the possessor's thing, left unsaid
    objects = [c for c in verb.children if c.dep_ == "dobj"]
    if any(_anothers_thing(o) for o in objects):
        return "another"  # "My brother lowered his limit by 200"
    owned = _object_count(token, objects) and verb.lemma_.lower() not in {"be", "have", "hold", "contain"}
    # a group of the learner's holds or is given the learner's value ("My company pays 1,500 a year")
    someone = (owner == "learner" and not is_group(subject)) or subject.pos_ == "PROPN"
    if owned and someone:
        return "another"
    if owner == "learner" and _persons_own(verb):
        return "another"  # "My wife is on page 210": the learner's person, with a value of her own
    return "learner" if owner == "learner" else ""


def _persons_own(verb: Token) -> bool:
    """True when ``verb``'s sentence tells a person of the learner's own value (``whose_value.whose``)."""
    from agent.language.whose_value import LEARNER, whose  # noqa: PLC0415 - its classifier loads only when asked

    return whose(verb.sent.text) != LEARNER


_ONTO = frozenset({"to", "from", "into", "onto", "off", "of", "out"})
"""Prepositions that lead from a verb of change to the thing changed ("added 20 minutes to my limit")."""


def _acted_on(verb: Token, number: Token) -> str:
    """Whose thing the verb changes, through its object or a preposition: "learner", "another" or "".

    "she added 20 minutes to my daily limit", "the coach raised my target by 10", "took €50 out of my
    savings": the owner of the changed thing decides, not the one who acts; "he cut 10 minutes off his
    limit" is his. The object that holds the number is the amount, not the thing ("added 20 minutes").
    """
    things = [c for c in verb.children if c.dep_ == "dobj" and number not in c.subtree]
    for prep in (c for c in verb.children if c.dep_ in {"prep", "dative"} and c.lower_ in _ONTO):
        things += [g for g in prep.children if g.dep_ == "pobj" and number not in g.subtree]
        things += [p for g in prep.children if g.dep_ == "prep" for p in g.children if p.dep_ == "pobj"]
    for thing in things:
        if owner_of(thing) == "learner":
            return "learner"
        possessor = next((c for c in thing.children if c.dep_ == "poss"), None)
        # a person's ("her limit", "Ana's target"), not a time's ("today's batch", "this week's total")
        if possessor is not None and (possessor.lower_ in THIRD | {"their"} or possessor.pos_ == "PROPN"):
            return "another" if _anothers_thing(thing) else ""
    return ""


def _anothers_thing(token: Token) -> bool:
    """True when a possessive names another's thing: "her stipend", "Lena's deck", "his limit".

    Not the learner's own ("my stipend"), a group's ("everyone's training budget": an indefinite
    pronoun), nor a thing of a thing the learner names as theirs ("our project's coverage"); a thing
    of a person of the learner's is the person's ("my manager's conference budget").
    """
    for child in token.children:
        if child.dep_ != "poss" or is_learner(child):
            continue
        if child.pos_ == "PRON" and child.lower_ not in THIRD | {"their"}:
            return False
        if any(g.dep_ == "nummod" or g.lower_ in {"a", "an", "another"} for g in child.children):
            return False  # a measure, no owner: "another four days' extension", "a week's delay"
        mine = any(g.dep_ == "poss" and is_learner(g) for g in child.children)
        # a person of the learner's owns their things ("my manager's conference budget"), a thing does not
        return not mine or person(child, possessor=True)
    return False


def _object_count(token: Token, objects: list[Token]) -> bool:
    """True when the number is (or counts) the verb's direct object: "learned 50", "gets 650 euros"."""
    return any(token == o or token in o.subtree for o in objects)


@holds_text
@lru_cache(maxsize=2048)
def anothers_values(text: str) -> bool:
    """True when every number ``text`` states is another's ("My flatmate has saved €5,000 for her car")."""
    base = without_current(text)
    owners = [number_owner(base, n.start) for n in numbers(base)]
    return bool(owners) and all(o == "another" for o in owners)


@holds_text
@lru_cache(maxsize=2048)
def change_is_anothers(text: str) -> bool:
    """True when the change ``text`` states is another's value (its first number's owner)."""
    found = numbers(text)
    return bool(found) and number_owner(text, found[0].start) == "another"


def first_number_verb(text: str) -> tuple[Token | None, int]:
    """The verb the first number of ``text`` hangs on, and that number's offset (``(None, -1)`` with none).

    The nearest verb or auxiliary above the number in the parse; the top of its clause when the
    parser hangs it on no verb ("Another 40 today!"), which callers read as no verb.
    """
    found = numbers(text)
    if not found:
        return None, -1
    start = found[0].start
    token = token_at(parse(text), start)
    while token is not None and token.pos_ not in {"VERB", "AUX"} and token.head.i != token.i:
        token = token.head
    return token, start


@holds_text
@lru_cache(maxsize=2048)
def group_size(text: str) -> bool:
    """True when the first number of ``text`` is the size of the learner's group ("we are 6 people").

    "We" as the subject of "be": a headcount of the group the learner is in, no count of the learner's work.
    """
    verb, _ = first_number_verb(without_current(text))
    if verb is None or verb.lemma_.lower() != "be":
        return False
    return any(c.dep_ == "nsubj" and c.lower_ == "we" for c in verb.children)


_TOGETHER = re.compile(
    r"\b(?:between|among(?:st)?)\s+(?:the\s+|all\s+)?(?:[\w-]+\s+)?of\s+us\b|\ball\s+of\s+us\b|\btogether\b"
    r"|\bcombined\b|\bcollectively\b|\bas\s+a\s+(?:class|group|team|club|crew|whole|choir|band|family|cohort)\b",
    re.I,
)
"""A count told as the work of several people at once ("between the five of us", "as a class", "together")."""
_TALLY = frozenset({"total", "tally", "count", "sum"})
"""Nouns of a count summed over members: a group's ("the choir's tally", "the club total")."""
_GIVES = frozenset({"give", "grant", "pay", "award", "offer", "allocate", "fund", "add", "cut", "have"})
"""Verbs by which a group gives, cuts or holds a value of the learner's ("We have 900 GPU hours combined")."""


@holds_text
@lru_cache(maxsize=2048)
def groups_count(text: str) -> bool:
    """True when the first number of ``text`` is a count a group did together, not the learner's own.

    "Our reading circle has finished 300 novels between the eight of us", "We planted 90 more as a
    team", "The choir's tally is 4,000 minutes", "our whole study group solved 300 problems": a group's
    work or a group's tally (the learner's own group, "our"/"whole", as the doer). Not
    the learner alone ("I"), nor a group that gives, cuts or holds a value ("We have 900 hours combined").
    """
    base = without_current(text)
    verb, start = first_number_verb(base)
    subject = None if verb is None else next((c for c in verb.children if c.dep_ == "nsubj"), None)
    if subject is None or subject.lower_ in {"i", "me"} or subject.idx > start:
        return False  # "Another 14 lengths, the club tally is near 3,400": the count comes before the group
    if subject.lemma_.lower() in _TALLY:
        return any(is_group(c) for c in subject.children if c.dep_ in {"compound", "poss"})
    if verb is None or verb.lemma_.lower() in _GIVES:
        return False
    # "our entire team finished 410 interviews": the learner's own group as the doer sums its members' work
    ours = is_group(subject) and any(c.lower_ in {"our", "whole", "entire"} for c in subject.children)
    return ours or bool(_TOGETHER.search(base))


def learners_step(new: str) -> bool:
    """True when the learner does the change ("I did 6 more", "learned 12 more"): its subject, or none."""
    verb, _ = first_number_verb(new)
    if verb is None or verb.pos_ not in {"VERB", "AUX"}:
        return False
    subjects = [c for c in verb.children if c.dep_ in {"nsubj", "nsubjpass"}]
    return all(is_learner(s) for s in subjects)
