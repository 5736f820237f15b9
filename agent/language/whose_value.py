"""Does a stored statement tell the learner's current value? (the parse, ``agent.language.grammar``).

The read-time net (``agent.language.same_thing``) groups the facts that answer one question with
different values and shows the newest first, the older "was until …". A newer statement is no
newer version of the learner's value when it only *might* be one, or when it is someone else's:

- **hedged, planned or wished** (``hedged``): its verb carries a modal of possibility or wish
  ("I might do a summer course in Dresden", "I'd love to work at Spotify"), an epistemic adverb
  ("Thinking about maybe trying Pimsleur", "probably won't even reply"), a negated "will" (an
  offer declined: "won't even reply"), or a verb of intention with a clause after it ("I'm
  planning to move to Graz", "considering switching to Anki");
- **another person's** (``anothers``): the main clause's subject is another person ("My friend
  Lena has lessons with Herr Kaltenbrunner", "my flatmate gets 650", "She is using MongoDB") or
  another's thing ("Her stipend went up by 50"), and the learner is not that clause's object ("the
  teacher put me in the B2 class" and "Prof. Lindqvist has taken me on" are the learner's).

Such a statement may still be shown (the search ranks it), but it never becomes the newer version
of the learner's value, nor marks the learner's value "was until" (``not_current``). It reads the
text alone, so facts stored by any older write read the same.

Whether a possessed noun names a person ("my flatmate" vs "my stipend") is read by similarity, not
a list: a logistic regression over MiniLM vectors of "my <noun>" (``PEOPLE`` / ``THINGS``, written
for KAG; leave-one-out accuracy in ``tests/unit/language/test_whose_value.py``). Only closed
grammatical classes are named here: modal verbs, epistemic adverbs, third-person pronouns, and the
few verbs of intention that take a clause.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from agent.language.encoder import encode
from agent.language.grammar import is_learner, owner_of, parse

if TYPE_CHECKING:
    from sklearn.linear_model import LogisticRegression
    from spacy.tokens import Token

HEDGE_MODALS = frozenset({"might", "may", "could", "would", "should", "'d"})
"""Modal verbs of possibility or wish (not "will", "can", "must": "I will start at Bosch on Monday")."""
EPISTEMIC = frozenset({"maybe", "perhaps", "probably", "possibly"})
"""Adverbs that leave a statement open."""
INTENT = frozenset({"plan", "consider", "think", "hope", "want", "wish", "intend"})
"""Verbs of intention: with a clause after them ("planning to move") they tell a plan, not a value."""
THIRD = frozenset({"he", "she", "him", "her"})
"""Third-person pronouns of a person ("they" is often an institution: "They pushed the exam")."""
_SUBJECTS = frozenset({"nsubj", "nsubjpass"})
_COMPLEMENTS = frozenset({"xcomp", "ccomp", "pcomp"})
_OBJECTS = frozenset({"dobj", "dative", "iobj", "pobj", "nsubjpass"})
_CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis", "relcl", "xcomp", "acl", "csubj"})

PEOPLE = (
    "friend",
    "classmate",
    "teacher",
    "flatmate",
    "roommate",
    "sister",
    "cousin",
    "brother",
    "husband",
    "colleague",
    "boss",
    "supervisor",
    "tutor",
    "partner",
    "mum",
    "coworker",
    "neighbour",
    "girlfriend",
    "boyfriend",
    "wife",
    "dad",
    "son",
    "daughter",
    "mentor",
    "manager",
    "grandmother",
    "uncle",
    "aunt",
    "niece",
    "nephew",
    "housemate",
    "lecturer",
    "professor",
    "coach",
    "landlady",
    "teammate",
    "buddy",
    "bandmate",
    "mother",
    "father",
    "grandpa",
    "kid",
)
"""Nouns of people a learner calls "my …" (exemplars of the person class)."""
THINGS = (
    "stipend",
    "sitting",
    "streak",
    "degree",
    "thesis",
    "exam",
    "score",
    "deadline",
    "budget",
    "laptop",
    "app",
    "flat",
    "job",
    "salary",
    "rent",
    "course",
    "class",
    "team",
    "company",
    "code",
    "deck",
    "goal",
    "level",
    "submission",
    "training",
    "car",
    "phone",
    "bike",
    "visa",
    "loan",
    "plan",
    "schedule",
    "internship",
    "band",
    "grade",
    "room",
    "commute",
    "project",
    "notebook",
    "keyboard",
    "textbook",
    "address",
    "major",
    "contract",
    "shift",
)
"""Nouns of things a learner calls "my …" (exemplars of the thing class)."""


@lru_cache(maxsize=1)
def _people_reader() -> LogisticRegression:
    from sklearn.linear_model import LogisticRegression  # a slow import: only on the first read

    words = [*PEOPLE, *THINGS]
    model = LogisticRegression(C=4.0, max_iter=2000)
    model.fit(encode([f"my {w}" for w in words]), [1] * len(PEOPLE) + [0] * len(THINGS))
    return model


@lru_cache(maxsize=1024)
def is_person(noun: str) -> bool:
    """Whether "my ``noun``" names a person (similarity to the exemplars, not a list)."""
    return bool(_people_reader().predict(encode([f"my {noun.lower()}"]))[0])


def hedged(text: str) -> bool:
    """Whether ``text`` leaves its statement open: a modal of possibility, an epistemic adverb, a plan."""
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
        # verbs of intention (INTENT) are not read as a hedge: "…my major is computer science and I want
        # to be solid on recursion" states the value in one clause and a wish in another (heldout5)
    return False


def _negated(verb: Token) -> bool:
    return any(c.dep_ == "neg" for c in verb.children)


def _plans(child: Token) -> bool:
    """A clause after a verb of intention: "planning to move", "thinking about trying"."""
    if child.dep_ in _COMPLEMENTS:
        return True
    return child.dep_ == "prep" and any(g.dep_ == "pcomp" for g in child.children)


def _person(subject: Token) -> bool:
    """Whether ``subject`` names someone other than the learner, or another's thing."""
    if is_learner(subject):
        return False
    if subject.lower_ in THIRD:
        return True
    owner = owner_of(subject)
    if owner not in {"", "learner"}:
        return True  # "Her stipend", "Lena's notes": another's thing
    # "My friend Lena", "my classmate Rui": a name beside a noun ("my ACCA exam" is no name beside it)
    named = any(c.dep_ == "appos" and c.pos_ == "PROPN" for c in subject.children)
    if subject.pos_ == "PROPN":
        # a name with a title or a relation ("Dr. Okafor", "my friend Lena"), or told of as he or she
        # ("Tomás uses Anki for his vocab"); a bare name may be a firm or an app ("Finance came back")
        told_of = any(t.lower_ in THIRD or t.lower_ == "his" for t in subject.head.subtree)
        titled = any(
            c.dep_ == "compound" and (c.text.endswith(".") or is_person(c.text)) for c in subject.children
        )
        return told_of or titled or any(c.dep_ == "appos" for c in subject.children)
    return owner == "learner" and (named or is_person(subject.lemma_))


def _object(token: Token) -> bool:
    return token.dep_ in _OBJECTS or (token.dep_ == "poss" and token.head.dep_ == "dobj")


def _shared_thing(token: Token) -> bool:
    """A direct object that names a known thing ("pushed the exam", "gave the whole seminar until …").

    Another person who acts on *the* thing changes a value the learner shares; one who has, gets or
    learns a number or a name ("gets 650", "is using MongoDB", "has the 15th") tells their own.
    """
    if token.dep_ not in {"dobj", "dative"} or token.pos_ != "NOUN" or any(ch.isdigit() for ch in token.text):
        return False
    return any(c.dep_ == "det" and c.lower_ in {"the", "this", "that"} for c in token.children)


def _clauses(text: str) -> list[tuple[Token | None, list[Token]]]:
    """Each clause of ``text``: its subject and its own words (not its sub-clauses').

    A clause without a subject has the subject of the clause it hangs on ("My husband is a
    firefighter and works 24-hour shifts").
    """
    doc = parse(text)
    heads = [t for t in doc if t.dep_ in _CLAUSE_DEPS and t.pos_ in {"VERB", "AUX"}]
    words: dict[int, list[Token]] = {h.i: [] for h in heads}
    for token in doc:
        node = token
        while node.i not in words and node.head.i != node.i:
            node = node.head
        if node.i in words:
            words[node.i].append(token)
    subjects: dict[int, Token | None] = {}
    for head in sorted(heads, key=lambda h: len(list(h.ancestors))):  # a clause after the one it hangs on
        own = next((c for c in head.children if c.dep_ in _SUBJECTS), None)
        above = next((a for a in head.ancestors if a.i in words), None)
        # only a conjoined or controlled verb shares its subject ("First week at Delivery Hero went ok,
        # my onboarding buddy showed me…": the parse leaves "went" without one, it is not the buddy's)
        shares = above is not None and head.dep_ in {"conj", "xcomp"}
        subjects[head.i] = own if own is not None or not shares else subjects.get(above.i)
    return [(subjects[h.i], words[h.i]) for h in heads]


def _holds_a_value(words: list[Token]) -> bool:
    """A name or number in the clause's own words ("Prof. Lindqvist has taken me on")."""
    return any(t.pos_ == "PROPN" or t.like_num or any(ch.isdigit() for ch in t.text) for t in words)


def _names_who(words: list[Token]) -> bool:
    """A copula naming who someone is ("… is Prof. Okafor"), not what they do ("… is a firefighter")."""
    return any(t.dep_ == "attr" and t.head.lemma_ == "be" and t.pos_ == "PROPN" for t in words)


def anothers(text: str) -> bool:
    """Whether ``text`` tells another person's value (module docstring).

    Read per clause: the clauses that hold a name or number (else the first clause) are all
    someone else's: their subject is another person or another's thing, and the learner is none
    of their objects ("Dr. Okafor accepted a chair in Edinburgh, so Prof. Lindqvist has taken me
    on" holds the learner's new supervisor in its second clause).
    """
    found = [(subject, words) for subject, words in _clauses(text) if words]
    if not found:
        return False
    valued = [c for c in found if _holds_a_value(c[1])] or found[:1]
    for subject, words in valued:
        if subject is None or not _person(subject):
            return False
        inside = set(subject.subtree)
        if _names_who(words):
            return False  # "My PhD supervisor is Prof. Okafor": who the learner's person is
        if any((is_learner(t) and _object(t)) or _shared_thing(t) for t in words if t not in inside):
            return False  # "the teacher put me in the B2 class", "my supervisor moved the deadline"
    return True


def not_current(text: str) -> bool:
    """Whether ``text`` is no version of the learner's current value: hedged, planned or another's."""
    if not isinstance(text, str) or not text.strip():
        return False
    return hedged(text) or anothers(text)
