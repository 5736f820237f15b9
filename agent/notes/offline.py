"""The offline note extractor: a documented, deterministic stand-in for the chat model.

Used when the chat model is the offline policy (``extractor_for`` picks it). It is
not an LLM:

1. Concepts: ``current_concept`` first, then up to ``max_notes - 1`` salient
   phrases (one or two content words) that a learner turn and a tutor turn both
   use, mentioned at least twice, ranked by frequency then first appearance.
2. ``definition``: the first tutor/tool sentence mentioning the concept, one
   with a defining cue ("is", "means", "returns", …) preferred.
3. ``personal_example``: a learner sentence mentioning it with an example cue
   ("for example", "like", "my", digits), else another learner mention.
4. ``key_insight``: a learner sentence with an understanding/struggle cue
   ("I get", "confusing", "makes sense", …), else tutor feedback ("correct",
   "not quite", …).
5. ``keywords``: concept words plus the most frequent content words of those
   sentences (≤ 5); ``tags``: vocabulary words present, plus note-kind tags.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

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
from agent.notes.text import STOP, WORD, concept_stems, content_stems, stem

OFFLINE_MODEL = "offline-extractor/1"
LEARNER_ROLES = frozenset({"user", "human", "learner"})
NON_PROSE_ROLES = frozenset({"tool", "function", "system"})
_MARKER = re.compile(r"^\s*\[[^\]\n]{1,60}\]\s*")

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_DEFINING = re.compile(r"\b(is|are|means|refers to|returns|combines|describes|lets)\b", re.I)
_EXAMPLE = re.compile(r"\b(for example|e\.g\.|for instance|such as|like|my|mine)\b|\d", re.I)
_INSIGHT = re.compile(
    r"\b(i get|i see|i understand|makes sense|i think|i reali[sz]ed?|so it|confus\w*|"
    r"struggl\w*|don't get|do not get|not sure|hard|tricky|mix\w* up)\b",
    re.I,
)
_STRUGGLE = re.compile(r"\b(confus\w*|struggl\w*|don't get|do not get|not sure|hard|tricky)\b", re.I)
_FEEDBACK = re.compile(r"\b(correct|exactly|right|not quite|careful|common mistake|actually)\b", re.I)
_MISCONCEPTION = re.compile(r"\b(not quite|common mistake|misconception|actually|careful)\b", re.I)


def _sentences(transcript: Sequence[dict[str, Any]]) -> list[tuple[bool, str]]:
    out: list[tuple[bool, str]] = []
    for turn in transcript:
        role = str(turn.get("role", "user")).lower()
        if role in NON_PROSE_ROLES:
            continue  # tool results are JSON, not something the learner or tutor said
        is_learner = role in LEARNER_ROLES
        # Drop a leading "[marker]" (e.g. the offline policy's banner) so it never becomes note text.
        content = _MARKER.sub("", str(turn.get("content", "")))
        for raw in _SENTENCE.findall(content):
            sentence = raw.strip()
            if len(sentence) > 2:
                out.append((is_learner, sentence))
    return out


def _salient_phrases(sentences: list[tuple[bool, str]], exclude: set[str], limit: int) -> list[str]:
    counts: Counter[str] = Counter()
    in_learner: set[str] = set()
    in_tutor: set[str] = set()
    first: dict[str, int] = {}
    for index, (is_learner, sentence) in enumerate(sentences):
        words = [w for w in WORD.findall(sentence.lower())]
        grams = [w for w in words if w not in STOP and len(w) >= 4]
        grams += [
            f"{a} {b}"
            for a, b in zip(words, words[1:], strict=False)
            if a not in STOP and b not in STOP and len(a) >= 3 and len(b) >= 3
        ]
        for gram in set(grams):
            key = " ".join(stem(w) for w in gram.split())
            counts[key] += 1
            first.setdefault(key, index)
            (in_learner if is_learner else in_tutor).add(key)
    eligible = [
        key
        for key, n in counts.items()
        if n >= 2 and key in in_learner and key in in_tutor and not set(key.split()) <= exclude
    ]
    # A qualifying bigram hides its own words.
    covered = {w for key in eligible if " " in key for w in key.split()}
    eligible = [k for k in eligible if " " in k or k not in covered]
    eligible.sort(key=lambda k: (" " not in k, -counts[k], first[k]))
    return eligible[:limit]


def _pick(sentences: list[str], cue: re.Pattern[str] | None, avoid: set[str]) -> str:
    # A question defines and exemplifies nothing: statements first, questions only as a last resort.
    ordered = [s for s in sentences if not s.endswith("?")] + [s for s in sentences if s.endswith("?")]
    for sentence in ordered:
        if sentence not in avoid and (cue is None or cue.search(sentence)):
            return sentence
    return ""


def offline_extract(
    transcript: Sequence[dict[str, Any]],
    current_concept: str | None,
    *,
    vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
    max_notes: int = MAX_NOTES,
) -> list[NoteDraft]:
    """The deterministic extractor described in the module docstring (not an LLM)."""
    sentences = _sentences(transcript)
    concepts: list[str] = []
    if current_concept and current_concept.strip():
        concepts.append(current_concept.strip())
    exclude = concept_stems(concepts[0]) if concepts else set()
    concepts += _salient_phrases(sentences, exclude, max_notes - len(concepts))
    # Subject tags of the session's concept ("sql.joins" -> sql) apply to every note.
    subject = filter_tags(concepts[0].replace(".", " ").split(), tuple(vocabulary)) if concepts else []
    drafts: list[NoteDraft] = []
    for concept in concepts[:max_notes]:
        stems = concept_stems(concept) or {concept.lower()}
        others = [concept_stems(c) for c in concepts if c != concept]

        def crowding(sentence: str, others: list[set[str]] = others) -> int:
            # Atomicity: prefer sentences that name no other session concept.
            words = content_stems(sentence)
            return sum(1 for o in others if o and o <= words)

        tutor = sorted((s for is_l, s in sentences if not is_l and stems <= content_stems(s)), key=crowding)
        learner = sorted((s for is_l, s in sentences if is_l and stems <= content_stems(s)), key=crowding)
        if not tutor and not learner:
            continue
        definition = _pick(tutor, _DEFINING, set()) or _pick(tutor or learner, None, set())
        used = {definition}
        example = _pick(learner, _EXAMPLE, used) or _pick(learner, None, used)
        used.add(example)
        insight = _pick(learner, _INSIGHT, used) or _pick(tutor, _FEEDBACK, used)
        source = [s for s in (definition, example, insight) if s]
        other_concepts = [c for c in concepts if c != concept]
        related = [c for c in other_concepts if concept_stems(c) <= content_stems(" ".join(source))]
        words = Counter(
            w
            for s in source
            for w in WORD.findall(s.lower())
            if w not in STOP and len(w) >= 4 and stem(w) not in stems
        )
        keywords = normalise_keywords([slugify(concept)] + [w for w, _ in words.most_common(MAX_NOTES + 2)])
        drafts.append(
            NoteDraft(
                concept=concept,
                definition=definition,
                personal_example=example,
                key_insight=insight,
                keywords=keywords,
                tags=filter_tags(
                    subject + _offline_tags(concept, source, learner, tutor, vocabulary, bool(example)),
                    tuple(vocabulary),
                ),
                description=clip_description(" ".join(s for s in (definition, insight) if s)),
                links=related,
            )
        )
    return drafts


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
