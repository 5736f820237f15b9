"""A procedure the learner tells as a sequence, without an introduction that names it.

``agent.language.procedures.parse_procedure`` reads a procedure introduced as one ("My steps
for X are: …", "Here is how I X: …"). Learners also just tell what they do, in order, in any
wording: "So: the night before, I feed the starter. In the morning I mix … Then I add …";
"first bump the version, then update the changelog, run tox, tag it and push with twine". This
module reads that from the dependency parse (``agent.language.grammar``), not from task words:

- **Steps** are the clauses of the told sentences: each verb that heads a clause of its own
  (the root, a verb conjoined to another, ``dep``/``parataxis`` chains the small parser gives to
  imperative lists, and a temporal clause: "… before I push", "once it doubles, …"). A clause
  "before" another comes first, one "after"/"once" another comes after it. Words without a
  verb of their own stay with the step they follow ("lid on 20 min, lid off 25").
- **It is a sequence** when a sequence cue is said (a closed class: first, then, next, after,
  before, finally, …), or a habit ("always", "usually", "every"): at least
  :data:`MIN_STEPS_ONE_CUE` steps with one cue, two steps with two.
- **It is the learner's habit**: most steps are actions done by the learner (first person, or an
  imperative) in the present (:data:`HABIT_SHARE`, :data:`LEARNER_SHARE`); a story of what
  happened once (past tense), a plan (a modal: "I'll first …"), someone else's routine ("my
  sister first …, then she …") or an introduction (states and what is under way: "I'm Ana, and
  I'm learning Norwegian before I start my job") is not.
- **A list** ("Step 1 …", "2) …", "(c) …", "Second, …", over any sentences of the message:
  ``procedures.find_listed``) is a sequence by its marks, each item one step.
- **Its name** is the task the steps are for, read from what introduces them or came before
  (``agent.language.procedure_names``: "how we keep our branches up to date", "my method for
  integration by parts", "every morning …"); without one, the clause of what came before most
  similar to the steps (MiniLM, at least :data:`NAME_MIN`), else the introducing clause, else the
  first step, without the speaker's asides.

The told sentences run from the first sentence with a cue (or the text after a colon) to the
last before a question; a sentence that speaks *of* the routine ("I finally have a routine I like
for my loaf": a noun of :data:`KIND_WORDS`) introduces it and is no step, nor is a reminder
request ("once we reach X, remind me …": ``agent.language.reminders``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from agent.language.encoder import encode_kept
from agent.language.grammar import is_learner, owner_of, parse, subject_of
from agent.language.procedure_names import KIND_WORDS, STATIVE, task_name, trimmed
from agent.language.procedures import find_listed
from agent.language.reminders import parse_reminder
from agent.language.sentences import split_sentences

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

SEQUENCE_CUES = frozenset(
    {
        "first", "firstly", "then", "next", "afterwards", "afterward", "finally", "lastly", "later",
        "eventually", "subsequently", "second", "secondly", "third", "thirdly", "before", "after",
        "once", "until", "till",
    }
)  # fmt: skip
"""Words that order what is done (a closed class of adverbs and temporal conjunctions)."""
HABIT_CUES = frozenset({"always", "usually", "normally", "typically", "generally", "every", "whenever"})
"""Frequency words that make a told sequence a habit ("I always …", "every time …")."""
FIRST_MARKS = frozenset({"after", "once", "when", "whenever"})
"""A temporal clause marked so comes before the clause it hangs on ("I push after I run tox")."""
LATER_MARKS = frozenset({"before", "until", "till"})
CONTINUING = SEQUENCE_CUES - FIRST_MARKS - LATER_MARKS - {"first", "firstly", "before"}
"""Cues that go on from a step told before them ("Next, …", "Lastly …"): the sentence before is one."""
"""A temporal clause marked so comes after the clause it hangs on ("I lint before I push")."""
OTHER_PEOPLE = frozenset({"he", "she", "they"})
"""Third-person subjects: someone else does the step."""
STEP_DEPS = frozenset({"ROOT", "conj", "dep", "parataxis"})

MIN_STEPS_ONE_CUE = 3
"""Steps needed with one cue (two steps need two cues: "I always lint before I push")."""
HABIT_SHARE = 0.6
"""Share of steps in the present without a modal (a habit, not a story or a plan)."""
LEARNER_SHARE = 0.5
"""Share of steps the learner does (first person or imperative)."""
NAME_MIN = 0.2
"""Cosine a clause of what came before needs with the steps to name them."""
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class Step:
    """One clause of a told sequence."""

    text: str
    habit: bool
    """Present tense (or imperative), no modal."""
    who: str
    """"learner" (first person or imperative), "other" (someone else), "thing" (it, the CI)."""
    cues: int


@dataclass(frozen=True)
class ToldProcedure:
    """A procedure told as a sequence: its first sentence, name and ordered steps."""

    start: int
    name: str
    steps: list[str]


def _verbal(token: Token) -> bool:
    return token.pos_ in {"VERB", "AUX"} or token.tag_.startswith("VB")


def _heads(doc: Doc) -> list[Token]:
    """The verbs that head a step: the root, chained verbs, temporal clauses."""
    heads = []
    for token in doc:
        if not _verbal(token) or token.tag_ == "MD":
            continue
        chained = token.dep_ in STEP_DEPS and _verbal(token.head)
        temporal = token.dep_ == "advcl" and _mark(token) in FIRST_MARKS | LATER_MARKS
        if token.dep_ == "ROOT" or chained or temporal:
            heads.append(token)
    return heads


def _mark(token: Token) -> str:
    return next((c.lower_ for c in token.children if c.dep_ == "mark"), "")


def _chain(token: Token) -> list[Token]:
    """``token`` and the verbs it is chained to (a conjoined verb shares its head's tense and modal)."""
    chain = [token]
    while chain[-1].dep_ in {"conj", "dep"} and _verbal(chain[-1].head) and chain[-1].head is not chain[-1]:
        chain.append(chain[-1].head)
    return chain


def _habit(head: Token) -> bool:
    chain = _chain(head)
    if any(c.tag_ == "MD" for v in chain for c in v.children):
        return False  # a plan or a wish: "I'll first …", "I should …"
    if any(c.lower_ == "going" for v in chain for c in [v, *v.children]):
        return False
    if any(v.lemma_.lower() in STATIVE for v in chain[:1]):
        return False  # a state or a wish, no action: "I'm Ana, from Lyon", "now I want a plot"
    if head.tag_ == "VBG" and any(c.lemma_ == "be" and c.dep_ == "aux" for c in head.children):
        return False  # what is under way now, not what is done each time: "I'm learning Rust"
    verb = next((v for v in chain if v.tag_ in {"VBD", "VBP", "VBZ", "VBN"}), head)
    # a past form that is also the present ("read", "put", "set", "rerun") says no tense
    return verb.tag_ not in {"VBD", "VBN"} or verb.lower_ == verb.lemma_.lower()


def _who(head: Token) -> str:
    subject = subject_of(head, shared_by=frozenset({"conj", "dep"}))
    if subject is None or is_learner(subject):
        return "learner"
    if subject.lower_ in OTHER_PEOPLE or subject.pos_ == "PROPN":
        return "other"
    return "other" if owner_of(subject) not in {"", "learner"} else "thing"


def _edge(token: Token) -> bool:
    """A connective or an ordering adverb at a step's edge ("and", ",", "then", "so", "after that")."""
    return (
        token.dep_ in {"cc", "punct"}
        or (token.dep_ in {"advmod", "mark"} and token.lower_ in SEQUENCE_CUES | {"so"})
        or _after_that(token)
        or (token.dep_ == "pobj" and _after_that(token.head))
    )


def _after_that(token: Token) -> bool:
    """An ordering preposition whose object is what was told before ("after that", "before this")."""
    objects = [c for c in token.children if c.dep_ == "pobj"]
    return (
        token.dep_ == "prep"
        and token.lower_ in SEQUENCE_CUES
        and len(objects) == 1
        and objects[0].pos_ in {"PRON", "DET"}
    )


def _continues(sentence: str) -> bool:
    """The sentence's first cue goes on from a step before it ("Next, …", "After that, …")."""
    cue = next((t for t in parse(sentence) if _cue(t) or _after_that(t)), None)
    return cue is not None and (cue.lower_ in CONTINUING or _after_that(cue))


def _trim(tokens: list[Token]) -> str:
    """The step's words, without the connectives and cues at its edges."""
    while tokens and _edge(tokens[0]):
        tokens = tokens[1:]
    while tokens and _edge(tokens[-1]):
        tokens = tokens[:-1]
    return "".join(t.text_with_ws for t in tokens).strip()


def _cue(token: Token) -> bool:
    """An ordering or habit word used as one: "then", "first", "after that", "before I push", "always".

    Not a word of a name or a date: "first-year", "next year" (``amod``), "the first time".
    """
    if token.lower_ in HABIT_CUES:
        return True
    return token.lower_ in SEQUENCE_CUES and token.dep_ in {"advmod", "mark", "prep"}


def _starts(doc: Doc, heads: list[Token]) -> dict[int, int]:
    """Where each head's step starts: the run of words it owns just before it, or a cue after a comma.

    A word belongs to the nearest head above it; a cue ("then", "finally") after a comma or "and"
    starts a step of its own even without a verb ("…, then the D and the G").
    """
    owner: dict[int, int] = {}
    head_set = {h.i for h in heads}
    for token in doc:
        node = token
        while node.i not in head_set and node.head.i != node.i:
            node = node.head
        owner[token.i] = node.i
    starts = {0: heads[0].i}
    for head in heads:
        start = head.i
        while start > 0 and owner[start - 1] == head.i and not _after_break(doc, start):
            start -= 1
        starts.setdefault(start, head.i)
    for token in doc:
        cue = token.lower_ in SEQUENCE_CUES - LATER_MARKS - FIRST_MARKS and token.dep_ == "advmod"
        if cue and token.i > 0 and doc[token.i - 1].dep_ in {"cc", "punct"} and token.i not in starts:
            starts.setdefault(token.i - 1, owner[token.i])
    return starts


def _after_break(doc: Doc, i: int) -> bool:
    """A sentence boundary or a colon right before word ``i``."""
    return doc[i].is_sent_start or doc[i - 1].text == ":"


def read_steps(text: str) -> list[Step]:
    """The clauses of ``text`` as steps, in the order they are done (each a run of its words)."""
    doc = parse(text)
    heads = _heads(doc)
    if not heads:
        return []
    starts = _starts(doc, heads)
    bounds = sorted(starts)
    spans = [(i, bounds[k + 1] if k + 1 < len(bounds) else len(doc)) for k, i in enumerate(bounds)]
    order = list(range(len(spans)))
    for k, (begin, _) in enumerate(spans):  # temporal clauses: before / after the clause they hang on
        head = doc[starts[begin]]
        mark = _mark(head) if head.dep_ == "advcl" else ""
        host = next((j for j, (b, e) in enumerate(spans) if b <= head.head.i < e), k)
        if mark and host != k:
            order.remove(k)
            at = order.index(host)
            order.insert(at + 1 if mark in LATER_MARKS else at, k)
    steps: list[Step] = []
    for k in order:
        begin, end = spans[k]
        tokens = list(doc[begin:end])
        words = _trim(tokens)
        if not words:
            continue
        head = doc[starts[begin]]
        cues = sum(_cue(t) for t in tokens)
        steps.append(Step(words, _habit(head), _who(head), cues))
    return steps


def _listed_steps(items: Sequence[str]) -> list[Step]:
    """Each item of a list as one step with one cue (its mark)."""
    steps = []
    for item in items:
        read = read_steps(item)
        habit = all(s.habit for s in read)
        steps.append(Step(item, habit, read[0].who if read else "learner", 1))
    return steps


def _is_question(sentence: str) -> bool:
    return sentence.rstrip().endswith("?")


def _speaks_of_routine(sentence: str) -> bool:
    return any(t.pos_ == "NOUN" and t.lemma_.lower() in KIND_WORDS for t in parse(sentence))


def _body(sentence: str) -> tuple[str, str]:
    """``(text before a colon, text after it)`` of a sentence ("Here's how my lead taught me: first …")."""
    for token in parse(sentence):
        if token.text == ":" and token.idx > 0:
            return sentence[: token.idx].strip(), sentence[token.idx + 1 :].strip()
    return "", sentence


def is_told_sequence(steps: Sequence[Step]) -> bool:
    """Whether ``steps`` are a habit of the learner's, told in order (see the module doc)."""
    if len(steps) < 2:
        return False
    cues = sum(s.cues for s in steps)
    if cues < (1 if len(steps) >= MIN_STEPS_ONE_CUE else 2):
        return False
    habit = sum(s.habit for s in steps) / len(steps)
    learner = sum(s.who == "learner" for s in steps) / len(steps)
    return habit >= HABIT_SHARE and learner >= LEARNER_SHARE and not any(s.who == "other" for s in steps[:1])


def _clauses(texts: Sequence[str]) -> list[str]:
    """The clauses of ``texts`` that could name steps (not a question's, two words or more)."""
    said = [sentence for text in texts for sentence in split_sentences(text)]
    clauses = [
        s.text
        for text in said
        if not _is_question(text)
        for s in read_steps(text) or [Step(text, True, "", 0)]
    ]
    return [c for c in clauses if len(c.split()) >= 2]


def _name(steps: Sequence[str], before: Sequence[str], intro: Sequence[str] = (), first: str = "") -> str:
    """The name of ``steps``: the task they are for (``procedure_names.task_name``), else a clause.

    The task is read from ``intro`` (what introduces them: the text before a colon, the message
    before a list that opens its own), ``first`` (the first told sentence: "when I learn a new
    piece, I …") and ``before``. Without one, the clause of ``before`` most similar to the steps (at
    least :data:`NAME_MIN`), else the clause of ``intro`` most similar to them, else the first step.
    """
    task = task_name(steps, intro, before, first)
    if task:
        return task[:MAX_NAME_CHARS]
    clauses, introducing = _clauses(before), _clauses(intro)
    if clauses or introducing:
        vectors = encode_kept([" ".join(steps), *clauses, *introducing])
        scores = vectors[1:] @ vectors[0]
        best = int(np.argmax(scores[: len(clauses)])) if clauses else -1
        if best >= 0 and scores[best] >= NAME_MIN:
            return trimmed(clauses[best])[:MAX_NAME_CHARS]
        if introducing:
            return trimmed(introducing[int(np.argmax(scores[len(clauses) :]))])[:MAX_NAME_CHARS]
    return steps[0][:MAX_NAME_CHARS]


def _listed_over(sentences: Sequence[str], context: str) -> ToldProcedure | None:
    """A list whose items run over several sentences ("Step 1 rinse … . Step 2 fill …"), else None.

    The list ends before the first question or reminder request after it starts.
    """
    offsets, kept = [], []
    for sentence in sentences:
        if kept and (_is_question(sentence) or parse_reminder(sentence) is not None):
            break
        offsets.append(sum(len(k) + 1 for k in kept))
        kept.append(sentence)
    found = find_listed("\n".join(kept))
    if found is None:
        return None
    at, items = found
    start = max(i for i, offset in enumerate(offsets) if offset <= at)
    steps = _listed_steps(items)
    if not is_told_sequence(steps):
        return None
    intro = "\n".join(kept)[offsets[start] : at].strip(" \n:;,-\u2013\u2014")
    before = [*([context] if context.strip() else []), *sentences[:start], *([intro] if intro else [])]
    # a list that opens the message goes on from the message before: that introduces it
    introduced = [intro] if intro else [context] if start == 0 and context.strip() else []
    return ToldProcedure(start, _name(items, before, introduced, kept[start]), items)


def told_procedure(sentences: Sequence[str], context: str = "") -> ToldProcedure | None:
    """The procedure the learner tells in ``sentences`` (one message), else None.

    ``context`` is what the learner said just before (their previous message): it may name the
    task the steps are for.
    """
    listed = _listed_over(sentences, context)
    if listed is not None:
        return listed
    told: list[tuple[int, str, list[Step]]] = []
    uncued: tuple[int, list[Step]] | None = None
    for i, sentence in enumerate(sentences):
        if _is_question(sentence) or parse_reminder(sentence) is not None:
            if told:
                break
            continue
        intro, body = _body(sentence) if not told else ("", sentence)
        if not told and not intro and _speaks_of_routine(sentence):
            continue  # it speaks of the routine: an introduction, not a step
        steps = read_steps(body)
        if not told and not intro and not any(s.cues for s in steps):
            uncued = (i, steps) if steps else None
            continue  # the told sequence starts at its first cue (or after a colon)
        if not told and uncued is not None and uncued[0] == i - 1 and _continues(body):
            told.append((uncued[0], "", uncued[1]))  # "Bump the version. Next, …": that step came first
        if not steps:
            if told:
                break
            continue
        told.append((i, intro, steps))
    steps = [s for _, _, found in told for s in found]
    if not told or not is_told_sequence(steps):
        return None
    start, intro = told[0][0], told[0][1]
    texts = [s.text for s in steps]
    before = [*([context] if context.strip() else []), *sentences[:start], *([intro] if intro else [])]
    return ToldProcedure(start, _name(texts, before, [intro] if intro else [], sentences[start]), texts)
