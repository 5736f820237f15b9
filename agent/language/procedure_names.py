"""The name a learner's procedure is shown by: the task it is for, not the words around it.

A procedure is listed as "How to <name>: 1. … 2. …" on the dashboard and in search. Learners
rarely say the task plainly; they frame it ("my team lead showed me how we keep our branches up to
date, writing it down so I don't forget", "g'day, exam revision … can I check my method for
integration by parts?", "every morning I do the same thing"). This module reads the task from the
dependency parse (``agent.language.grammar``), not from task words:

- **Marked tasks**: the verb phrase after "how" ("how we *keep our branches up to date*"), what a
  noun of :data:`KIND_WORDS` is for ("my method *for integration by parts*", "a way *to read an
  ECG*", "my *morning* routine", "my routine *when it crashes*"), the occasion of a habit ("*when I
  learn a new piece* I …", "*every morning* I …": "morning routine").
- **Plain tasks**: any other verb phrase with an object ("I'm now the one *doing releases*").

A verb phrase keeps its verb, objects and particles; the speaker's asides go (a subject, a clause
of purpose or comment: "so I stop messing it up", "correct me if I'm wrong", "writing it down").
``task_name`` picks among what introduces the steps, then what came before, by similarity to the
steps (MiniLM); ``trimmed`` cleans a name an introduction gave ("integration by parts, the way I
do it in exams").
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.language.encoder import encode_kept
from agent.language.grammar import parse

if TYPE_CHECKING:
    from spacy.tokens import Doc, Token

KIND_WORDS = frozenset(
    {
        "steps", "step", "procedure", "process", "method", "routine", "recipe", "checklist", "workflow",
        "system", "way", "setup", "order", "drill",
    }
)  # fmt: skip
"""Nouns a learner calls their own way of doing something by (an intro names them, steps do not)."""
ASIDE_DEPS = frozenset(
    {"nsubj", "nsubjpass", "aux", "auxpass", "advcl", "mark", "cc", "conj", "punct", "parataxis", "appos",
     "intj", "dep", "npadvmod", "neg", "ccomp"}
)  # fmt: skip
"""Children of a task's verb that are the speaker's, not the task's (who, asides, comments)."""
STATIVE = frozenset({"be", "have", "want", "need", "hope", "like", "love", "wish", "know", "think", "seem"})
"""Verbs of state or wish (a closed class): "I'm Ana", "I want X" say no action to do."""
CLAUSE_ENDS = frozenset({"cc", "nsubj", "relcl"})
"""Where the words of a task noun stop: another clause starts."""
OCCASION_MARKS = frozenset({"when", "whenever", "to"})
PLAIN_MIN = 0.3
"""Cosine a plain verb phrase needs with the steps to name them (leave-one-out over the tests' phrasings)."""
MAX_WORDS = 12
NEAR = 4
"""Words after a kind noun within which a "for …" still says what it is for."""


@dataclass(frozen=True)
class Task:
    """A phrase that may name a procedure; ``marked`` when the grammar says it is what the steps are for."""

    phrase: str
    marked: bool


def _words(tokens: Sequence[Token]) -> str:
    text = "".join(t.text_with_ws for t in sorted(tokens, key=lambda t: t.i)).strip(" ,;:.-")
    return text


def _kept(token: Token, drop: frozenset[str]) -> list[Token]:
    """``token``'s subtree without its children of ``drop`` (nor anything after a comma of its own)."""
    kept = [token]
    for child in token.children:
        if child.tag_ != "HYPH" and (child.dep_ in drop or (child.i > token.i and child.dep_ == "punct")):
            continue  # a hyphen is part of a word ("warm-up")
        kept.extend(child.subtree)
    comma = next((t.i for t in token.subtree if t.i > token.i and t.text in {",", ";", ":"}), None)
    return [t for t in kept if comma is None or t.i < comma]


def _verb_phrase(verb: Token) -> str:
    """The task of ``verb``: the verb, its objects and particles; None when it acts on nothing said."""
    words = [t for t in _kept(verb, ASIDE_DEPS) if not (t.i < verb.i and t.dep_ == "advmod")]
    # a clause of the learner's on an object is the next step, not the task: "a new piece I clap …"
    told = {t.i for w in words if w.dep_ == "relcl" and _by_learner(w) for t in w.subtree}
    words = [t for t in words if t.i not in told]
    objects = [t for t in words if t.dep_ in {"dobj", "pobj", "prt", "xcomp", "acomp", "attr", "oprd"}]
    if not objects or not any(t.pos_ in {"NOUN", "PROPN", "NUM", "ADJ"} for t in words):
        return ""  # it acts on nothing named: "how we did it", "said to do it"
    return _words(words)


def _by_learner(verb: Token) -> bool:
    return any(c.dep_ == "nsubj" and c.lower_ in {"i", "we"} for c in verb.children)


def _noun_phrase(noun: Token) -> str:
    return _words(_kept(noun, frozenset({"appos", "punct", "cc", "conj", "det", "poss"})))


def _action(verb: Token) -> bool:
    return verb.pos_ == "VERB" and verb.lemma_.lower() not in STATIVE


def _kind_tasks(noun: Token) -> list[str]:
    """What a "routine"/"method"/"way" is for: its complement, its occasion, or its compound."""
    found = []
    # "check my method for X", "for X our steps are": "for" may hang on the noun's verb
    beside = [c for c in noun.head.children if c.dep_ == "prep" and c.lower_ == "for" and c.i != noun.i]
    # "a routine I like for my loaf": the small parser may cut the clause off the noun
    near = [t for t in noun.doc[noun.i + 1 : noun.i + 1 + NEAR] if t.dep_ == "prep" and t.lower_ == "for"][:1]
    beside += [t for t in near if t not in beside and t not in noun.subtree]
    for token in [*noun.subtree, *beside]:
        if token.i <= noun.i and token not in beside:
            continue
        if token.dep_ == "prep" and token.lower_ in {"for", "to"}:
            obj = next((c for c in token.children if c.dep_ in {"pobj", "pcomp"}), None)
            if obj is not None and obj.tag_ == "VBG":
                found.append(_verb_phrase(obj))
            elif obj is not None:  # "my method for X" is X; "a warm-up routine for X" keeps its kind
                phrase = _clause_rest(obj, token.head if token in beside else noun.head)
                found.append(f"{_kind(noun)} for {phrase}" if _modifiers(noun) else phrase)
            break
        if token.tag_ == "VB" and any(c.lower_ == "to" and c.dep_ == "aux" for c in token.children):
            found.append(_verb_phrase(token))
            break
        if token.pos_ == "VERB" and any(c.lower_ in {"when", "whenever"} for c in token.children):
            found.append(f"{noun.text} {_words(list(token.subtree))}")
            break
    if _modifiers(noun) and not found:
        found.append(_kind(noun))
    return [f for f in found if f]


def _clause_rest(obj: Token, head: Token) -> str:
    """``obj``'s words to the end of its clause ("for integration | by parts": "by" hangs on the verb)."""
    rest = list(obj.doc[obj.left_edge.i : max(obj.right_edge.i, head.right_edge.i) + 1])
    ends = [k for k, t in enumerate(rest) if (t.is_punct and t.tag_ != "HYPH") or t.dep_ in CLAUSE_ENDS]
    cut = ends[0] if ends else len(rest)
    return _words([t for t in rest[:cut] if t.dep_ not in {"det", "poss"}])


def _modifiers(noun: Token) -> list[Token]:
    """The nouns that say what kind of routine it is ("morning", "deploy", "warm-up")."""
    return [c for c in noun.children if c.dep_ == "compound" or (c.dep_ == "amod" and c.i + 1 < noun.i)]


def _kind(noun: Token) -> str:
    return _words([*(t for c in _modifiers(noun) for t in c.subtree), noun])


def tasks(text: str) -> list[Task]:
    """The phrases of ``text`` that may name a procedure (see the module doc)."""
    found: list[Task] = []
    doc = parse(text)
    if doc and doc[0].lower_ == "for" and any(t.lemma_.lower() in KIND_WORDS for t in doc):
        found.append(Task(_leading_for(doc), True))  # "For the titration practical our steps are"
    for token in doc:
        if token.pos_ == "NOUN" and token.lemma_.lower() in KIND_WORDS:
            found += [Task(p, True) for p in _kind_tasks(token)]
        elif token.lower_ == "every" and token.head.dep_ == "npadvmod":
            found.append(Task(f"{token.head.text} routine", True))
        elif token.pos_ != "VERB" or not _action(token):
            continue
        elif any(c.lower_ == "how" for c in token.children) or (
            token.dep_ == "advcl" and token.i < token.head.i and _occasion(token)
        ):
            found.append(Task(_verb_phrase(token), True))
        elif token.dep_ not in {"advcl", "conj"}:
            found.append(Task(_verb_phrase(token), False))
    return [t for t in found if t.phrase and len(t.phrase.split()) <= MAX_WORDS]


def _leading_for(doc: Doc) -> str:
    """The noun phrase after a sentence's opening "for" (the small parser often misreads it as a mark)."""
    words = []
    for token in doc[1:]:
        if token.dep_ == "poss" and not words:
            continue  # "For my exam"
        if token.pos_ not in {"DET", "ADJ", "NOUN", "PROPN", "NUM"}:
            break  # "our steps are", "I need …": the clause the phrase opens
        words.append(token)
    return _words([t for t in words if t.pos_ != "DET"])


def _occasion(verb: Token) -> bool:
    return any(c.lower_ in OCCASION_MARKS and c.dep_ in {"advmod", "mark", "aux"} for c in verb.children)


def task_name(
    steps: Sequence[str], intro: Sequence[str], before: Sequence[str], first: str = ""
) -> str | None:
    """The task ``steps`` are for: a marked task of ``intro``, else of ``before``, else a plain one.

    ``intro`` is what introduces the steps (the text before a colon, the first told sentence);
    ``before`` what came earlier (the message before, earlier sentences, questions included);
    ``first`` the first told sentence (only its marked tasks: "when I start a project, I …"). Among
    several, the one most similar to the steps; a plain task needs :data:`PLAIN_MIN`. None without one.
    """
    introducing = [t for text in intro for t in tasks(text)] + [t for t in tasks(first) if t.marked]
    earlier = [t for text in before for t in tasks(text)]
    tiers = [
        [t.phrase for t in introducing if t.marked],
        [t.phrase for t in earlier if t.marked],
        [t.phrase for t in [*introducing, *earlier] if not t.marked],
    ]
    if not any(tiers):
        return None
    said = [p for tier in tiers for p in tier]
    vectors = encode_kept([" ".join(steps), *said])
    scores = dict(zip(said, vectors[1:] @ vectors[0], strict=True))
    for k, tier in enumerate(tiers):
        if tier:
            best = max(tier, key=lambda p: scores[p])
            if k < len(tiers) - 1 or scores[best] >= PLAIN_MIN:
                return best
    return None


def trimmed(name: str) -> str:
    """``name`` without the speaker's asides ("complete the square, tell me if it's wrong").

    What follows a comma is an aside (the small parser may even make it the root); within the
    clause, a clause of purpose or comment goes too ("… so I stop breaking things").
    """
    name = name.split(",")[0].strip() or name
    doc = parse(name)
    root = doc[0] if doc and doc[0].pos_ == "VERB" else next((t for t in doc if t.dep_ == "ROOT"), None)
    if root is None:
        return name
    attr = next((c for c in root.children if c.dep_ == "attr" and c.pos_ == "NOUN"), None)
    if root.lemma_ == "be" and attr is not None:  # "I'm now the one doing releases", "prac is a titration"
        acts = [c for c in attr.children if c.dep_ in {"acl", "relcl"} and _action(c)]
        phrase = _verb_phrase(acts[0]) if acts else _noun_phrase(attr)
    elif root.pos_ == "VERB" and root.lemma_.lower() in STATIVE:  # "we had the pendulum practical"
        obj = next((c for c in root.children if c.dep_ == "dobj"), None)
        phrase = _noun_phrase(obj) if obj is not None else ""
    elif root.pos_ == "VERB":
        phrase = _verb_phrase(root)
    else:
        phrase = _words(_kept(root, frozenset({"appos", "punct", "cc", "conj", "parataxis"})))
    return phrase or name
