"""What a consultation takes and returns (issue 14 §3).

The request never names the learner: the learner comes from the graph state or the
bearer token, so ``ConsultRequest`` forbids unknown fields and a ``learner_id`` in the
body is a validation error. Sizes follow ``agent.validation``: text must be valid
Unicode within its byte limit.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from agent.errors import InvalidInputError
from agent.validation import validate_text

MAX_QUERY_BYTES = 4 * 1024
"""A consultation query: a question or a topic, not a document."""
MAX_CONTEXT_BYTES = 16 * 1024
"""Optional context (the current conversation or task), used by the model's brief."""
MAX_TOPIC_BYTES = 256
"""One topic filter (a concept such as ``sql.joins``)."""
MAX_TOPICS = 10
MAX_RESULTS = 50
DEFAULT_RESULTS = 10


class ConsultRequest(BaseModel):
    """A consultation request: ``{query, context, max_results, include_insights, topic_filters}``.

    ``topic_filters`` narrow insights, patterns and core knowledge to those concepts
    (case-insensitive; ``sql`` also matches ``sql.joins``) and drop search hits tagged
    with another concept (untagged hits stay).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(description="What the caller wants to know (1 byte to 4 KB).")
    context: str = Field(default="", description="The current conversation or task (up to 16 KB).")
    max_results: int = Field(default=DEFAULT_RESULTS, ge=1, le=MAX_RESULTS, strict=True)
    include_insights: bool = Field(default=True, strict=True)
    topic_filters: list[str] = Field(default_factory=list, max_length=MAX_TOPICS)

    @field_validator("query")
    @classmethod
    def _query(cls, value: str) -> str:
        return validate_text(value, "query", MAX_QUERY_BYTES).strip()

    @field_validator("context")
    @classmethod
    def _context(cls, value: str) -> str:
        return validate_text(value, "context", MAX_CONTEXT_BYTES, allow_blank=True).strip()

    @field_validator("topic_filters")
    @classmethod
    def _topics(cls, value: list[str]) -> list[str]:
        checked = (validate_text(t, f"topic_filters[{i}]", MAX_TOPIC_BYTES) for i, t in enumerate(value))
        return sorted({topic.strip().lower() for topic in checked})


def parse_request(body: ConsultRequest | Mapping[str, Any]) -> ConsultRequest:
    """A validated request from a body; any problem is one ``InvalidInputError`` naming the field."""
    if isinstance(body, ConsultRequest):
        return body
    if not isinstance(body, Mapping):
        raise InvalidInputError(f"a consultation request must be an object, got {type(body).__name__}")
    if "learner_id" in body:
        raise InvalidInputError(
            "learner_id is not a request field: the learner comes from the authenticated token or graph state"
        )
    try:
        return ConsultRequest.model_validate(dict(body))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "request"
        raise InvalidInputError(f"{where}: {first.get('msg', 'invalid')}") from None


class ConsultResponse(BaseModel):
    """A consultation's answer.

    ``synthesized_brief`` is the model's brief (``brief_method="model"``) or the
    deterministic template (``"template"``); ``relevant_facts`` are the fused search hits
    then the high-activation core facts (``origin`` says which); ``proactive_alerts`` are
    due reminders (peeked, never fired) and recurring-error patterns about the query;
    ``confidence`` in ``[0, 1]`` comes from retrieval evidence (``agent.kernel.consult.evidence``,
    ``evidence`` holds its inputs). ``cached`` is true when the payload came from the
    5-minute cache (``request_id`` is always new).
    """

    model_config = ConfigDict(extra="forbid")

    request_id: str
    synthesized_brief: str
    relevant_facts: list[dict[str, Any]] = Field(default_factory=list)
    insights: list[dict[str, Any]] = Field(default_factory=list)
    patterns: list[dict[str, Any]] = Field(default_factory=list)
    proactive_alerts: list[dict[str, Any]] = Field(default_factory=list)
    confidence: float = Field(ge=0.0, le=1.0)
    brief_method: str = "template"
    evidence: dict[str, Any] = Field(default_factory=dict)
    cached: bool = False
