"""The consultation's brief: the chat model's structured summary, or a deterministic template.

**Model** (``has_structured_output``: a real LLM, never the offline policy or a fake):
``with_structured_output(Brief)`` on ``BRIEF_INSTRUCTIONS`` plus the evidence as
numbered lines, within ``BRIEF_TIMEOUT_SECONDS``. A failure or an empty brief falls back
to the template (logged), so a consultation never fails on the model.

**Template** (offline, and the fallback): a headline with the count and confidence, then
one line per section that has content (current facts only, core knowledge, insights,
patterns, alerts), each item cut to ``ITEM_CHARS`` and at most ``ITEMS`` per section. The
same evidence always gives the same text.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from agent.models.capabilities import has_structured_output
from agent.tracing import trace_config

log = logging.getLogger(__name__)

ITEMS = 5
ITEM_CHARS = 160
QUERY_CHARS = 200
BRIEF_TIMEOUT_SECONDS = 20.0
BRIEF_INSTRUCTIONS = """You are the memory kernel of a tutor. Write a brief for the tutor about the
learner, answering the consultation query from the evidence below only. 2-5 sentences. State
current facts plainly, mention insights, patterns and alerts when they matter, and say when
the evidence is thin. Never invent anything that is not in the evidence."""


class Brief(BaseModel):
    """The model's structured brief."""

    brief: str = Field(description="2-5 sentences for the tutor, from the evidence only.")


def confidence_label(value: float) -> str:
    """``none``, ``low``, ``medium`` or ``high`` (module docstring)."""
    if value <= 0:
        return "none"
    if value < 0.35:
        return "low"
    return "medium" if value < 0.7 else "high"


def _cut(text: object, limit: int = ITEM_CHARS) -> str:
    value = " ".join(str(text or "").split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _line(title: str, items: Sequence[str]) -> str | None:
    kept = [i for i in items if i][:ITEMS]
    return f"{title}: {' | '.join(kept)}" if kept else None


def _alert(alert: Mapping[str, Any]) -> str:
    kind = "recurring error" if alert.get("kind") == "recurring_error" else str(alert.get("kind"))
    return f"{kind}: {_cut(alert.get('text'))}"


def _pattern(pattern: Mapping[str, Any]) -> str:
    concept = f" ({pattern['concept']})" if pattern.get("concept") else ""
    return f"{_cut(pattern.get('description'))}{concept}"


def current_facts(evidence: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The evidence's facts presented as current: every row but a superseded fact (``current: false``)."""
    return [f for f in evidence.get("facts") or [] if f.get("current") is not False]


def template_brief(query: str, evidence: Mapping[str, Any], confidence: float) -> str:
    """The deterministic brief of ``evidence`` (facts, core, insights, patterns, alerts)."""
    facts = current_facts(evidence)
    core = evidence.get("core") or []
    insights = evidence.get("insights") or []
    patterns = evidence.get("patterns") or []
    alerts = evidence.get("alerts") or []
    found = len(facts) + len(insights) + len(patterns)
    quoted = _cut(query, QUERY_CHARS)
    score = f"confidence {confidence:.2f}, {confidence_label(confidence)}"
    if not found:
        head = f'Consultation on "{quoted}": nothing in memory matches yet ({score}).'
    else:
        head = f'Consultation on "{quoted}": {found} memories found ({score}).'
    lines = [
        head,
        _line("Facts", [_cut(f.get("text")) for f in facts]),
        _line("Core knowledge", [_cut(f.get("text")) for f in core]),
        _line("Insights", [_cut(i.get("text")) for i in insights]),
        _line("Patterns", [_pattern(p) for p in patterns]),
        _line("Alerts", [_alert(a) for a in alerts]),
    ]
    return "\n".join(line for line in lines if line)


def _evidence_prompt(query: str, context: str, evidence: Mapping[str, Any], confidence: float) -> str:
    parts = [f"QUERY: {query}"]
    if context:
        parts.append(f"CONTEXT: {_cut(context, 2000)}")
    sections = (
        ("FACTS", [f.get("text") for f in current_facts(evidence)]),
        ("CORE KNOWLEDGE", [f.get("text") for f in evidence.get("core") or []]),
        ("INSIGHTS", [i.get("text") for i in evidence.get("insights") or []]),
        ("PATTERNS", [_pattern(p) for p in evidence.get("patterns") or []]),
        ("ALERTS", [_alert(a) for a in evidence.get("alerts") or []]),
    )
    for title, items in sections:
        if items:
            parts.append(title + "\n" + "\n".join(f"{n}. {_cut(t, 400)}" for n, t in enumerate(items, 1)))
    parts.append(f"RETRIEVAL CONFIDENCE: {confidence:.2f}")
    return "\n\n".join(parts)


async def synthesise(
    model: BaseChatModel | None,
    learner_id: str,
    query: str,
    context: str,
    evidence: Mapping[str, Any],
    confidence: float,
) -> tuple[str, str]:
    """``(brief, method)``: the model's brief (``"model"``) or the template (``"template"``)."""
    if has_structured_output(model):
        try:
            runnable = model.with_structured_output(Brief)  # type: ignore[union-attr]
            prompt = [
                SystemMessage(content=BRIEF_INSTRUCTIONS),
                HumanMessage(content=_evidence_prompt(query, context, evidence, confidence)),
            ]
            reply = await asyncio.wait_for(
                runnable.ainvoke(prompt, trace_config(learner_id, "consult")), BRIEF_TIMEOUT_SECONDS
            )
            text = reply.get("brief") if isinstance(reply, Mapping) else getattr(reply, "brief", None)
            if isinstance(text, str) and text.strip():
                return text.strip(), "model"
            log.warning("the model returned no brief; using the template")
        except Exception as exc:  # noqa: BLE001 - a brief must never fail a consultation
            log.warning("brief synthesis failed (%s); using the template", type(exc).__name__)
    return template_brief(query, evidence, confidence), "template"
