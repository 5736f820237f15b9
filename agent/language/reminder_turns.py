"""Whether a sentence turns to a reminder's topic now, or only mentions it in passing.

A trigger such as "next time we do pronunciation" or "once we hit the subjunctive" is met when
the learner and the tutor now turn to the topic: the learner proposes or starts it, or asks about
it ("Let's practise pronunciation today", "Can we do covalent bonds now?", "Okay, subjunctive
time."). It is not met when the topic is another person's attribute ("My colleague's
pronunciation is so good"), sits in a clause about another person ("My teacher mentioned the
subjunctive is coming after spring break", "my dad trades derivatives"), or is said to come later
("We'll get to the subjunctive next month"). Words cannot tell these apart; the dependency parse
(``agent.language.grammar``) can, by who does what with the topic word:

- the topic word's possessor (``grammar.owner_of``), on it or on the noun it modifies: another's
  ("my colleague's pronunciation", "her pronunciation") is a passing mention;
- the topic as the subject of a clause that places it in a plan ("The passive voice is next
  month", "Docker volumes are in module 5", "X will come up after the break"; "be" without an
  adjective, or a future verb, in a sentence that does not ask) is a passing mention;
- the clauses above the topic word, nearest first: the first verb whose subject is not the topic
  itself decides. The learner or the tutor as its subject (first or second person, by the parse's
  ``Person`` feature; or none: "Let's …", "Explain …") turns to it now, unless the verb is in the
  future (a ``will`` / ``shall`` modal or "going to", and not a request to the tutor: "Will you
  explain …?"). Anyone or anything else as the subject of a verb other than "be" is another's
  clause (a passing mention); "be" only links the topic to a subject ("Today's homework is
  derivatives") and the clause above decides.

- a thing of the topic's word in an event told, in a sentence that does not ask: the subject or
  object of a verb in the past tense ("I dropped all the forks", "A branch fell on the car"), or
  the doer of a verb on another's thing ("there's a mouse chewing through my flatmate's cables"),
  is the word's other sense (heldout7: a mole in the garden used up a chemistry reminder);
- the topic word as a participle that only frames the sentence, with no subject, object or
  conjunction of its own ("Honestly speaking, I'm exhausted", "Speaking of robots, …"): a discourse
  marker, not the topic (heldout8: a speaking-section reminder fired on "Honestly speaking");
- a thing of the topic's word in an activity told in the past ("Mum had me chasing moles out of
  the garden", "I spent the weekend catching bugs", "I was feeding the python"): the object of a
  participle under a past verb, or of a past progressive, is an event told, as above;
- the topic word as what a person is ("My aunt is a decorator", "I'm a pipe fitter"): the
  complement of "be" whose subject is the learner or a person names a job, not the topic;
- a fragment the parse reads as a clause of the topic's own words ("Loop invariants next,
  please!": "Loop" the subject of "invariants") names the topic and no one who acts: it turns to
  it, as any verbless fragment does ("Fractions next?", "Onto the subjunctive then.").

A sentence that names the topic more than once turns to it when any naming does ("Her
pronunciation is great, so let's practise pronunciation today"). Only the sentence's parse is
read; similarity (``agent.language.trigger_sense.sense``) still decides whether the word is meant in
the trigger's sense.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import TYPE_CHECKING

from agent.clock import system_clock
from agent.language.current_values import THIRD_PERSON
from agent.language.grammar import holds_text, is_learner, owner_of, parse, subject_of
from agent.language.people import person
from agent.language.reminder_times import phrase_due, split_time
from agent.language.topic_words import word_lemmas

if TYPE_CHECKING:
    from spacy.tokens import Token

# a topic named before a colon or a dash ("Right, on to hash maps: how does lookup work?") heads a
# fragment of its own; parsed with the question after it, it hangs under the question's verb
_PARTS = re.compile(r"\s*[:;\u2013\u2014]\s*|\s+-\s+")
MEMO = 4096
"""Sentences read per process: every pending reminder asks of every turn; the parse's memo is small."""
_SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj"})
"""A turn's subjects: "There is a quiz on X" has none (``expl`` is no one who turns to X)."""
_MODIFIER_DEPS = frozenset({"compound", "amod", "nmod"})
_FUTURE_MODALS = frozenset({"will", "shall"})


def _second_person(token: Token) -> bool:
    return "2" in token.morph.get("Person") or token.lower_ == "u"


def _future(verb: Token) -> bool:
    """A ``will`` / ``shall`` modal on the verb, or "be going to <verb>" above it."""
    modal = any(c.tag_ == "MD" and c.lemma_.lower() in _FUTURE_MODALS for c in verb.children)
    going = verb.lemma_ == "go" and verb.tag_ == "VBG" and any(c.dep_ == "xcomp" for c in verb.children)
    return modal or going


def _shall(verb: Token) -> bool:
    """A "shall" modal on the verb: "Shall we …?" proposes the topic now."""
    return any(c.tag_ == "MD" and c.lemma_.lower() == "shall" for c in verb.children)


def _placed(verb: Token, asks: bool) -> bool:
    """The topic, as the subject, is placed in a plan: "X is next month", "X is in chapter 6".

    "be" with no adjective ("X is hard" speaks of the learner's work on it now), or any verb in
    the future ("X will come up after the break"); a question ("X is next, right?") is not.
    """
    if asks:
        return False
    if _future(verb):
        return True
    return verb.lemma_ == "be" and not any(c.dep_ in {"acomp", "neg"} for c in verb.children)


def _others_thing(token: Token, topic_lemmas: frozenset[str] = frozenset()) -> bool:
    """The topic word (or the noun it modifies) has a possessor other than the learner.

    A possessor that is a topic word is the topic's own name ("Bayes' theorem", "Newton's laws").
    """
    node = token
    while True:
        owner = owner_of(node)
        if owner and owner != "learner" and not any(topic_lemmas & word_lemmas(w) for w in owner.split()):
            return True
        if node.dep_ not in _MODIFIER_DEPS or node.head.i == node.i:
            return False
        node = node.head


_FRAME_DEPS = frozenset({"advmod", "prep", "punct"})


def _discourse_participle(token: Token) -> bool:
    """The topic word is a participle that frames the sentence: "Honestly speaking, …", "Speaking of X, …".

    An adverbial participle with nothing of its own but a manner adverb or a preposition: no
    subject, object, auxiliary or "when" ("When speaking, I freeze" is about speaking).
    """
    if token.tag_ != "VBG" or token.dep_ != "advcl":
        return False
    return all(c.dep_ in _FRAME_DEPS and c.tag_ != "WRB" for c in token.children)


def _past_activity(verb: Token) -> bool:
    """A participle told in the past: "was chasing", "had me chasing", "spent the weekend catching"."""
    if verb.tag_ != "VBG":
        return False
    if any(c.dep_ == "aux" and c.tag_ == "VBD" for c in verb.children):
        return True
    return verb.dep_ in {"ccomp", "xcomp"} and verb.head.tag_ == "VBD"


def _told_event(token: Token, asks: bool) -> bool:
    """The topic takes part in an event told, not studied: the other sense of its word.

    "I dropped all the forks", "A mole dug up the lawn": the subject or object of a verb in the
    past tense, in a sentence that does not ask; "there's a mole digging up my dad's lawn": the
    doer of a verb acting on another's thing; "Bugs are eating my tomato plants": the subject of a
    present progressive acting on the learner's thing (or on a thing in it: "holes in my jumpers"),
    happening now. A topic turned to is
    proposed, asked about or worked on now. Measured (2026-11-30, session 48): the progressive
    doer silences 13 of 13 of my own other-sense phrasings and 2 of 10 complaints about the topic
    ("Closures are breaking my code, help"; tests/unit/language/test_reminder_progressive_doers.py);
    pooled reminder replay one fire more and one false fire less, nothing else moved;
    ``reminders_progressive_doers.json`` 5/10 -> 10/10 fires once, its frozen twin 1/10 -> 10/10.
    """
    if asks:
        return False
    if token.dep_ in {"nsubj", "nsubjpass", "dobj"} and token.head.tag_ == "VBD":
        return True
    if token.dep_ in {"nsubj", "dobj"} and _past_activity(token.head):
        return True  # "the decorator was here finishing the paint": the doer of a past progressive
    doing = [token.head] if token.dep_ == "nsubj" else []
    doing += [c for c in token.children if c.dep_ in {"acl", "relcl"} and c.pos_ == "VERB"]
    for verb in doing:
        things = [c for c in verb.children if c.dep_ == "dobj"]
        things += [g for c in verb.children if c.dep_ == "prep" for g in c.children if g.dep_ == "pobj"]
        if any(owner_of(t) not in {"", "learner"} for t in things):
            return True
        if verb.i == token.head.i and _progressive(verb) and any(_learners_in(t) for t in things):
            return True  # "some moles are digging up our lawn": at work on the learner's things now
    return False


def _learners_in(thing: Token) -> bool:
    """``thing`` or a noun under it is the learner's ("holes in my jumpers", "every corner of my room")."""
    return any(owner_of(t) == "learner" for t in thing.subtree if t.pos_ in {"NOUN", "PROPN"})


def _progressive(verb: Token) -> bool:
    """A verb in the present progressive ("are painting"): something happening, not studied."""
    return verb.tag_ == "VBG" and any(c.dep_ == "aux" and c.lemma_ == "be" for c in verb.children)


def _says_who(token: Token) -> bool:
    """The topic word says what a person is: "My aunt is a decorator", "I'm a pipe fitter".

    The complement of "be" whose subject is the learner or a person (``people.person``) names a
    job or a kind of person, not a lesson's topic ("Today's topic is decorators" has no person).
    """
    node = token
    while node.dep_ in _MODIFIER_DEPS and node.head.i != node.i:
        node = node.head
    if node.dep_ != "attr" or node.head.lemma_ != "be":
        return False
    subject = subject_of(node.head, deps=_SUBJECT_DEPS)
    return subject is not None and (is_learner(subject) or person(subject))


def _passing(
    token: Token, topic_lemmas: frozenset[str] = frozenset(), own: bool = False, proper: bool = False
) -> bool:
    """True when this naming of the topic is a passing mention (see the module doc).

    ``proper``: the trigger's word is a proper name and is said as one ("when I mention Rauf":
    "Rauf called me today"). A name has no other sense, so an event told of it is no other
    sense (``_told_event``): it is how a person comes up. So is the learner's own thing said as
    theirs (``own``, "when I mention my cello": "my cello isn't holding its tuning");
    "a recorded concert" is still another's event, not "my concert".
    """
    asks = token.doc[-1].text == "?"
    mine = proper or (own and owner_of(token) == "learner")
    if _others_thing(token, topic_lemmas) or (not mine and _told_event(token, asks)):
        return True
    if _discourse_participle(token) or _says_who(token):
        return True
    topic = {t.i for t in token.subtree} | {token.i}
    # the topic word may be the verb itself ("I rebased my branch"): its own subject counts
    chain = [token] if token.pos_ in {"VERB", "AUX"} else []
    node = token
    while node.head.i != node.i and not (node.dep_ == "conj" and node.pos_ in {"VERB", "AUX"}):
        # a verb's conjunct is a clause of its own ("X is broken and my cello isn't holding"):
        # the clause it is joined to does not govern it
        node = node.head
        chain.append(node)
    for node in chain:
        if node.pos_ not in {"VERB", "AUX"}:
            continue
        subject = subject_of(node, deps=_SUBJECT_DEPS)
        if (
            node is not token
            and subject is not None
            and (subject.i in topic or token.i in {t.i for t in subject.subtree})
        ):
            if _placed(node, asks) and not own:
                # "The passive voice is next month" places a lesson; for a trigger on the learner's
                # own thing ("when I mention my interview"), "My interview is next week" or "the
                # interview is on the 3rd" brings it up (another's, "her interview", is read above)
                return True
            continue  # the topic as the subject ("X is hard"): the clause above decides
        if (
            subject is None
            or topic_lemmas & word_lemmas(subject.text)
            or (proper and subject.lower_ in THIRD_PERSON)
        ):
            # "Priyanka called me, she sounded happy": a name's "she" after it is the name itself;
            # an imperative or "let's": the clause above decides; a subject that is a topic word
            # is the topic read as a clause ("Pivot tables today please!": "Pivot" the subject
            # of "tables"), a fragment that names it and no one who acts
            continue
        if is_learner(subject) or _second_person(subject):
            # "Will you explain …?" asks the tutor and "Shall we do scales now?" proposes: both now
            return _future(node) and not (asks and (_second_person(subject) or _shall(node)))
        if node.lemma_ == "be":
            continue  # "Today's homework is derivatives": a link, the clause above decides
        if _what_a_text_says(node, token, subject):
            continue  # "the docs say async functions return one": the learner reads it
        # another's clause, unless the learner asks about it ("what does it mean to normalise …?")
        return not asks
    return False


def _what_a_text_says(verb: Token, token: Token, subject: Token) -> bool:
    """The topic is in the clause a thing, not a person, says: "the docs say async functions return one".

    A text the learner reads (the docs, the book, an error) reports the topic in a clause of its
    own (``ccomp``); a person who says it ("my teacher said the subjunctive is coming") tells of it
    in passing, and stays another's clause. Read as another's, the learner quoting the docs of the
    topic they ask about never met the trigger (heldout18).
    """
    if person(subject) or subject.pos_ == "PRON":
        return False
    # a finite clause: "Exams make me tense" holds a small clause ("me tense"), no report
    said = [c for c in verb.children if c.dep_ == "ccomp" and c.tag_ in {"VBZ", "VBP", "VBD"}]
    return any(token.i in {t.i for t in c.subtree} for c in said)


def turns_to(sentence: str, topic_words: list[str], *, own: bool = False) -> bool:
    """True when ``sentence`` turns to the topic now (see ``_turns_to``).

    ``own``: the trigger is the learner's own thing ("when I mention my viva"), which the learner
    brings up by telling when it is ("My viva is in June"), not a lesson placed in a plan.
    """
    return _turns_to(sentence, tuple(topic_words), own)


@holds_text
@lru_cache(maxsize=MEMO)
def _turns_to(sentence: str, topic_words: tuple[str, ...], own: bool = False) -> bool:
    """True when ``sentence`` turns to the topic now: some naming of its last topic word is not passing.

    ``topic_words`` are the trigger's topic words (``agent.language.trigger_sense.head_words``); the
    last one is the head of the topic ("bonds" of "covalent bonds"). A sentence that does not name
    it (in any form, ``word_lemmas``) is not read and turns to it.
    """
    if not topic_words:
        return True
    wanted = word_lemmas(topic_words[-1])
    others = frozenset().union(*(word_lemmas(w) for w in topic_words[:-1]))
    namings = [
        t
        for part in _PARTS.split(sentence)
        if part.strip()
        for t in parse(part.strip())
        if t.is_alpha and wanted & word_lemmas(t.text)
    ]
    # a topic written in lower case, said as someone's name ("my classmate Ruby" for "ruby"): another sense
    named = topic_words[-1].islower()
    return not namings or any(
        not (named and _a_name(t)) and not _passing(t, others, own, proper=_proper(t, topic_words[-1]))
        for t in namings
    )


def _proper(token: Token, word: str) -> bool:
    """``token`` says the trigger's capitalised ``word`` as the learner wrote it: a proper name.

    The case of the word, not its tag: the small tagger reads a rare name opening a sentence as a
    noun ("Mateus moved into …"), and a learner who capitalised the trigger mid-sentence named it.
    """
    return word[:1].isupper() and token.text == word


def _a_name(token: Token) -> bool:
    """``token`` is a capitalised proper name of a person ("my friend Kana from the dorm")."""
    return token.pos_ == "PROPN" and token.is_title and person(token)


def said_for_later(sentence: str, clause: str, own: bool = False) -> bool:
    """The clause that names the topic ends on a day to come, in a sentence that does not ask.

    "my night lectures at the college begin next week", "we'll see loops on Friday": the
    topic is placed in the days ahead (a plan told in passing), not turned to now; the parse
    alone misses it when the verb reads as a noun ("start next week"). A question ("Can we do
    loops tomorrow?") still turns to it. Relative phrases only need a clock to say "later".
    A trigger on the learner's own thing (``own``: "when I mention my recital") is brought up by
    telling its date ("my recital is in two weeks", "the recital is on the 3rd"), not placed in a
    course.
    """
    if sentence.rstrip().endswith("?") or own or _told_past(clause):
        return False
    now = system_clock()
    when = split_time(clause, now)[1]
    due = phrase_due(when, now) if when else None
    return due is not None and due.date() > now.date()


def _told_past(clause: str) -> bool:
    """The clause's main verb is in the past tense: its day is one gone by ("helped me on Sunday")."""
    roots = [t for t in parse(clause) if t.dep_ == "ROOT"]
    return bool(roots) and all(t.tag_ == "VBD" for t in roots)
