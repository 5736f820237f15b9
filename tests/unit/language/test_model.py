"""The LLM path of the language layer: structured answers used, malformed ones fall back and are logged."""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime
from typing import Any, ClassVar

import pytest
from langchain_core.messages import AIMessage
from langchain_core.output_parsers import PydanticOutputParser

from agent.language.model import Reading, read_request
from agent.models.capabilities import LANGUAGE_MODEL, ModelCapabilities
from tests.scripted_models import ScriptedChatModel, scripted

NOW = datetime(2026, 3, 2, 17, 0, tzinfo=UTC)
REQUEST = "Once we get to logarithms, remind me that I mix up the change of base rule."


class JsonModeModel(ScriptedChatModel):
    """A local model in JSON mode: its scripted text is parsed into the schema, as a provider's would be."""

    kag_capabilities: ClassVar[ModelCapabilities] = LANGUAGE_MODEL

    def with_structured_output(self, schema: Any, **kwargs: Any) -> Any:  # noqa: D102
        return self | PydanticOutputParser(pydantic_object=schema)


def _model(text: str) -> JsonModeModel:
    return JsonModeModel(responses=[AIMessage(content=text)])


def _read(model: Any, text: str = REQUEST) -> tuple[Reading, str]:
    return asyncio.run(read_request(model, text, now=NOW))


def test_a_well_formed_answer_is_the_models() -> None:
    answer = (
        '{"intent": "simple_recall", "reminder_task": "change of base", "reminder_trigger": "logarithms"}'
    )
    reading, source = _read(_model(answer))
    assert source == "model"
    assert (reading.reminder_task, reading.reminder_trigger) == ("change of base", "logarithms")


@pytest.mark.parametrize(
    "answer",
    [
        '{"intent": "simple_recall", "reminder_task": "change of ba',  # invalid JSON (cut off)
        '{"intent": "simple_recall"}',  # fields missing
        # no such intent
        '{"intent": "remember_everything", "reminder_task": null, "reminder_trigger": null}',
        "Sure! I will remind you.",  # prose instead of JSON
    ],
)
def test_a_malformed_answer_falls_back_to_the_offline_layer_and_is_logged(
    answer: str, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="kag.language"):
        reading, source = _read(_model(answer))
    assert source == "offline"
    assert (reading.reminder_task, reading.reminder_trigger) == (
        "I mix up the change of base rule",
        "logarithms",
    )
    assert any("offline layer answers" in r.getMessage() for r in caplog.records)


def test_models_without_structured_output_are_not_asked() -> None:
    model = scripted("never read")
    asked = len(model.prompts)
    reading, source = _read(model, "What are inner joins?")
    assert (source, reading.intent, reading.reminder_task) == ("offline", "simple_recall", None)
    assert len(model.prompts) == asked
