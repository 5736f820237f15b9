"""Is a stored statement a version of the learner's current value? (issue 39, the read-time net).

The read-time net (``agent.language.same_thing``) groups the facts that answer one question with
different values and shows the newest first, the older "was until …". A newer statement is no
newer version of the learner's value when it only *might* be one, or when it is someone else's:

- **hedged** (``hedged``): its verb carries a modal of possibility or wish ("I might do a summer
  course in Dresden", "I'd love to work at Spotify"), an epistemic adverb ("Thinking about maybe
  trying Pimsleur", "probably won't even reply"), or a negated "will" (an offer declined: "won't
  even reply"). Verbs of intention are not a hedge here: "…my major is computer science and I
  want to be solid on recursion" states the value in one clause and a wish in another;
- **another person's** (``agent.language.whose_value.whose``, the reader the write side asks too);
- **another group's** (``other_group``, beside the other facts read): "The marketing team got
  €6,000 for training", "The debate club got trimmed to 12" when the learner calls "our team", "our
  film club" theirs.

Such a statement may be shown, but never becomes the newer version of the learner's value, never ranks
above it in a group, nor marks it "was until" (``not_current``). It reads the text alone (any older
write reads the same); it names closed classes only: modals, epistemic adverbs.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent.language.acted_on import about_learner
from agent.language.current_values import EPISTEMIC, conditional, main_clause, maybe
from agent.language.grammar import owner_of, parse, subject_of
from agent.language.people import is_group
from agent.language.whose_value import SHARED_BY, others

HEDGE_MODALS = frozenset({"might", "may", "could", "would", "should", "'d"})
"""Modal verbs of possibility or wish (not "will", "can", "must": "I will start at Bosch on Monday")."""


def hedged(text: str) -> bool:
    """Whether ``text`` leaves its statement open: an unsure modal, an epistemic adverb, a condition."""
    if conditional(text):
        return True  # "if I ever start my own company I'm using <language>"
    for token in parse(text):
        lemma = token.lemma_.lower()
        if token.tag_ == "MD" and (
            lemma in HEDGE_MODALS
            or token.lower_ in HEDGE_MODALS
            or (lemma == "will" and any(c.dep_ == "neg" for c in token.head.children))
        ):
            return True  # "might do", "'d love to", "won't even reply"
        if token.dep_ == "advmod" and lemma in EPISTEMIC:
            return True
    return False


def learners_now(text: str) -> bool:
    """True when ``text`` may be stored as a value the learner has now: neither maybe nor another's."""
    return not (maybe(text) or others(text))


def other_group(text: str, learners: Sequence[str]) -> bool:
    """True when ``text`` gives a value to another group than the one the learner calls theirs.

    "The marketing team got €6,000 for training" beside "Our team's training budget is €4,000",
    "The debate club got trimmed to 12" beside "Our film club has 20": the subject is a group told by
    a modifier of its own ("marketing"), not the learner's, and a statement of ``learners`` owns a
    group of that head noun ("our team") without that modifier. A passive subject must be a group of
    people (``people.is_group``): a thing acted on is often the learner's named more closely.
    """
    root = main_clause(text)
    subject = None if root is None else subject_of(root, shared_by=SHARED_BY)
    if subject is None or subject.pos_ != "NOUN" or owner_of(subject):
        return False
    if subject.dep_ == "nsubjpass" and not is_group(subject):
        return False  # a thing acted on may be the learner's told closely ("The conference budget was cut")
    marks = {c.lemma_.lower() for c in subject.children if c.dep_ in {"compound", "amod"}}
    if not marks or about_learner(root):
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
    return hedged(text) or others(text)
