"""Who a word names: a person (a name, "she", a noun of a person), a group, or a thing (NER, the parse).

The readers of whose value a statement gives (``agent.language.whose_value``) ask these of the
parse's tokens: a proper name read as a person by a role beside it ("my study buddy Sarah"), a
"he" or "she" later, or spaCy's named entities; a noun of a person by the MiniLM classifier
``current_values.is_person`` ("sister", "colleague"), and a noun of a group of people acting as one
(an organisation, a team: ``is_group``) by one of its own, not by a list.

Whose a subject is (``anothers``) is read from these: another person ("she", "my colleague Rui",
"Ana's score", "the other team") gives their words, the learner's things, groups and the
institutions acting for them give "". ``whose_value`` reads it of each clause's subject,
``change_owner`` of the group that acts in a change.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from agent.language.about import train
from agent.language.current_exemplars import PEOPLE
from agent.language.current_values import THIRD_PERSON, is_person, probability
from agent.language.grammar import entities, owner_of

if TYPE_CHECKING:
    from sklearn.linear_model import LogisticRegression
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

    The small tagger may read the role as an adjective ("My flatmate Jonas"), and the parser may take
    the learner's role as the head of the name's clause ("My pen pal Chloé lives …": the role is the
    root): the noun just before the name that the learner owns is the role then.
    """
    role = next(
        (c for c in token.children if c.dep_ in {"compound", "appos", "amod"} and c.pos_ in {"NOUN", "ADJ"}),
        None,
    )
    before = token.doc[token.i - 1] if token.i > 0 else None
    if role is None and before is not None and before.pos_ in {"NOUN", "ADJ"}:
        role = before if any(c.dep_ == "poss" for c in before.children) else None
    return role


def _from_the_learners(token: Token) -> bool:
    """True when "from" and a group of the learner's follow the name ("Ayesha from my bootcamp").

    The parser may hang the "from" phrase on the verb after the name; it still tells who the name is.
    """
    after = token.doc[token.i + 1] if token.i + 1 < len(token.doc) else None
    if after is None or after.lower_ != "from" or after.dep_ != "prep":
        return False
    return any(owner_of(p) == "learner" for p in after.children if p.dep_ == "pobj")


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
    if any(ch.isdigit() for ch in token.text):
        return False  # a code or model ("N3", "M2", "B2"): no one's name holds a digit
    role = role_of(token)
    if role is not None and is_person(role):
        return True
    if _from_the_learners(token):
        return True  # "Yaw from my Spanish class got a B2": someone of a group of the learner's
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
    role = role_of(token) if bare else None
    told = followed_by_third_person(token) or _from_the_learners(token)
    return bare and (told or (role is not None and is_person(role)))


GROUPS: tuple[str, ...] = (
    "committee", "ministry", "company", "club", "college", "institute", "bank", "employer",
    "government", "board", "union", "society", "charity", "organisers", "team", "orchestra",
    "squad", "crew", "staff", "cohort", "federation", "league", "church", "academy", "library",
    "studio", "bureau", "embassy", "publisher", "sponsor", "council", "institution", "organisation",
    "corporation", "business", "nursery", "kindergarten", "state", "county", "province", "town",
    "region", "country", "village",
)  # fmt: skip
"""Head nouns of groups of people that act as one: an organisation gives, cuts or holds a value."""
NOT_GROUPS: tuple[str, ...] = (
    *PEOPLE,
    "dog", "cat", "horse", "puppy", "parrot", "hamster", "car", "bike", "laptop", "phone", "piano",
    "plant", "garden", "house", "rent", "salary", "budget", "score", "exam", "deadline", "thesis",
    "essay", "course", "weather", "price", "project", "app", "website", "deck", "streak", "book",
    "printer", "fund", "grant", "allowance", "shift", "lesson", "trip", "rabbit", "goat", "kitten",
    "lizard", "bicycle", "camera", "guitar", "sofa", "fridge", "money", "ticket", "coffee",
)  # fmt: skip
"""Head nouns of one person, an animal or a thing: each owns its own values ("the cat put on a kilo")."""
GROUP_MIN = 0.4
"""Probability at which a head noun names a group (``GROUPS`` against ``NOT_GROUPS``), chosen by
leave-one-out over them (``bench.fact_write_knobs.threshold_report(GROUPS, NOT_GROUPS)``: 124 of 129 right
at 0.4, 123 at 0.5 and 0.6); on the changes of fact_increments*.json and fact_writes_groups.json the same
from 0.3 to 0.6 (307 right, 0 wrong), one fewer at 0.7."""


@lru_cache(maxsize=1)
def _group_classifier() -> LogisticRegression:
    return train([*GROUPS, *NOT_GROUPS], ["group"] * len(GROUPS) + ["not"] * len(NOT_GROUPS))


def is_group(token: Token) -> bool:
    """Whether the common noun ``token`` names a group acting as one ("the department", "the council").

    Not a person ("my boss") nor a thing or an animal ("the cat"): a group gives, cuts or holds a value
    of the learner's; the others own the values they get.
    """
    if token.pos_ != "NOUN":
        return False  # a proper name may be a person's that NER reads as an organisation ("Dr Mensah")
    return probability(_group_classifier(), "group", [token.lemma_.lower()])[0] >= GROUP_MIN


ROLES: tuple[str, ...] = (
    "teacher", "tutor", "professor", "lecturer", "instructor", "supervisor", "advisor", "mentor",
    "coach", "trainer", "boss", "manager", "employer", "examiner", "doctor", "dentist", "therapist",
    "counsellor", "landlord", "principal", "headteacher", "dean", "editor", "recruiter", "accountant",
    "lawyer", "registrar", "conductor", "director", "invigilator",
)  # fmt: skip
"""Nouns of a person who acts on the learner's work, studies, health or money: what such a person
does to a thing already known ("My tutor moved the mock", "the boss signed the form") is the learner's."""
PEERS: tuple[str, ...] = (
    "friend", "mate", "buddy", "pal", "sister", "brother", "sibling", "cousin", "mum", "dad",
    "mother", "father", "aunt", "uncle", "grandma", "grandpa", "son", "daughter", "husband", "wife",
    "partner", "girlfriend", "boyfriend", "fiance", "roommate", "flatmate", "housemate", "classmate",
    "colleague", "coworker", "teammate", "neighbour", "niece", "nephew", "twin",
)  # fmt: skip
"""Nouns of a person with a life of their own: what they do to a definite thing is their own deed
("My brother finished the whole trilogy")."""
ROLE_MIN = 0.5
"""Probability at which a noun of a person names one who acts on the learner's things (``ROLES``
against ``PEERS``), chosen by leave-one-out over them (``bench.fact_write_knobs.threshold_report(ROLES,
PEERS)``: 65 of 65 right at 0.5, 64 at 0.3 and 0.4, 63 at 0.6; the threshold chosen without each
exemplar, 64 of 65)."""


@lru_cache(maxsize=1)
def _role_classifier() -> LogisticRegression:
    return train([*ROLES, *PEERS], ["role"] * len(ROLES) + ["peer"] * len(PEERS))


def peer(subject: Token) -> bool:
    """Whether the person ``subject`` (a noun of a person, or a name with one beside it) is a peer.

    A friend, kin or a colleague lives a life of their own; a teacher, a boss or a doctor acts on the
    learner's things (``ROLES``). A name or pronoun with no such noun is no peer: it may be either.
    """
    noun = subject if subject.pos_ == "NOUN" else role_of(subject)
    if noun is None or not is_person(noun):
        return False
    return probability(_role_classifier(), "role", [noun.lemma_.lower()])[0] < ROLE_MIN


def _words(token: Token) -> str:
    return " ".join(t.text for t in token.subtree if t.dep_ not in {"case", "punct"}).strip()


def anothers(subject: Token) -> str:
    """Whose the subject ``subject`` is when not the learner's: the other's words, "" for the learner's.

    "she", "the other team", "my sister's test" (the possessor), "my colleague Rui", "Ana's score",
    a bare person's name or noun of a person ("A classmate finished all 40"); "" for the learner's
    things and groups ("my stipend", "our team"), an institution or app ("Busuu's tips", "Finance"),
    and a thing of another person's that came to the learner ("My grandmother's upright was
    delivered").
    """
    if subject.lower_ in THIRD_PERSON:
        return subject.text
    addressed = _addressed(subject)
    if addressed is not None:
        return anothers(addressed)
    part = next((c for c in subject.children if c.dep_ == "prep" and c.lower_ == "of"), None)
    if subject.pos_ in {"NUM", "PRON"} and part is not None:
        # "One of the senior devs", "Some of my classmates": the people the part is of
        return next((anothers(p) for p in part.children if p.dep_ == "pobj"), "")
    marks = {c.lower_ for c in subject.children if c.dep_ in {"amod", "det"}}
    if subject.pos_ == "NOUN" and ({"the", "other"} <= marks or "another" in marks):
        return _words(
            subject
        )  # "the other team", "another student"; not "Another two merged", "another chapter"
    owner = owner_of(subject)
    if owner == "learner":
        return _words(subject) if person(subject) or _named_after(subject) else ""
    if owner:
        possessor = next(c for c in subject.children if c.dep_ == "poss")
        if possessor.lower_ in THIRD_PERSON:
            return owner  # "His deadline got pushed to the 28th"
        if subject.dep_ == "nsubjpass" or not person(possessor, possessor=True):
            return ""
        return owner
    if is_name(subject):
        return _words(subject) if person_name(subject) else ""
    if subject.pos_ != "NOUN" or not is_person(subject):
        return ""
    # a person with no owner named: someone ("A classmate finished all 40") or told of as he or she;
    # "Boss approved another 400", "The teacher put …" is the learner's person acting for them
    someone = any(c.dep_ == "det" and c.lower_ in {"a", "an"} for c in subject.children)
    told = someone or named(subject) or followed_by_third_person(subject)  # "Gym buddy Marco hit 120"
    return _words(subject) if told else ""


def by_name(token: Token) -> bool:
    """True when the learner names the person ``token`` ("my flatmate Aroha", "my girlfriend Marta")."""
    return named(token) or _named_after(token) or (is_name(token) and role_of(token) is not None)


def possessed(subject: Token) -> Token | None:
    """The thing of a named person the parser hung beside ``subject``: "my friend Pim's supervisor".

    The small parser reads "my friend Pim's supervisor is …" with "friend" as the subject and the
    possessed thing as its apposition, or as a second subject of the verb; the thing whose value the
    clause gives is the possessed one, and its owner is the person the learner named.
    """
    beside = [c for c in subject.children if c.dep_ == "appos"]
    beside += [t for t in subject.head.children if t.dep_ == subject.dep_ and t.i > subject.i]
    for thing in beside:
        owner = next((c for c in thing.children if c.dep_ == "poss"), None)
        if owner is not None and owner.i > subject.i and person(owner, possessor=True):
            return thing
    return None


def _named_after(subject: Token) -> bool:
    """True when a name follows the learner's noun as the same subject ("Our new hire Kwabena cleared …").

    The parser may make the role and the name two subjects of one verb; a noun the learner names
    by a proper name is someone (not a group of the learner's: "our team Falcons" is theirs).
    """
    after = subject.doc[subject.i + 1] if subject.i + 1 < len(subject.doc) else None
    if after is None or after.pos_ not in NAMES or is_group(subject):
        return False
    return after.head == subject or (after.head == subject.head and after.dep_ == subject.dep_)


def _addressed(subject: Token) -> Token | None:
    """The subject a mis-parsed address hides: "Mate, the M4 MacBook Air is faster" -> "Air".

    The small parser takes the word the learner opens with to address the tutor as the subject and
    the real subject as its apposition; an apposition is closed by a comma ("Rui, my colleague,
    finished all 40"), the real subject runs straight on to its verb.
    """
    doc = subject.doc
    if subject.i != subject.sent.start or subject.i + 1 >= len(doc) or doc[subject.i + 1].text != ",":
        return None
    appos = next((c for c in subject.children if c.dep_ == "appos"), None)
    after = None if appos is None else appos.right_edge.i + 1
    return appos if after is not None and after < len(doc) and not doc[after].is_punct else None
