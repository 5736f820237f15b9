"""Extract atomic notes from a session transcript, through an ``Extractor`` strategy.

``extractor_for(model)`` picks the strategy once: ``ModelExtractor`` for a chat model,
``OfflineExtractor`` (``agent.notes.offline``, deterministic, not an LLM) for the
offline policy. With a chat model the reply is JSON validated by pydantic; a reply
that fails is retried once with the error quoted back. A note that still fails
becomes a ``Failure``, never a silent success.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from pydantic import BaseModel, ValidationError

from agent.models.chat import is_offline_policy
from agent.notes.models import (
    DEFAULT_TAG_VOCABULARY,
    MAX_NOTES,
    ExtractionResult,
    Failure,
    NoteDraft,
    filter_tags,
)
from agent.notes.offline import OfflineExtractor
from agent.notes.prompts import EXTRACT_HUMAN, EXTRACT_SYSTEM, RETRY_HUMAN
from agent.notes.text import concept_stems, content_stems

T = TypeVar("T", bound=BaseModel)

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.I)


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


class Extractor(Protocol):
    """Turns a transcript into note drafts, failures and audit facts."""

    async def extract(
        self,
        transcript: Sequence[dict[str, Any]],
        current_concept: str | None,
        *,
        vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
        max_notes: int = MAX_NOTES,
    ) -> tuple[list[NoteDraft], list[Failure], dict[str, Any]]:
        """Drafts, failures and audit facts (``extractor``, ``model``, ``attempts``)."""
        ...


@dataclass(frozen=True)
class ModelExtractor:
    """The ``Extractor`` strategy over a chat model."""

    model: BaseChatModel

    async def extract(
        self,
        transcript: Sequence[dict[str, Any]],
        current_concept: str | None,
        *,
        vocabulary: Sequence[str] = DEFAULT_TAG_VOCABULARY,
        max_notes: int = MAX_NOTES,
    ) -> tuple[list[NoteDraft], list[Failure], dict[str, Any]]:
        """Drafts, failures and audit facts from the model."""
        drafts, failures, attempts = await extract_with_model(
            self.model, transcript, current_concept, vocabulary=vocabulary, max_notes=max_notes
        )
        facts = {"extractor": "llm", "model": model_label(self.model), "attempts": attempts}
        return drafts, failures, facts


def extractor_for(model: BaseChatModel) -> Extractor:
    """The extraction strategy for ``model``: offline for the offline policy, else the model."""
    return OfflineExtractor() if is_offline_policy(model) else ModelExtractor(model)


def concept_count(draft: NoteDraft, session_concepts: Sequence[str]) -> int:
    """Atomicity: how many distinct session concepts the note's body mentions (≥ 1).

    A concept that generalises or specialises the note's own ("joins" and
    "left join") belongs to the same family and is not counted again.
    """
    body = content_stems(
        " ".join([draft.definition, draft.personal_example, draft.key_insight, draft.open_question])
    )
    own = concept_stems(draft.concept)
    count = 1
    for other in session_concepts:
        stems = concept_stems(other) or {other.lower()}
        if other != draft.concept and not (stems <= own or own <= stems) and stems <= body:
            count += 1
    return count
