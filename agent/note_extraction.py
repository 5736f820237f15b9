"""Extract atomic notes from a session transcript: chat model, or offline extractor.

With a chat model the reply is JSON validated by pydantic; a reply that fails
is retried once with the error quoted back. A note that still fails becomes a
``Failure``, never a silent success.

Offline (``is_offline_policy(model)``) a documented deterministic extractor
takes the model's place. It is not an LLM:

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

import json
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from agent.chat_models import is_offline_policy
from agent.note_models import (
    DEFAULT_TAG_VOCABULARY,
    ExtractionResult,
    Failure,
    NoteDraft,
    clip_description,
    filter_tags,
    normalise_keywords,
    slugify,
)
from agent.prompts_zettelkasten import EXTRACT_HUMAN, EXTRACT_SYSTEM, RETRY_HUMAN

T = TypeVar("T", bound=BaseModel)
MAX_NOTES = 3
LEARNER_ROLES = frozenset({"user", "human", "learner"})
NON_PROSE_ROLES = frozenset({"tool", "function", "system"})
_MARKER = re.compile(r"^\s*\[[^\]\n]{1,60}\]\s*")

_SENTENCE = re.compile(r"[^.!?\n]+[.!?]?")
_WORD = re.compile(r"[a-z][a-z0-9+#_-]*")
_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.I)
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

_STOP_WORDS = """
    a an the and or but if then so of to in on at by for with from into about as is are was were
    be been being am do does did doing have has had i me my mine we our you your he she it its
    they them their this that these those there here what which who whom when where why how not
    no yes can could would should will shall may might must just also very really quite too more
    most less some any all each every both either neither one two three first second get got
    gets make makes made use used uses using like likes want wants need needs know knows think
    thinks see mean means said say says tell told let lets okay ok right sure thanks thank
    please well good great now again still only even much many thing things something anything
    way ways lot example examples question questions answer answers understand understood sense
    idea today session tutor learner kind sort bit part case cases time times show shows give
    gives take takes look looks try tries trying keep go goes going come comes because than such
    other same different new old own while after before over under between through exactly
    correct wrong true false yeah hmm oh wait maybe probably actually basically pretty
"""
_STOP = frozenset(_STOP_WORDS.split())


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("es") and not word.endswith("ses"):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def content_stems(text: str) -> set[str]:
    """Stemmed lowercase words of ``text`` (stopwords kept: the lint needs them)."""
    return {_stem(w) for w in _WORD.findall(text.lower())}


def model_label(model: BaseChatModel) -> str:
    """A short name of the chat model for audit records."""
    for attr in ("model_name", "model"):
        value = getattr(model, attr, None)
        if isinstance(value, str) and value:
            return value
    return getattr(model, "_llm_type", type(model).__name__)


def parse_json_text(text: str) -> Any:
    """Parse a model reply as JSON, tolerating code fences and leading prose."""
    cleaned = _FENCE.sub("", text.strip())
    try:
        return json.loads(cleaned)
    except json.JSONDecodeError:
        start = min((i for i in (cleaned.find("{"), cleaned.find("[")) if i >= 0), default=-1)
        if start < 0:
            raise
        return json.loads(cleaned[start:])


async def invoke_json(
    model: BaseChatModel,
    messages: list[BaseMessage],
    schema: type[T],
    *,
    attempts: int = 2,
    check: Callable[[T], None] | None = None,
) -> tuple[T | None, str | None, int]:
    """Call ``model`` for JSON matching ``schema``; retry with the error quoted back.

    Returns ``(result, last_error, attempts_used)``; ``result`` is None when
    every attempt failed. ``check`` may raise ``ValueError`` for semantic errors.
    """
    history = list(messages)
    error: str | None = None
    for attempt in range(1, attempts + 1):
        reply = await model.ainvoke(history)
        text = reply.text if isinstance(reply, BaseMessage) else str(reply)
        try:
            result = schema.model_validate(parse_json_text(text))
            if check is not None:
                check(result)
            return result, None, attempt
        except (ValueError, ValidationError) as exc:  # JSONDecodeError is a ValueError
            error = _short_error(exc)
            history += [AIMessage(content=text), HumanMessage(RETRY_HUMAN.format(error=error))]
    return None, error, attempts


def _short_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc)[:300]


def format_transcript(transcript: Sequence[dict[str, Any]]) -> str:
    """Render ``[{role, content}]`` one turn per line."""
    return "\n".join(f"{t.get('role', 'user')}: {str(t.get('content', '')).strip()}" for t in transcript)


async def extract_with_model(
    model: BaseChatModel,
    transcript: Sequence[dict[str, Any]],
    current_concept: str | None,
    *,
    vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
    max_notes: int = MAX_NOTES,
) -> tuple[list[NoteDraft], list[Failure], int]:
    """Ask ``model`` for notes; return valid drafts, failures and attempts used.

    One retry covers both malformed JSON and individually invalid notes; notes
    still invalid after it are failures, the valid ones are kept.
    """
    history: list[BaseMessage] = [
        SystemMessage(EXTRACT_SYSTEM.format(max_notes=max_notes, vocabulary=", ".join(vocabulary))),
        HumanMessage(
            EXTRACT_HUMAN.format(
                current_concept=current_concept or "(none)",
                transcript=format_transcript(transcript),
            )
        ),
    ]
    attempts = 2
    for attempt in range(1, attempts + 1):
        reply = await model.ainvoke(history)
        text = reply.text
        try:
            result = ExtractionResult.model_validate(parse_json_text(text))
        except (ValueError, ValidationError) as exc:
            error = _short_error(exc)
            if attempt == attempts:
                return (
                    [],
                    [Failure(stage="extract", concept=None, error=error, attempts=attempt)],
                    attempt,
                )
            history += [AIMessage(content=text), HumanMessage(RETRY_HUMAN.format(error=error))]
            continue
        drafts, failures = _validate_drafts(result.notes[:max_notes], vocabulary, attempt)
        if not failures or attempt == attempts:
            return drafts, failures, attempt
        errors = "; ".join(f"note {f['concept'] or '?'}: {f['error']}" for f in failures)
        history += [AIMessage(content=text), HumanMessage(RETRY_HUMAN.format(error=errors))]
    raise AssertionError("unreachable")


def _validate_drafts(
    raw_notes: list[dict[str, Any]], vocabulary: Sequence[str], attempt: int
) -> tuple[list[NoteDraft], list[Failure]]:
    drafts: list[NoteDraft] = []
    failures: list[Failure] = []
    for raw in raw_notes:
        try:
            draft = NoteDraft.model_validate(raw)
        except ValidationError as exc:
            concept = raw.get("concept") if isinstance(raw, dict) else None
            failures.append(
                Failure(stage="extract", concept=concept, error=_short_error(exc), attempts=attempt)
            )
            continue
        draft.tags = filter_tags(draft.tags, tuple(vocabulary))
        drafts.append(draft)
    return drafts, failures


# --- offline extractor -------------------------------------------------------


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


def _concept_stems(concept: str) -> set[str]:
    # "sql.joins" is matched by its most specific segment, "joins".
    specific = concept.lower().rsplit(".", 1)[-1]
    return {_stem(w) for w in _WORD.findall(specific) if w not in _STOP}


def _salient_phrases(sentences: list[tuple[bool, str]], exclude: set[str], limit: int) -> list[str]:
    counts: Counter[str] = Counter()
    in_learner: set[str] = set()
    in_tutor: set[str] = set()
    first: dict[str, int] = {}
    for index, (is_learner, sentence) in enumerate(sentences):
        words = [w for w in _WORD.findall(sentence.lower())]
        grams = [w for w in words if w not in _STOP and len(w) >= 4]
        grams += [
            f"{a} {b}"
            for a, b in zip(words, words[1:], strict=False)
            if a not in _STOP and b not in _STOP and len(a) >= 3 and len(b) >= 3
        ]
        for gram in set(grams):
            key = " ".join(_stem(w) for w in gram.split())
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
    exclude = _concept_stems(concepts[0]) if concepts else set()
    concepts += _salient_phrases(sentences, exclude, max_notes - len(concepts))
    # Subject tags of the session's concept ("sql.joins" -> sql) apply to every note.
    subject = filter_tags(concepts[0].replace(".", " ").split(), tuple(vocabulary)) if concepts else []
    drafts: list[NoteDraft] = []
    for concept in concepts[:max_notes]:
        stems = _concept_stems(concept) or {concept.lower()}
        others = [_concept_stems(c) for c in concepts if c != concept]

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
        related = [c for c in other_concepts if _concept_stems(c) <= content_stems(" ".join(source))]
        words = Counter(
            w
            for s in source
            for w in _WORD.findall(s.lower())
            if w not in _STOP and len(w) >= 4 and _stem(w) not in stems
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
    tags = [t for t in vocabulary if _stem(t) in present or t in present]
    if any(_STRUGGLE.search(s) for s in learner):
        tags.append("struggle")
    if any(_MISCONCEPTION.search(s) for s in tutor):
        tags.append("misconception")
    if has_example:
        tags.append("example")
    return filter_tags(tags, tuple(vocabulary)) or (["general"] if "general" in vocabulary else [])


async def extract_notes(
    model: BaseChatModel,
    transcript: Sequence[dict[str, Any]],
    current_concept: str | None,
    *,
    vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
    max_notes: int = MAX_NOTES,
) -> tuple[list[NoteDraft], list[Failure], dict[str, Any]]:
    """Drafts, failures and audit facts (extractor, model, attempts) for one session."""
    if is_offline_policy(model):
        drafts = offline_extract(transcript, current_concept, vocabulary=vocabulary, max_notes=max_notes)
        return drafts, [], {"extractor": "offline", "model": "offline-extractor/1", "attempts": 1}
    drafts, failures, attempts = await extract_with_model(
        model, transcript, current_concept, vocabulary=vocabulary, max_notes=max_notes
    )
    return drafts, failures, {"extractor": "llm", "model": model_label(model), "attempts": attempts}


def concept_count(draft: NoteDraft, session_concepts: Sequence[str]) -> int:
    """Atomicity: how many distinct session concepts the note's body mentions (≥ 1).

    A concept that generalises or specialises the note's own ("joins" and
    "left join") belongs to the same family and is not counted again.
    """
    body = content_stems(" ".join([draft.definition, draft.personal_example, draft.key_insight]))
    own = _concept_stems(draft.concept)
    count = 1
    for other in session_concepts:
        stems = _concept_stems(other) or {other.lower()}
        if other != draft.concept and not (stems <= own or own <= stems) and stems <= body:
            count += 1
    return count
