"""The language layer's questions to an LLM, with structured output and the offline layer behind it.

``read_request`` asks a chat model what one learner request calls for (``Reading``: the intent,
and for a reminder request its task and trigger) through ``with_structured_output``. Local
models often answer with invalid JSON or leave fields out (the most reported failure of Mem0,
Graphiti and Cognee with local models): then the offline layer answers instead
(``read_offline``: ``agent.language.intents``, ``agent.language.reminders``), the run logs a
warning naming the reason, and the request is never dropped. A model that cannot fill a
schema (the offline policy, a scripted fake, ``None``) is not asked.

The heartbeat does not call this on every turn: the design allows one model call per turn
(``agent.heartbeat.effort``), so the turn's intent stays the local classifier's.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from agent.language.intents import Intent, intent_of
from agent.language.reminders import parse_reminder
from agent.models.capabilities import has_structured_output

log = logging.getLogger("kag.language")

TIMEOUT_SECONDS = 15.0
"""A model answer slower than this counts as missing: the offline layer answers."""
INSTRUCTIONS = (
    "Read one request a learner wrote to their tutor. Say which effort it calls for (intent): "
    "simple_recall for one fact, a statement or chat; computation for arithmetic over remembered "
    "numbers; temporal_comparison for an order or change over time; multi_source_synthesis for a "
    "summary across many memories; contradiction_resolution for the current value of something "
    "that changes; procedural for the learner's own steps. If it asks to be reminded, give the task "
    "and what triggers it (topics, or a time phrase); otherwise leave them null."
)


class Reading(BaseModel):
    """What one learner request calls for."""

    intent: Intent = Field(description="The effort the request calls for.")
    reminder_task: str | None = Field(description="For a reminder request: what to remind of, else null.")
    reminder_trigger: str | None = Field(
        description="For a reminder request: the topic(s) or time that fire it, else null."
    )


def read_offline(text: str, now: datetime) -> Reading:
    """The offline layer's reading of ``text``."""
    reminder = parse_reminder(text, now=now)
    if reminder is None:
        return Reading(intent=intent_of(text), reminder_task=None, reminder_trigger=None)  # type: ignore[arg-type]
    trigger = ", ".join(reminder["keywords"]) or reminder.get("concept") or reminder.get("due_at")
    return Reading(intent="simple_recall", reminder_task=reminder["description"], reminder_trigger=trigger)


async def _ask(model: BaseChatModel, text: str) -> Reading:
    runnable = model.with_structured_output(Reading)
    prompt = [SystemMessage(content=INSTRUCTIONS), HumanMessage(content=text)]
    answer: Any = await asyncio.wait_for(runnable.ainvoke(prompt), TIMEOUT_SECONDS)
    if answer is None:
        raise ValueError("no structured answer (malformed or missing)")
    return Reading.model_validate(answer if isinstance(answer, Mapping) else answer.model_dump())


async def read_request(model: BaseChatModel | None, text: str, *, now: datetime) -> tuple[Reading, str]:
    """``(reading, "model" | "offline")``: the model's structured answer, else the offline layer's."""
    if model is None or not has_structured_output(model):
        return read_offline(text, now), "offline"
    try:
        return await _ask(model, text), "model"
    except (ValidationError, ValueError, TimeoutError, NotImplementedError) as exc:
        reason = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        log.warning("language model answer unusable (%s); the offline layer answers", reason)
    except Exception as exc:  # noqa: BLE001 - a model failure must never drop the learner's request
        log.warning("language model call failed (%s); the offline layer answers", type(exc).__name__)
    return read_offline(text, now), "offline"
