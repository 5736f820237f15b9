"""Optional: a chat model with structured output phrases an insight's text.

Offline insights keep the rules' template text (``synthesis``). With a model that supports
``with_structured_output``, an insight being written anyway gets its ``text`` rephrased from
the template alone, never the learner's messages. Reruns compare ``rules_text``, so a
rephrased text never makes a rerun write again; a failure keeps the template.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field

from agent.models.capabilities import has_structured_output
from agent.tracing import trace_config

log = logging.getLogger(__name__)

PHRASE_TIMEOUT_SECONDS = 10.0
PHRASE_CONCURRENCY = 4
"""Model calls in flight at once (a run writes at most ``limit`` insights)."""
PHRASE_INSTRUCTIONS = (
    "You rewrite one learning-analytics insight about a learner for their tutor, in one or two "
    "plain sentences. Keep the concept, every number and the date; add no fact that is not in it."
)


class InsightText(BaseModel):
    """The model's phrasing of one insight."""

    text: str = Field(min_length=1, max_length=600)


async def phrase(model: BaseChatModel | None, learner_id: str, template: str) -> tuple[str, str]:
    """``(text, phrased_by)``: the model's phrasing (``"model"``) or the template (``"rules"``)."""
    if not has_structured_output(model):
        return template, "rules"
    try:
        runnable = model.with_structured_output(InsightText)  # type: ignore[union-attr]
        prompt = [SystemMessage(content=PHRASE_INSTRUCTIONS), HumanMessage(content=template)]
        reply = await asyncio.wait_for(
            runnable.ainvoke(prompt, trace_config(learner_id, "reflection")), PHRASE_TIMEOUT_SECONDS
        )
        text = reply.get("text") if isinstance(reply, Mapping) else getattr(reply, "text", None)
        if isinstance(text, str) and text.strip():
            return text.strip()[:600], "model"
        log.warning("the model returned no insight text; keeping the template")
    except Exception as exc:  # noqa: BLE001 - phrasing must never fail reflection
        log.warning("insight phrasing failed (%s); keeping the template", type(exc).__name__)
    return template, "rules"


async def phrase_all(
    model: BaseChatModel | None, learner_id: str, templates: list[str]
) -> list[tuple[str, str]]:
    """:func:`phrase` for each template, ``PHRASE_CONCURRENCY`` at a time, in order."""
    if not has_structured_output(model):
        return [(t, "rules") for t in templates]
    gate = asyncio.Semaphore(PHRASE_CONCURRENCY)

    async def one(template: str) -> tuple[str, str]:
        async with gate:
            return await phrase(model, learner_id, template)

    return list(await asyncio.gather(*(one(t) for t in templates)))
