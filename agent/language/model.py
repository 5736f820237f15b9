"""The language layer's questions to an LLM, with structured output and the offline layer behind it.

``read_sentence`` asks the model what one learner sentence does and what it is about
(``Reading``: act, aspect, value, trigger, task) through ``with_structured_output``. Local
models often answer with invalid JSON or leave fields out (the most reported failure of Mem0,
Graphiti and Cognee with local models): then the offline layer answers instead
(``read_offline``: ``acts``, ``statements``, ``reminders``), the run logs a warning naming
the reason, and the sentence is never dropped. Without a model (or with the offline policy)
the offline layer answers directly.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, Field, ValidationError

from agent.language import exemplars
from agent.language.acts import is_question, is_statement
from agent.language.reminders import parse_reminder
from agent.language.statements import aspect

log = logging.getLogger("kag.language")

Act = Literal["state", "ask", "remind", "request", "other"]
TIMEOUT_SECONDS = 15.0
"""A model answer slower than this counts as missing: the offline layer answers."""
ASPECTS = tuple(label for label in exemplars.ASPECTS if label != "other")


class Reading(BaseModel):
    """What one learner sentence does and what it is about."""

    act: Act = Field(
        description="state: tells something; ask: a question; remind: asks to be reminded; "
        "request: asks the tutor to do something; other."
    )
    aspect: str | None = Field(
        description=f"For a statement about the learner: one of {', '.join(ASPECTS)}, else null."
    )
    task: str | None = Field(description="For a reminder request: what to remind of, else null.")
    trigger: str | None = Field(
        description="For a reminder request: the topic or time that fires it, else null."
    )


INSTRUCTIONS = (
    "Read one sentence a learner wrote to their tutor. Say what it does (act), which single-valued "
    "thing about the learner it states (aspect), and for a reminder request the task and its trigger."
)


def read_offline(sentence: str, now: datetime) -> Reading:
    """The offline layer's reading of ``sentence``."""
    reminder = parse_reminder(sentence, now=now)
    if reminder is not None:
        trigger = ", ".join(reminder["keywords"]) or reminder.get("concept") or reminder.get("due_at")
        return Reading(act="remind", aspect=None, task=reminder["description"], trigger=trigger)
    if is_question(sentence):
        return Reading(act="ask", aspect=None, task=None, trigger=None)
    if is_statement(sentence):
        return Reading(act="state", aspect=aspect(sentence), task=None, trigger=None)
    return Reading(act="other", aspect=None, task=None, trigger=None)


def _is_model(model: BaseChatModel | None) -> bool:
    return model is not None and getattr(model, "_llm_type", "") != "kag-offline-policy"


async def read_sentence(model: BaseChatModel | None, sentence: str, *, now: datetime) -> tuple[Reading, str]:
    """``(reading, "model" | "offline")``: the model's structured answer, else the offline layer's."""
    if not _is_model(model):
        return read_offline(sentence, now), "offline"
    try:
        runnable = model.with_structured_output(Reading)  # type: ignore[union-attr]
        prompt = [SystemMessage(content=INSTRUCTIONS), HumanMessage(content=sentence)]
        answer: Any = await asyncio.wait_for(runnable.ainvoke(prompt), TIMEOUT_SECONDS)
        if answer is None:
            raise ValueError("no structured answer (malformed or missing)")
        reading = Reading.model_validate(answer if isinstance(answer, Mapping) else answer.model_dump())
        if reading.aspect is not None and reading.aspect not in ASPECTS:
            raise ValueError(f"unknown aspect {reading.aspect!r}")
        return reading, "model"
    except (ValidationError, ValueError, TimeoutError, NotImplementedError) as exc:
        log.warning(
            "language model answer unusable (%s: %s); the offline layer answers", type(exc).__name__, exc
        )
    except Exception as exc:  # noqa: BLE001 - a model failure must never drop the learner's sentence
        log.warning("language model call failed (%s); the offline layer answers", type(exc).__name__)
    return read_offline(sentence, now), "offline"
