"""Does a learner's turn name a reminder's trigger, in the sense the learner gave it.

**Mentions** (``agent.language.trigger_mentions``): does a turn name a trigger's words, whole
words by light stem, a code term in capitals only as code.

**Sense** (``names_trigger``, what ``reminder_rules.trigger_matches`` asks): a code name
("GROUP BY", "functools.wraps", "useEffect") fires on its mention alone. Any other keyword fires
when one sentence of the turn names every topic word of the trigger in its order (``head_words``:
"borrowing" of "borrowing in Rust", in any form by ``word_lemmas`` (``agent.language.topic_words``:
"merge" / "merges" / "merging", "memoization" / "memoize");
"pandas: what is a Series" names "pandas Series") AND reads like the trigger as the learner said
it (a topic word rarer than ``RARE_ZIPF`` has one sense and needs no more: "rebasing" is named by
"How do I rebase my feature branch?"): MiniLM cosine with the keyword ("pointers in C", "merges
in pandas") at least
``SENSE_THRESHOLD``, for the sentence or for the clause (cut at ":", ",", ";", "?", "so", "and",
"but") that names the last topic word, so a question after the topic does not dilute it ("Let's do
the threading module today: how do I start two threads?" 0.41 as a whole). "Can you point me
to a good C book?" (0.41 to "pointers") or "our teams are merging" (0.31 to "merges in pandas")
stay silent, so they no longer use the reminder up before the topic's turn ("Explain pointers to me.", 0.85).
The clause speaks for the sentence only when it names every topic word and does not frame the
sentence (``_own_clause``): "Open the window and call a function" does not read "window functions"
by its last clause, and a phrase that opens the sentence on its verb ("With a few exceptions, I
study every evening", "At the end of the day, …") is an idiom or a discourse frame, read only as
part of the whole sentence (heldout8: the word in another sense used a reminder up a session early).

**In other words** (``_names_by_meaning``): a turn that holds none of the topic's words may name it
by a synonym ("thesis" for "dissertation"), the term in the language learnt ("Genitiv"), a short
form ("ML", "mol"): a short phrase of the turn near the topic by MiniLM, or a word that is a form
of a topic word by its letters (``agent.language.topic_words.is_cognate``, ``is_initialism``);
the initials a keyword is written in, spelled out ("principal component analysis" for "PCA",
``topic_words.spells_initials``); the topic with another head word ("hash maps" for "hash
tables", ``topic_words.other_head``), while a modifier alone or among other words ("passive in meetings"
for "passive voice") does not name it.

**Described** (``agent.language.described_triggers``): a person of the learner's described, not
named by the trigger's role ("the man who rents me my room" for "my landlord"); a sentence with no
word of the trigger that reads like all of it. A kind of the topic written as one word with it
("cycloalkanes" for "alkanes", ``topic_words.is_kind_of``) names it as its own word does.

**The learner's own thing** ("when I mention my viva": the keyword keeps "my"): told with its date
("My viva is in June") it is brought up, not a lesson placed in a plan (``reminder_turns``).

**Turning to it** (``agent.language.reminder_turns.turns_to``): a sentence that names the topic only
in passing (another's attribute, a clause about another person, said to come later: "My colleague's
pronunciation is so good", "My teacher mentioned the subjunctive is coming after spring break") does
not fire, whatever its similarity; the dependency parse says who does what with the topic word.

Similarity alone does not decide (measured 2026-11-28: a turn about a neighbour, "subqueries" /
query 0.73, scores like a turn about the trigger), so it only vetoes a word match. The threshold
is chosen by leave-one-out over ``bench/cognitive/sets/reminders_sense.json`` (``bench/reminder_knobs.py``).
What was measured and not kept is in ``docs/decisions/index.md`` ("Reminder triggers").
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from agent.language.described_triggers import names_described, names_role
from agent.language.encoder import encode, encode_kept
from agent.language.grammar import parse
from agent.language.reminder_turns import said_for_later, turns_to
from agent.language.topic_words import (
    is_cognate,
    is_initialism,
    is_kind_of,
    other_head,
    spelled_heads,
    word_lemmas,
    zipf,
)
from agent.language.trigger_mentions import is_code_name, mentions, names_person
from agent.text import FUNCTION_WORDS

if TYPE_CHECKING:
    from spacy.tokens import Doc

# ----- does a turn name a trigger in its sense -----

_CONTEXT_CUT = re.compile(r"\s+(?:in|of|for|on|with|from|using|inside)\s+", re.I)
_BY = re.compile(r"\s+by\s+", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# a learner's turn often names the topic in one clause and asks in the next ("let's get to decorators:
# what does the @ symbol do?"); the clause that names it is compared too, so the question does not
# dilute the similarity
_CLAUSE_CUT = re.compile(r"\s*[:;,()\u2014]\s*|\s+-\s+|\?\s*|\s+(?=(?:so|and|but|because)\b)", re.I)
SENSE_THRESHOLD = 0.46
"""Least MiniLM cosine between the turn (or its naming clause) and the trigger as the learner said it.
Chosen 0.46 with the discourse-participle and past-activity vetoes (``reminder_turns``), the
framing-phrase and whole-topic reading of the naming clause (``_own_clause``) and the span of
lessons left out of a keyword (``reminders``), by leave-one-out over all 21 reminder sets then
kept (``bench/reminder_knobs.py``; 2026-11-29, session 43): every fold picks 0.46 (rarity
1.5-2.5, 2.0 kept), 319/336 fires once, 11/1,664 false (the code before at 0.53: 311/336,
12/1,664). At 0.46 reminders_sense_frozen loses one check ("Open the window and call a function
from the console" names "window functions" in two phrases, 0.52); traffic 48/14,606 pairs (0.3 %),
every one a question about a trigger's own topic ("What is recursion?"). The earlier choices
(0.53 over six, nine and thirteen sets, sessions 40-42) are in the history of this file."""


HEAD_THRESHOLD = 0.52
"""Least MiniLM cosine with the whole trigger for a turn that names only its head word
(``_names_by_head``). Chosen by leave-one-out over all 24 reminder sets (every
``bench/cognitive/sets/reminders_*.json`` and heldout3..9; 2026-11-29, session 44, grid 0.40-0.80
and off, ``SENSE_THRESHOLD`` and ``RARE_ZIPF`` as they are): folds pick 0.48 or 0.52, best interval
0.52; leave-one-out 346/374 fires once, 11/1,836 false; at 0.52 on all 347/374, 10/1,836 (off:
334/374, 10/1,836). At 0.48 and below "the decorator was here finishing the paint" (0.51 for
"Python decorators") fires a session early."""


RARE_ZIPF = 2.0
"""A topic word rarer than this (``wordfreq`` Zipf frequency, English) has one sense in a learner's
turn ("rebase" 1.8, "lambdas" 1.7, "backpropagation" 1.6), so a trigger that holds one fires when a
turn names its topic words, without the similarity veto: MiniLM reads "How do I rebase my feature
branch onto main?" at 0.40 from "rebasing". Words with an everyday sense are commoner ("callbacks"
2.4, "decorators" 2.6, "modes" 4.0) and keep the veto. Chosen by leave-one-out with
``SENSE_THRESHOLD`` (``bench/reminder_knobs.py``)."""


def is_rare_topic(keyword: str, *, rare: float | None = None) -> bool:
    """True when a topic word of ``keyword`` is rarer than ``rare`` (default ``RARE_ZIPF``)."""
    cut = RARE_ZIPF if rare is None else rare
    return any(min(zipf(w), *(zipf(x) for x in word_lemmas(w))) < cut for w in head_words(keyword))


def head_words(keyword: str) -> list[str]:
    """The topic words of a trigger ("borrowing in Rust" -> ["borrowing"]), without its context.

    A topic of a means ("integration by parts", "proof by induction") is named by the means: it
    tells the topic from its neighbours ("integration by substitution"), as "in Rust" is the field.
    """
    head = _CONTEXT_CUT.split(_BY.split(keyword, maxsplit=1)[-1], maxsplit=1)[0]
    # function words only: "cases" is a chat word ("in some cases") but the topic of "German cases"
    words = [w for w in re.findall(r"[^\W_]+", head) if w.lower() not in FUNCTION_WORDS and len(w) > 1]
    return words or [w for w in re.findall(r"[^\W_]+", keyword) if w.lower() not in FUNCTION_WORDS]


def naming_sentence(message: str, keyword: str) -> str | None:
    """The sentence of ``message`` that names the topic words of ``keyword`` in their order (any form).

    Every word, in its order, not always side by side ("Let's begin with pandas: what is a
    Series?" names "pandas Series"): "Inner joins first." does not name "outer joins", "Let's do
    French numbers." not "French accents", "The function broke my window layout." not "window
    functions"; the context ("in Rust") may be left out.
    """
    return _naming(message, keyword)[0]


def _naming(message: str, keyword: str) -> tuple[str | None, str | None]:
    """``(sentence, clause)`` naming ``keyword``'s topic words in ``message``; the clause holds the last."""
    return next(_namings(message, keyword), (None, None))


def _namings(message: str, keyword: str) -> Iterator[tuple[str, str]]:
    """Every ``(sentence, clause)`` of ``message`` that names ``keyword``'s topic words, in order."""
    wanted = [word_lemmas(w) for w in head_words(keyword)]
    if not wanted:
        return
    for sentence in _SENTENCE_END.split(message.strip()):
        left = list(wanted)
        for clause in _CLAUSE_CUT.split(sentence):
            for word in re.findall(r"[^\W_]+", clause or ""):
                if left and left[0] & word_lemmas(word):
                    left.pop(0)
            if not left:
                yield sentence, clause or ""
                break


def sense(sentence: str, phrase: str) -> float:
    """MiniLM cosine between a turn's sentence and a trigger phrase (the phrase's vector is kept)."""
    return float(encode([sentence])[0] @ encode_kept([phrase])[0])


def names_trigger(message: str, keyword: str, *, threshold: float | None = None) -> bool:
    """True when ``message`` names ``keyword`` in the sense the learner gave it.

    A code name fires on its whole-word mention (``mentions``). Any other keyword fires when a
    sentence names one of its topic words (``head_words``, by ``word_lemmas``) AND that sentence
    reads like the trigger as the learner said it ("pointers in C"): MiniLM cosine of at least
    ``threshold`` (default ``SENSE_THRESHOLD``), so "Any pointers for staying focused?" or "our
    teams are merging" stay silent.
    Only a turn that names a topic word is embedded (the turn's vector is memoised by the encoder).
    """
    if is_code_name(keyword):
        return mentions(message, keyword) or _spelled_out(message, keyword)
    least = SENSE_THRESHOLD if threshold is None else threshold
    topic = head_words(keyword)
    own = keyword.lower().startswith("my ")  # "when I mention my viva": the learner's own thing
    for sentence, clause in _namings(message, keyword):
        # a passing mention ("my colleague's pronunciation", "my teacher said the subjunctive is
        # coming") names the topic but does not turn to it: the reminder waits for the turn that does
        later = said_for_later(sentence, clause, own)
        if later or not turns_to(sentence, topic, own=own):
            continue
        if is_rare_topic(keyword) or names_person(sentence, keyword):
            return True
        if sense(sentence, keyword) >= least or (
            _own_clause(sentence, clause, keyword) and sense(clause, keyword) >= least
        ):
            return True
    return (
        _names_by_head(message, keyword, topic)
        or _names_by_object(message, keyword, topic)
        or _names_by_meaning(message, keyword, topic)
        or names_role(message, keyword)
        or names_described(message, keyword, topic)
    )


MEANING_THRESHOLD = 0.7
"""Least MiniLM cosine between a short phrase of the turn and the topic for a turn that names the
topic in other words (``_names_by_meaning``). Chosen with ``topic_words.COGNATE_DICE`` and
``COGNATE_ZIPF`` by leave-one-out over all 29 reminder sets (every ``reminders_*.json``,
heldout3..10, language_dev/heldout, cognitive_dev; ``bench/reminder_meaning_knobs.py``, 2026-11-29,
session 45): folds pick 0.68-0.72, best interval 0.70-0.72 (dice 0.5-0.6, Zipf 3.5-4.0);
leave-one-out 59 errors, 56 at (0.70, 0.6, 3.5) on all. Neighbours stay below: "simultaneous
equations" / "quadratic equations" 0.64, "accent" / "pronunciation" 0.66; "indefinite integrals"
/ "antiderivatives" (0.70) is just under."""


def _names_by_meaning(message: str, keyword: str, topic: list[str]) -> bool:
    """The turn names the topic in other words: a synonym, a term of the language learnt, a short form.

    "indefinite integrals" for "antiderivatives", "Genitiv" for "genitive case", "mol" for
    "moles", "ML" for "machine learning": a word that is a foreign or shortened form of a topic
    word (``topic_words.is_cognate``) or the topic's initials (``topic_words.is_initialism``), or
    a short phrase of the turn (``_phrases``) that reads like the topic (MiniLM cosine at least
    ``MEANING_THRESHOLD``): the phrase, not the whole turn, whose other words dilute it. The turn
    must turn to that word (``reminder_turns.turns_to``), so a passing mention stays silent as it
    does for the topic's own words. Only read when the turn does not hold the topic's head word
    (a modifier alone is read only in ``topic_words.other_head``'s form): the head is read in its sense
    above ("the resistance from my parents" is no lesson on "electrical resistance", however
    near the phrase). A phrase that holds a word of the
    trigger's context is near it by that word ("SQL query" / "joins in SQL") and is not read;
    initials that modify a name name that thing ("VS Code" is no "vector spaces").
    """
    head = word_lemmas(topic[-1]) if topic else frozenset()
    if any(head & word_lemmas(w) for w in re.findall(r"[^\W_]+", message)):
        return False
    own = frozenset().union(*(word_lemmas(w) for w in topic))
    keyword_words = [w for w in re.findall(r"[^\W_]+", keyword) if w.lower() not in FUNCTION_WORDS]
    context = frozenset().union(*(word_lemmas(w) for w in keyword_words)) - own
    for sentence in _SENTENCE_END.split(message.strip()):
        doc = parse(sentence)
        forms = [t.text for t in doc if any(is_cognate(t.text, w) for w in topic)]
        forms += [t.text for t in doc if t.dep_ != "compound" and is_initialism(t.text, keyword)]
        forms += spelled_heads(doc, keyword)
        if any(turns_to(sentence, [w]) for w in forms):
            return True
        # a kind of the topic by its compound ("comonads" for "monads"), read in its sense as its word
        kinds = [
            t.text for t in doc if topic and is_kind_of(t.text, topic[-1]) and turns_to(sentence, [t.text])
        ]
        if kinds and (is_rare_topic(keyword) or sense(sentence, keyword) >= SENSE_THRESHOLD):
            return True
        phrases = [
            (p, w)
            for p, w in _phrases(doc)
            if not any(context & word_lemmas(x) for x in p.split()) and other_head(p.split(), topic)
        ]
        near = encode_kept([p for p, _ in phrases]) @ encode_kept([keyword])[0] if phrases else []
        for (_, word), cosine in zip(phrases, near, strict=True):
            if cosine >= MEANING_THRESHOLD and turns_to(sentence, [word]):
                return True
    return False


def _spelled_out(message: str, keyword: str) -> bool:
    """A turn that spells out the initials the keyword is ("principal component analysis" for "PCA")."""
    sentences = _SENTENCE_END.split(message.strip())
    return any(turns_to(s, [w]) for s in sentences for w in spelled_heads(parse(s), keyword))


_CONTENT = frozenset({"NOUN", "PROPN", "ADJ", "VERB", "X"})
WINDOW = 3
"""Longest run of words compared with a topic ("linear algebra", "indefinite integrals")."""


def _phrases(doc: Doc) -> list[tuple[str, str]]:
    """``(phrase, last word)`` for each run of up to ``WINDOW`` words that opens and ends on a content word.

    Runs, not only the parse's noun chunks: the small parser reads "Can we do regex today?" with
    "regex" as a verb, and "Let's do linear algebra now" with no chunk "linear algebra".
    """
    words = [t for t in doc if not t.is_punct and not t.is_space]
    out: dict[str, str] = {}
    for i, first in enumerate(words):
        if first.pos_ not in _CONTENT or first.is_stop:
            continue
        for last in words[i : i + WINDOW]:
            if last.i - first.i >= WINDOW:
                break
            if last.pos_ in _CONTENT and not last.is_stop:
                out.setdefault(doc[first.i : last.i + 1].text, last.text)
    return list(out.items())


def _names_by_head(message: str, keyword: str, topic: list[str]) -> bool:
    """The turn names the topic's head word alone ("Can we do decorators today?" for "Python decorators").

    A learner drops the name of the field a topic belongs to once it is the lesson's ("decorators"
    for "Python decorators", "the cycle" for "Krebs cycle"): a modifier the learner wrote as a
    name (capitalised: a language, a people, a person, a product). A lower-case modifier tells
    the topic from its neighbours ("minor scales" / "major scales", "ionic bonds" / "covalent
    bonds") and must be named. The head word (the last topic word) in a turn that reads like the
    whole trigger (MiniLM cosine at least ``HEAD_THRESHOLD``; no rarity shortcut) then names it.
    Only read when no sentence names every topic word.

    The learner's own thing ("my Madrid trip", "my Oslo interview") is named by its name alone
    too ("I booked the flights to Madrid"): the learner has one such thing, where a field's
    name ("Python") is broader than any of its topics. Measured with ``NAME_THRESHOLD``.
    """
    if len(topic) < 2 or not all(w[:1].isupper() for w in topic[:-1]):
        return False
    own = keyword.lower().startswith("my ")
    parts = [(topic[-1], HEAD_THRESHOLD, False)]
    if own:
        parts.append((" ".join(topic[:-1]), NAME_THRESHOLD, True))
    for part, least, name in parts:
        for sentence, clause in _namings(message, part):
            if not turns_to(sentence, [part.split()[-1]], own=name) or _narrowed_otherwise(sentence, topic):
                continue
            if sense(sentence, keyword) >= least or (
                clause != sentence and not _frames(sentence, clause) and sense(clause, keyword) >= least
            ):
                return True
    return False


NAME_THRESHOLD = 0.56
"""Least MiniLM cosine with the whole trigger for a turn that names only the name of the learner's
own thing (``_names_by_head``: "I booked the flights to Madrid" for "my Madrid trip", 0.77).
Chosen by leave-one-out over ``reminders_own_things.json`` and heldout18's R
scenarios (grid 0.40-0.80): best interval 0.54-0.60 (8 errors, of which 6 are no name's), folds
pick 0.50-0.58; the name in another sense said by the learner reads up to 0.53 ("Can you tell me
about FC Porto's history?"), the learner's own thing down to 0.52 ("the uni in Zurich accepted me")."""


def _names_by_object(message: str, keyword: str, topic: list[str]) -> bool:
    """The turn names what an activity topic acts on ("errors confuse me" for "error handling").

    A topic whose head is an activity (a verb's "-ing" form: "testing", "handling", "matching")
    is named by its object alone, in any form, as the head of ``_names_by_head`` is: in a turn
    that reads like the whole trigger, so "my hypothesis is that my cat hates Mondays" (0.29)
    stays silent. No new knob: of the two kept, ``SENSE_THRESHOLD`` (0.46) beat ``HEAD_THRESHOLD``
    (0.52) on my own 14 phrasings (tests/unit/language/test_reminder_activity_topics.py: 14 vs 13
    right; object turns 0.50-0.70, other senses <= 0.39) and on the pooled replay (485 vs 484
    fires once, 19 false fires both; 2026-11-30, session 47).
    """
    if len(topic) != 2 or not topic[1].lower().endswith("ing"):
        return False
    if not word_lemmas(topic[1]) - {topic[1].lower()}:
        return False  # "string", "spring": no verb under the word, no activity
    thing = topic[0]
    for sentence, clause in _namings(message, thing):
        if not turns_to(sentence, [thing]):
            continue
        if sense(sentence, keyword) >= SENSE_THRESHOLD or (
            clause != sentence and not _frames(sentence, clause) and sense(clause, keyword) >= SENSE_THRESHOLD
        ):
            return True
    return False


def _own_clause(sentence: str, clause: str, keyword: str) -> bool:
    """The naming clause may speak for the sentence: it names the whole topic and does not frame it.

    A clause that holds only the last topic word reads another thing ("Open the window and call a
    function": "call a function" is not "window functions"); a phrase that opens the sentence and
    hangs on its verb ("With a few exceptions, I study every evening", "Honestly speaking, …")
    frames what follows, so only the whole sentence says whether it is about the topic.
    """
    return _names_all(clause, keyword) and not _frames(sentence, clause)


def _narrowed_otherwise(sentence: str, topic: list[str]) -> bool:
    """Every naming of the head word carries a modifier of its own that is no topic word.

    "the Latin cases" or "a timing decorator" name another kind of the head's thing than "German
    cases" or "Python decorators"; "the cases" or "decorators" alone may be the trigger's.
    """
    wanted, known = word_lemmas(topic[-1]), frozenset().union(*(word_lemmas(w) for w in topic))
    namings = [t for t in parse(sentence) if t.is_alpha and wanted & word_lemmas(t.text)]
    return bool(namings) and all(
        any(c.dep_ in {"amod", "compound"} and not known & word_lemmas(c.text) for c in t.children)
        for t in namings
    )


def _frames(sentence: str, clause: str) -> bool:
    """``clause`` opens ``sentence`` as a verbless phrase on its verb ("With a few exceptions, …")."""
    if clause == sentence or not sentence.startswith(clause):
        return False
    doc = parse(sentence)
    span = doc.char_span(0, len(clause), alignment_mode="expand")
    if span is None:
        return False
    heads = [t for t in span if t.head.i == t.i or not span.start <= t.head.i < span.end]
    # a verbless phrase only: "Let's do window functions — how does …" opens with a clause of its own
    verbless = not any(t.pos_ in {"VERB", "AUX"} for t in span)
    return verbless and len(heads) == 1 and heads[0].dep_ == "prep"


def _names_all(clause: str, keyword: str) -> bool:
    """The clause names every topic word of ``keyword`` (and is not the whole sentence).

    A clause that holds only the last of them reads another thing: "How do I open a window and
    call a function from the console?" names "window functions" across two clauses, and its
    last clause alone ("call a function") reads like functions of any kind.
    """
    words = [word_lemmas(w) for w in re.findall(r"[^\W_]+", clause)]
    return all(any(wanted & w for w in words) for wanted in map(word_lemmas, head_words(keyword)))
