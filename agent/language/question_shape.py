"""The shape of a question, from its parse: how many things it asks, and whether it asks for a course.

Some intents are in the question's grammar, not in its words or in memory:

- **Two asks** (``multi_source_synthesis``): "Where does the learner work and which certification
  do they need?", "Why is the learner studying Spanish, and what event is coming up?", "Where and
  when is the exam?", or two question sentences. Each part may be a one-value question, and
  the contradiction rule's words ("where … does the learner work") or memory's two values for
  one part would make the whole a contradiction; the answer combines what both parts find.
- **What the learner holds about a topic** (``multi_source_synthesis``): a "what" question whose
  verb takes "about" and a topic ("What does the learner understand about eigenvalues?",
  "What has the learner worked out about when Spanish needs the subjunctive?"): everything
  said on it, not one value.
- **Several things the learner holds** (``multi_source_synthesis``): "which/what" on a plural
  noun, inverted before a subject or possessed ("Which instruments does the learner play?",
  "What kinds of exercises does she enjoy?"): a list gathered from several statements. Not when
  the noun is the subject ("Which verbs take the dative?") or the tutor is asked for advice
  ("Which books would you recommend?", a modal), nor "how many …" (one number).
- **The learner's way of doing something** (``procedural``): the same focus on a noun of a way
  of doing (``_WAYS``: "What is the learner's warm-up routine?", "What process does she follow
  to …?"); "What is the scientific method?" holds no one's.
- **When a past event happened, or how something went** (``temporal_comparison``): "when" on a
  past verb in the active voice ("When did the learner start studying integrals?", "When did
  they finish the chapter?"), or "how" on a present perfect verb ("How have the learner's mock
  results developed?"). A present "When is my exam?" asks one value, and so do a past passive
  ("When was the exam scheduled?": the date someone set, which may have moved) and a copula
  ("When was the essay due?"): memory tells.
- **A bare search** (no verb, no question: "JLPT mock test score"): a one-value question for
  memory; when memory holds several values for it, their course (``temporal_comparison``)
  rather than the current one (``agent.heartbeat.effort.classify``).

Only tags, dependencies and morphology are read (Penn tags ``WDT``/``WP``/``WRB`` for
question words, ``CC`` for coordination, ``Tense=Past``, ``auxpass``), and the lemmas of
closed classes ("when", "how", "have", "about"); content words are the classifier's
(``agent.language.intents``). The parse is ``agent.language.grammar.parse`` (spaCy's small
English pipeline).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.language.grammar import parse

if TYPE_CHECKING:
    from spacy.tokens import Doc, Span, Token

SYNTHESIS = "multi_source_synthesis"
TEMPORAL = "temporal_comparison"
_WH_TAGS = frozenset({"WDT", "WP", "WP$", "WRB"})
PROCEDURAL = "procedural"
_NOUNS = frozenset({"NOUN", "PROPN"})
_WAYS = frozenset(
    {"routine", "workflow", "process", "procedure", "method", "approach", "regimen", "sequence"}
)
"""Nouns of a way of doing something (a closed class): the learner's routine asks how they do it."""
_INVERTED = frozenset({"do", "have", "be"})
"""Auxiliaries that open a question by inversion (a closed class; modals ask advice: ``_held``)."""
_SUBORDINATE = frozenset({"relcl", "advcl", "acl", "ccomp", "csubj", "pcomp"})
"""Clauses whose question word joins them to another (a relative or adverbial clause): no ask."""


def _clause_head(token: Token) -> Token:
    """The verb heading the clause ``token`` is in (its nearest verbal ancestor, or the root)."""
    node = token
    while node.pos_ not in {"VERB", "AUX"} and node.head.i != node.i:
        node = node.head
    return node


def _is_question_word(token: Token) -> bool:
    """A question word that opens an ask (not one that joins a relative or adverbial clause)."""
    if token.tag_ not in _WH_TAGS or token.dep_ == "mark":
        return False
    head = _clause_head(token)
    # "the day when …", "what I learned when …": the word belongs to a subordinate clause
    return not (head.dep_ in _SUBORDINATE and head.i > token.i)


def _inverted(segment: Span) -> bool:
    """A yes/no ask: the segment opens with an auxiliary or modal before its subject ("do they …?")."""
    words = [t for t in segment if not t.is_punct]
    return len(words) > 2 and words[0].pos_ == "AUX" and any(t.dep_.startswith("nsubj") for t in words[1:])


def _segments(doc: Doc) -> list[Span]:
    """The parts of each sentence between coordinating conjunctions and semicolons."""
    parts: list[Span] = []
    for sentence in doc.sents:
        start = sentence.start
        for token in sentence:
            if token.tag_ == "CC" or token.text == ";":
                parts.append(doc[start : token.i])
                start = token.i + 1
        parts.append(doc[start : sentence.end])
    return [p for p in parts if len(p)]


def asks(text: str) -> int:
    """How many things ``text`` asks: its parts with a question word of their own or an inverted verb.

    "Where does the learner work and which certification do they need?" → 2; "What is the
    difference between lists and tuples?" → 1 (the second part asks nothing); "Where and when
    is the exam?" → 2.
    """
    if not text.strip():
        return 0
    doc = parse(text)
    count = 0
    for i, segment in enumerate(_segments(doc)):
        words = [t for t in segment if not t.is_punct]
        # a part opening with a question word asks, whatever clause the parser hangs it on
        opens = bool(words) and words[0].tag_ in _WH_TAGS
        if opens or any(_is_question_word(t) for t in segment) or (i > 0 and _inverted(segment)):
            count += 1
    return count


def _about_topic(doc: Doc) -> bool:
    """A "what" question whose verb takes "about" and a topic ("What does X understand about Y?")."""
    if not any(t.tag_ in {"WP"} and t.lemma_.lower() == "what" for t in doc):
        return False
    for token in doc:
        if token.lemma_.lower() != "about" or token.pos_ != "ADP" or token.head.pos_ != "VERB":
            continue
        # a topic follows ("about eigenvalues", "about when …"); "What is the book about?" has none
        if any(t.i > token.i and not t.is_punct for t in doc):
            return True
    return False


def _perfect(verb: Token) -> bool:
    """A verb with the auxiliary "have" ("has … changed"; the parser may tag "come" of "has come" VB).

    Not beside "do": "When does the learner have tutoring sessions?" asks of "have" the verb (the
    parser may tag it an auxiliary of the noun after it); a perfect never takes "do".
    """
    auxiliaries = {c.lemma_.lower() for c in verb.children if c.dep_ == "aux"}
    return "have" in auxiliaries and "do" not in auxiliaries


def _past_active(verb: Token) -> bool:
    """A past verb in the active voice ("did … start", "finished", "was" as a copula)."""
    if any(c.dep_ == "auxpass" for c in verb.children):
        return False
    words = [verb, *(c for c in verb.children if c.dep_ == "aux")]
    return any("Past" in t.morph.get("Tense") and t.tag_ != "VBN" for t in words) or _perfect(verb)


def asks_degree(text: str) -> bool:
    """Whether ``text`` asks "how many/much/long/far …": "how" on an adjective or adverb, a quantity.

    "How many kanji has the learner learned?" asks one number (which may change), not all that
    was learned.
    """
    if not text.strip():
        return False
    return any(
        t.tag_ == "WRB" and t.lemma_.lower() == "how" and t.head.pos_ in {"ADJ", "ADV"} for t in parse(text)
    )


def _asks_a_course(doc: Doc) -> bool:
    """A "when" on a past active verb, or "how" on a present perfect verb (module docstring).

    "How many"/"how long" hang "how" on an adjective or adverb: a degree, not a course.
    """
    for token in doc:
        if token.tag_ != "WRB" or not _is_question_word(token):
            continue
        word, verb = token.lemma_.lower(), token.head
        if verb.dep_ in {"aux", "auxpass"}:  # the parser may hang "when" on "was" of "was scheduled"
            verb = verb.head
        # a copula asks the time of a thing ("When was the essay due?"), a value that may have moved
        # the small parser may tag the verb after "the learner" a noun ("did the learner switch"):
        # an auxiliary on it makes it a verb all the same
        verbal = verb.pos_ == "VERB" or any(c.dep_ == "aux" for c in verb.children)
        if word == "when" and verbal and _past_active(verb):
            return True
        if word == "how" and verbal and _perfect(verb):
            return True
    return False


def _focus(doc: Doc) -> Token | None:
    """The noun a what/which question asks about, or None.

    The one its question word determines ("which instruments"), or the subject of "what is …"
    ("What is the learner's routine for …?").
    """
    for token in doc:
        if token.tag_ in {"WDT", "WP"} and token.dep_ == "det" and token.head.pos_ in _NOUNS:
            return token.head
    for token in doc:
        if token.tag_ == "WP" and token.dep_ in {"attr", "nsubj"} and token.head.lemma_ == "be":
            return next(
                (c for c in token.head.children if c.dep_ in {"nsubj", "attr"} and c.pos_ in _NOUNS), None
            )
    return None


def _held(doc: Doc, focus: Token) -> bool:
    """Whether the question's focus is something someone holds.

    Possessed ("my routine", "the learner's"), or the object of a verb whose subject is not the
    tutor and that asks no advice ("Which books would you recommend?", "Which libraries should I
    use?" ask the tutor, not memory).
    """
    if any(c.dep_ == "poss" for c in focus.children):
        return True
    # an auxiliary right after the focus is inverted before a subject ("Which sports does the learner
    # play?"); a verb there makes the focus the subject ("Which verbs take the dative?": the things
    # themselves). The small parser often hangs such a focus on the auxiliary, so its word order is read.
    end = max(focus.i, focus.right_edge.i) + 1  # past "kinds of exercises"
    after = doc[end] if end < len(doc) else None
    if after is None or after.lemma_.lower() not in _INVERTED:
        return False
    return not any(t.tag_ == "MD" or (t.lower_ == "you" and t.dep_.startswith("nsubj")) for t in doc)


def shape_intent(text: str) -> str | None:
    """The intent a question's shape calls for (module docstring), or None when its shape says none."""
    if not text.strip():
        return None
    if asks(text) > 1:
        return SYNTHESIS
    doc = parse(text)
    if _about_topic(doc):
        return SYNTHESIS
    focus = _focus(doc)
    if focus is not None and _held(doc, focus):
        if focus.lemma_.lower() in _WAYS:
            return PROCEDURAL
        if focus.tag_ in {"NNS", "NNPS"}:
            return SYNTHESIS
    if _asks_a_course(doc):
        return TEMPORAL
    return None


def is_bare_search(text: str) -> bool:
    """A search of a few words with no verb and no question ("JLPT mock test score", "typing speed wpm").

    A verb-less line of two to six words, none a pronoun, interjection or finite verb, not
    ending a sentence: what someone types in a search box, not a turn of chat ("Thanks!").
    """
    words = [t for t in parse(text) if not t.is_punct] if text.strip() else []
    if not 2 <= len(words) <= 6 or text.strip()[-1:] in {".", "!", "?"}:
        return False
    return not any(
        t.pos_ in {"PRON", "INTJ", "AUX", "DET"} or "Fin" in t.morph.get("VerbForm") or t.tag_ in _WH_TAGS
        for t in words
    )
