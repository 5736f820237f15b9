"""A reminder's trigger met by a description of it, not by its words.

**A role described** (``names_role``): a person of the learner's named by what they do, not by the
role a reminder's trigger names.
"When I mention my landlord, remind me …" is met by "the man who rents me my room texted": the
learner describes the person (a relative clause, a phrase, or another person's kin: "the lady
who fixes my teeth", "my wife's brother") instead of naming the role. ``names_role`` reads only a
trigger on the learner's own person ("my landlord", "my dentist": the keyword keeps "my" and its
head noun names a person by ``people.person``), and only a turn that does not say the role's word
(``trigger_sense`` reads that one). A phrase of the turn names the role when:

- its head is a person (or "the one …") and it is described: a relative clause, a participle or a
  prepositional phrase hangs on it, or a person possesses it ("my wife's brother");
- the learner takes part in it ("my", "I", "me" in the phrase): "the woman I report to", so a
  stranger described ("the man who runs the café") is no one of the learner's;
- it reads like the role word alone (MiniLM cosine with "landlord", not with "my landlord", whose
  "my" makes every person of the learner's alike) at least ``ROLE_THRESHOLD``.

**A topic in other words** (``names_described``): a sentence that holds no word of the trigger,
of the topic or of its context, but reads like the whole trigger (MiniLM cosine at least
``DESCRIBED_THRESHOLD``): another form of the word that ``word_lemmas`` does not join ("a recursive
function" 0.64 from "recursion"), the words of a phrase turned round ("implicit differentiation"
for "differentiating implicitly"), a close paraphrase. A sentence that
holds one is read by the topic's own words (``trigger_sense``) or is near the trigger by that word
(a neighbour in the same field: "Spanish numbers" for "verb tenses in Spanish"), as a phrase is
in ``trigger_sense._names_by_meaning``. Most descriptions stay below it (measured over every
reminder set: a topic explained in a clause reads 0.2-0.35 from a one-word topic, a few of its
instances 0.1-0.5), no nearer than a neighbour. Not read for the learner's own thing ("my boss",
"my recital"): "my" alone brings any person or plan of the learner's near it ("My supervisor" reads
0.61 from "my mother-in-law").

Measured and not kept (2026-11-30, session 47): the role with "my" (a described kin of the
learner's reads 0.55-0.65 from "my boss"); the reminder's own task as a gloss of the topic (the
sentence against "<topic>: <task>", 0.27 for a turn that describes the person).
"""

from __future__ import annotations

import re

from agent.language.encoder import encode, encode_kept
from agent.language.grammar import is_learner, parse
from agent.language.people import person
from agent.language.topic_words import word_lemmas
from agent.text import FUNCTION_WORDS

ROLE_THRESHOLD = 0.53
"""Least MiniLM cosine between a described person of the learner's and the role's word.
Chosen with ``DESCRIBED_THRESHOLD`` by leave-one-out over every reminder set (all
``reminders_*.json`` but the frozen twin of ``reminders_glossed``, heldout3..13 R; grid 0.40-0.55
and off; 2026-11-30, session 47), adding as false checks every learner turn of every set that
describes a person of the learner's, against each role trigger of the sets: in-scenario checks
alone pick 0.45-0.50, but there kin and colleagues fire ("my partner's family" 0.51 from
"mother-in-law", "a colleague of mine" 0.48 from "supervisor", "my office mate's supervisor" 0.52
from "boss"); with them the best interval is 0.52-0.55 and its middle is kept. A described role
reads 0.55-0.71 ("the lady who fixes my teeth" 0.67); "the one in charge of my PhD" (0.46) is
left out."""

DESCRIBED_THRESHOLD = 0.60
"""Least MiniLM cosine between a sentence with no word of the trigger and the trigger. Chosen with
``ROLE_THRESHOLD`` (grid 0.55-0.65 and off): folds pick 0.55-0.58, best interval on all 0.58-0.62,
the middle kept; at 0.55 a neighbour of the topic fires a session early. Every learner sentence
of every set against every keyword trigger of the reminder sets (1.9 million pairs): 39 pass,
nearly all another form of the topic ("recursive" for "recursion")."""

_DESCRIBED = frozenset({"relcl", "acl", "prep"})
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")


def own_role(keyword: str) -> str | None:
    """The role word of a trigger on the learner's own person ("my landlord" -> "landlord"), or None."""
    if not keyword.lower().startswith("my "):
        return None
    doc = parse(f"I told {keyword}.")
    nouns = [t for t in doc if t.pos_ == "NOUN" and t.idx > len("I told my")]
    return keyword[3:].strip() if any(person(t) for t in nouns) else None


def described_people(sentence: str) -> list[str]:
    """The phrases of ``sentence`` describing a person of the learner's ("the man who rents me my room")."""
    doc = parse(sentence)
    out = []
    for token in doc:
        pro_form = token.lower_ == "one" and any(c.dep_ == "det" for c in token.children)
        if not (person(token) or pro_form):
            continue
        kids = list(token.children)
        described = any(c.dep_ in _DESCRIBED for c in kids) or any(
            c.dep_ == "poss" and person(c) for c in kids
        )
        words = list(token.subtree)
        if described and any(is_learner(w) for w in words):
            out.append(doc[words[0].i : words[-1].i + 1].text)
    return out


def _says_a_word_of(message: str, phrase: str) -> bool:
    """True when ``message`` says a content word of ``phrase`` in any form (then it is read in its sense)."""
    words = [word_lemmas(w) for w in re.findall(r"[^\W_]+", phrase) if w.lower() not in FUNCTION_WORDS]
    return any(w & word_lemmas(x) for w in words for x in re.findall(r"[^\W_]+", message))


def names_described(message: str, keyword: str, topic: list[str]) -> bool:
    """A sentence that holds no word of ``keyword`` but reads like it (see the module doc)."""
    if keyword.lower().startswith("my "):
        return False  # "my" makes any person or plan of the learner's near it: ``names_role`` reads these
    if not topic or _says_a_word_of(message, keyword):
        return False
    phrase = encode_kept([keyword])[0]
    return any(
        float(encode([s])[0] @ phrase) >= DESCRIBED_THRESHOLD for s in _SENTENCE_END.split(message.strip())
    )


def names_role(message: str, keyword: str, *, threshold: float | None = None) -> bool:
    """True when ``message`` describes the learner's person that ``keyword`` names by role."""
    role = own_role(keyword)
    if role is None or _says_a_word_of(message, role):
        return False  # no role, or the turn says its word: read in its sense by ``trigger_sense``
    phrases = [p for s in _SENTENCE_END.split(message.strip()) for p in described_people(s)]
    if not phrases:
        return False
    least = ROLE_THRESHOLD if threshold is None else threshold
    return bool(max(encode_kept(phrases) @ encode_kept([role])[0]) >= least)
