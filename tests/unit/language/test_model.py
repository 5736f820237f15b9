"""The language layer with an LLM: malformed or partial structured output falls back, logged."""

from __future__ import annotations

import logging
from datetime import UTC, datetime

from langchain_core.messages import AIMessage

from agent.language.model import read_sentence
from tests.scripted_models import ScriptedChatModel

NOW = datetime(2026, 2, 2, 18, 0, tzinfo=UTC)
SENTENCE = "Before we start recursion, remind me to revisit the call stack."


def _tool_call(args: dict) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": "Reading", "args": args, "id": "c1", "type": "tool_call"}]
    )


async def test_malformed_json_falls_back_to_the_offline_layer_and_logs(caplog) -> None:
    model = ScriptedChatModel(responses=[AIMessage(content='{"act": "remind", "task": ')])
    with caplog.at_level(logging.WARNING, logger="kag.language"):
        reading, source = await read_sentence(model, SENTENCE, now=NOW)
    assert source == "offline"
    assert (reading.act, reading.task, reading.trigger) == ("remind", "revisit the call stack", "recursion")
    assert "offline layer answers" in caplog.text


async def test_missing_fields_fall_back_too(caplog) -> None:
    model = ScriptedChatModel(responses=[_tool_call({"act": "remind"})])
    with caplog.at_level(logging.WARNING, logger="kag.language"):
        reading, source = await read_sentence(model, SENTENCE, now=NOW)
    assert source == "offline" and reading.task == "revisit the call stack"
    assert "unusable" in caplog.text


async def test_a_well_formed_answer_is_the_model_s() -> None:
    args = {"act": "state", "aspect": "job", "task": None, "trigger": None}
    model = ScriptedChatModel(responses=[_tool_call(args)])
    reading, source = await read_sentence(model, "These days I teach chemistry.", now=NOW)
    assert (source, reading.act, reading.aspect) == ("model", "state", "job")


async def test_without_a_model_the_offline_layer_answers() -> None:
    reading, source = await read_sentence(None, "My flat is in Marseille, close to the old port.", now=NOW)
    assert (source, reading.act, reading.aspect) == ("offline", "state", "residence")
