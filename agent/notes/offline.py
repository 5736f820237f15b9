"""The offline note extractor: a documented, deterministic stand-in for the chat model.

Used when the chat model is the offline policy (``extractor_for`` picks it). It is
not an LLM. Rules, in order:

1. **Prose.** Tool/system turns are dropped; so are the offline policy's replies (a turn
   opening with its banner: "Noted; …", "Got it: …", memory quotes, a note handed back), tool-call
   renderings (``[calls …]``), tutor turns that quote memory ("From your memory — …"), and
   boilerplate sentences (the tutor talking about itself or its tools, greetings, praise,
   quoted ``role:`` lines). Sentences are cut at ``:``/``;`` into clauses (``offline_prose``).
2. **Concepts** are terms the learner used: noun phrases (``text.noun_phrases``,
   a heuristic chunker: no verbs, no filler) from learner sentences. A term is a
   concept when some declarative sentence *defines* it (below) and either it is
   multi-word, an acronym ("CTE", "SQL": ``text.acronyms``), occurs at least twice, or
   the learner defines it in a generic sentence ("A dictionary maps keys to values.":
   the shape of a textbook definition, ``definitions.generic_shape``). Ranked: defined
   by a cue verb first, then multi-word, then frequency, then first appearance. Of two
   nested terms ("outer join", "full outer join") the one said more often stays (ties:
   the longer). ``current_concept`` comes first when the session defines it as a term of
   its own (``sql.joins`` needs a sentence about joins in general, not one about "an
   inner join"); otherwise the session's terms carry it.
3. ``definition`` (``agent.notes.definitions``): a declarative sentence (never a question
   or boilerplate) that opens with the concept as its subject ("A left join keeps …"), after learner
   lead-ins ("Remember that", "I learned that", "So") are removed; not one opening
   with a possessive ("My report keeps …": the learner's own thing, an example) nor
   one that only equates the term with another ("patient_id is the primary key"), nor
   an episode in the past ("The API was slow"). An aside between commas after the
   subject is skipped ("A CTE, written with WITH, lets …").
   Clauses after ``, while``/``, whereas``/``, but`` count on their own. A tutor answer
   opening with "It …" right after a learner question about the term defines it
   (the pronoun is replaced by the term). Preferred: a defining verb ("is",
   "means", "returns", …) right after the concept, no digits, the tutor's words.
4. ``personal_example``: a learner statement about the concept with an example cue
   ("my", "like", "for example", digits, "practised", a code call such as ``RANK()``), an
   explicit "For example …" first, else a tutor statement with an explicit example cue
   ("for example", "such as"). A sentence opening with "For example" or with a code call
   is about what the sentence before it is about, even when it does not name the concept;
   the marker itself is dropped. The learner's aims and self-description ("My goal is …",
   "I want to …", "I work as …") illustrate nothing, even when they name the concept.
5. ``open_question``: a learner statement about the concept with a struggle cue
   ("confusing", "not sure", "mix up", …): a question to revisit, not an insight.
6. ``key_insight``: a learner statement about the concept with an understanding cue
   ("I get", "makes sense", …) and no struggle cue, else tutor feedback ("correct",
   "not quite", "careful", …) mentioning it. Examples, questions and insights are never
   questions asked in the session or boilerplate, and may be empty.
7. ``keywords``: the concept plus its sentences' most frequent noun-phrase words (≤ 5);
   ``tags``: vocabulary words present, plus note-kind tags.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

from agent.language.sentences import EXAMPLE_OPENER, WORD
from agent.notes.definitions import definitions as defining_sentences
from agent.notes.definitions import family, subject_of
from agent.notes.models import (
    DEFAULT_TAG_VOCABULARY,
    MAX_NOTES,
    Failure,
    NoteDraft,
    clip_description,
    filter_tags,
    normalise_keywords,
    slugify,
)
from agent.notes.offline_prose import (
    CODE_CALL,
    Sentence,
    about_the_learner,
    example_anchors,
    split_sentences,
    without_example_marker,
)
from agent.notes.text import acronyms, content_stems, noun_phrases, stem, term_key
from agent.text import STOP_WORDS

OFFLINE_MODEL = "offline-extractor/3"
MIN_TERM_COUNT = 2

_EXAMPLE_MARKERS = r"for example|e\.g\.|for instance|such as"
"""Words that mark an example anywhere in a sentence."""
_STRUGGLE_WORDS = r"confus\w*|struggl\w*|don't get|do not get|not sure|hard|tricky|mix\w* up"
"""Words of a learner who has not got it yet: a question for the note, never its insight."""
_CORRECTION_WORDS = r"not quite|common mistake|actually|careful"
"""A tutor correcting the learner."""

_EXAMPLE = re.compile(
    rf"\b({_EXAMPLE_MARKERS}|like|my|mine|practi[sc]ed|tried|used it|in my)\b|\d|{CODE_CALL.pattern}",
    re.I,
)
_TUTOR_EXAMPLE = re.compile(rf"\b({_EXAMPLE_MARKERS}|imagine|say you)\b", re.I)
_INSIGHT = re.compile(
    rf"\b(i get|i see|i understand|makes sense|i think|i reali[sz]ed?|so it|{_STRUGGLE_WORDS}|surpris\w*|"
    r"the trick|the key|the difference|i keep|i used to|i thought|now i)\b",
    re.I,
)
_STRUGGLE = re.compile(rf"\b({_STRUGGLE_WORDS})\b", re.I)
_FEEDBACK = re.compile(rf"\b(correct|exactly|right|remember|{_CORRECTION_WORDS})\b", re.I)
_MISCONCEPTION = re.compile(rf"\b({_CORRECTION_WORDS}|misconception)\b", re.I)


def _mentions(sentence: Sentence, concept: str) -> bool:
    keys = {term_key(t) for t in sentence.terms}
    if concept in keys:
        return True
    words = set(concept.split())
    return bool(words) and words <= {stem(w) for w in WORD.findall(sentence.text.lower())}


def _surfaces(sentences: list[Sentence]) -> dict[str, str]:
    """Each term key's commonest surface form (ties: the shortest)."""
    seen: dict[str, Counter[str]] = {}
    for s in sentences:
        for term in s.terms:
            seen.setdefault(term_key(term), Counter())[term] += 1
    caps = {a for s in sentences for a in acronyms(s.text)}  # "CTE" stays as written
    return {k: k.upper() if k in caps else min(c, key=lambda t: (-c[t], len(t), t)) for k, c in seen.items()}


def _candidates(sentences: list[Sentence], exclude: str, limit: int) -> list[str]:
    """Term keys the learner used that the session defines (rule 2 of the docstring)."""
    counts: Counter[str] = Counter()
    first: dict[str, int] = {}
    learner_terms: set[str] = set()
    # An acronym ("CTE", "SQL") names a thing by its form, as a multi-word term does.
    named = {a for s in sentences if s.learner for a in acronyms(s.text)}
    for index, s in enumerate(sentences):
        for term in dict.fromkeys(term_key(t) for t in s.terms):
            counts[term] += 1
            first.setdefault(term, index)
            if s.learner:
                learner_terms.add(term)
    eligible: dict[str, tuple[int, int, int, int]] = {}
    surfaces = _surfaces(sentences)
    for term in learner_terms:
        if not term or term == exclude or all(w in STOP_WORDS for w in term.split()):
            continue
        defs = defining_sentences(sentences, term, surfaces.get(term, term))
        if not defs:
            continue
        # A single common word needs saying twice, unless the learner defines it as a kind.
        said_twice = counts[term] >= MIN_TERM_COUNT and len(term) >= 4
        defined = any(d.generic and d.rank[2] for d in defs)
        if " " not in term and term not in named and not (said_twice or defined):
            continue
        eligible[term] = (defs[0].rank[0], int(" " not in term), -counts[term], first[term])
    # A term hides the shorter terms it contains ("full outer join" hides "outer join", "join").
    keys = list(eligible)
    # The one said more often wins ("binary search" over "ids binary search"); ties go to the longer.
    hidden: set[str] = set()
    for a in keys:
        for b in keys:
            if a != b and set(a.split()) < set(b.split()) and a.split()[-1] == b.split()[-1]:
                hidden.add(a if counts[b] >= counts[a] else b)
    ranked = sorted((k for k in keys if k not in hidden), key=lambda k: eligible[k])
    return ranked[:limit]


def _pick(sentences: list[Sentence], cue: re.Pattern[str] | None, used: set[str]) -> str:
    for s in sentences:
        text = s.statement
        if text and text not in used and s.text not in used and (cue is None or cue.search(s.text)):
            return text
    return ""


def offline_extract(
    transcript: Sequence[dict[str, Any]],
    current_concept: str | None,
    *,
    vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
    max_notes: int = MAX_NOTES,
) -> list[NoteDraft]:
    """The deterministic extractor described in the module docstring (not an LLM)."""
    sentences = split_sentences(transcript)
    anchors = example_anchors(sentences)
    surfaces = _surfaces(sentences)
    current = (current_concept or "").strip()
    concepts = _session_concepts(sentences, surfaces, current, max_notes)
    # Subject tags of the session's concept ("sql.joins" -> sql) apply to every note.
    subject_tags = filter_tags(current.replace(".", " ").split(), tuple(vocabulary)) if current else []
    drafts: list[NoteDraft] = []
    for name, key in concepts[:max_notes]:
        others = [k for _, k in concepts if k != key]

        def crowding(s: Sentence, others: list[str] = others) -> int:
            # Atomicity: prefer sentences that name no other session concept.
            return sum(1 for o in others if _mentions(s, o))

        surface = name.rsplit(".", 1)[-1].replace("_", " ") if name == current else name
        definitions = defining_sentences(sentences, key, surface)
        if not definitions:
            continue
        definition = definitions[0].text
        used = {definition}
        about = [s for s, a in zip(sentences, anchors, strict=True) if _about(s, a, key)]
        learner = sorted((s for s in about if s.learner), key=crowding)
        tutor = sorted((s for s in about if not s.learner), key=crowding)
        example = (
            _pick(learner, EXAMPLE_OPENER, used)
            or _pick([s for s in learner if not about_the_learner(s)], _EXAMPLE, used)
            or _pick(tutor, _TUTOR_EXAMPLE, used)
        )
        question = _pick(learner, _STRUGGLE, used | {example})
        used |= {example, question}
        settled = [s for s in learner if not _STRUGGLE.search(s.text)]
        insight = _pick(settled, _INSIGHT, used) or _pick(tutor, _FEEDBACK, used)
        example = without_example_marker(example) if example else ""
        source = [s for s in (definition, example, insight, question) if s]
        related = [surfaces.get(k, k) for k in others if any(_mentions_text(t, k) for t in source)]
        keywords = _keywords(source, key, surface)
        said = ([s.text for s in learner], [s.text for s in tutor])
        tags = subject_tags + _offline_tags(name, source, *said, vocabulary, bool(example))
        drafts.append(
            NoteDraft(
                concept=name,
                definition=definition,
                personal_example=example,
                key_insight=insight,
                open_question=question,
                keywords=keywords,
                tags=filter_tags(tags, tuple(vocabulary)),
                description=clip_description(" ".join(s for s in (definition, insight) if s)),
                links=related,
            )
        )
    return drafts


def _session_concepts(
    sentences: list[Sentence], surfaces: dict[str, str], current: str, max_notes: int
) -> list[tuple[str, str]]:
    """The session's concepts as (name on the note, term key): the current one first if it is defined."""
    current_key = term_key(current) if current else ""
    concepts: list[tuple[str, str]] = []
    surface = current.rsplit(".", 1)[-1].replace("_", " ")
    if current_key and defining_sentences(sentences, current_key, surface):
        concepts.append((current, current_key))
    for key in _candidates(sentences, current_key, max_notes - len(concepts)):
        concepts.append((surfaces.get(key, key), key))
    return concepts


def _keywords(source: list[str], key: str, surface: str) -> list[str]:
    """A note's keywords: its concept's slug, then the commonest words of its noun phrases."""
    words = Counter(
        w
        for text in source
        for phrase in noun_phrases(text)
        for w in phrase.split()
        if w not in STOP_WORDS and len(w) >= 4 and stem(w) not in set(key.split())
    )
    return normalise_keywords([slugify(surface)] + [w for w, _ in words.most_common(MAX_NOTES + 2)])


def _about(sentence: Sentence, anchor: Sentence | None, key: str) -> bool:
    """The sentence names the concept, or is an example of a sentence that does.

    An example of a sentence with a term as its subject illustrates that term, not every term
    the sentence names ("A borrow checker enforces the ownership rules. For example, …" is an
    example of the borrow checker, not of ownership).
    """
    if _mentions(sentence, key) or anchor is None:
        return _mentions(sentence, key)
    subject = subject_of(anchor.statement)[1] if anchor.statement else ""
    return family(subject, key) if subject else _mentions(anchor, key)


def _mentions_text(text: str, key: str) -> bool:
    words = set(key.split())
    return bool(words) and words <= {stem(w) for w in WORD.findall(text.lower())}


def _offline_tags(
    concept: str,
    source: list[str],
    learner: list[str],
    tutor: list[str],
    vocabulary: Sequence[str],
    has_example: bool,
) -> list[str]:
    present = content_stems(" ".join([concept.replace(".", " "), *source]))
    tags = [t for t in vocabulary if stem(t) in present or t in present]
    if any(_STRUGGLE.search(s) for s in learner):
        tags.append("struggle")
    if any(_MISCONCEPTION.search(s) for s in tutor):
        tags.append("misconception")
    if has_example:
        tags.append("example")
    return filter_tags(tags, tuple(vocabulary)) or (["general"] if "general" in vocabulary else [])


class OfflineExtractor:
    """The ``Extractor`` strategy without a chat model (see the module docstring)."""

    async def extract(
        self,
        transcript: Sequence[dict[str, Any]],
        current_concept: str | None,
        *,
        vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
        max_notes: int = MAX_NOTES,
    ) -> tuple[list[NoteDraft], list[Failure], dict[str, Any]]:
        """Drafts (never failures) and audit facts for one session."""
        drafts = offline_extract(transcript, current_concept, vocabulary=vocabulary, max_notes=max_notes)
        return drafts, [], {"extractor": "offline", "model": OFFLINE_MODEL, "attempts": 1}
