"""Recursive summaries for auto-archive (MemGPT's recursive summarisation).

With a real chat model the summary is written by the model, folding in the
previous summary. The offline policy is not an LLM, so it gets an *extractive* summary: the first sentence
of each evicted message (not the policy's own replies), appended to the previous summary
and capped at ``MAX_SUMMARY_CHARS`` by dropping the oldest lines.
If the model fails or times out, ``SummaryFailedError`` tells the caller to
archive the raw text instead (the design's error matrix).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig

from agent.heartbeat.prompts import SUMMARY_INSTRUCTIONS
from agent.models.chat import is_offline_policy
from agent.models.offline_policy import OFFLINE_BANNER, is_policy_reply

MAX_SUMMARY_CHARS = 2000
SUMMARY_TIMEOUT_S = 30.0
_FIRST_SENTENCE = re.compile(r"^(.{1,200}?[.!?])(\s|$)", re.S)


class SummaryFailedError(RuntimeError):
    """The model could not summarise; archive the raw text instead."""


def role_of(message: AnyMessage) -> str:
    """The design's role name of a queue message."""
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, ToolMessage):
        return "tool"
    if message.type == "system":
        return "summary"
    return "assistant"


def render_excerpt(messages: Sequence[AnyMessage]) -> str:
    """Messages as ``role: text`` lines (tool calls shown by name)."""
    lines = []
    for message in messages:
        text = message.text.replace(OFFLINE_BANNER, "").strip()
        calls = getattr(message, "tool_calls", None) or []
        if calls:
            text = (text + " " if text else "") + ", ".join(f"calls {c['name']}({c['args']})" for c in calls)
        lines.append(f"{role_of(message)}: {text}")
    return "\n".join(lines)


def _tool_gist(message: ToolMessage) -> str:
    """One line for a tool result: hit counts and the top hit, or the status."""
    try:
        data = json.loads(message.text)
    except ValueError:
        return message.text[:200]
    if isinstance(data, dict) and isinstance(data.get("results"), list):
        hits = data["results"]
        top = f"; top: {str(hits[0].get('text', ''))[:140]}" if hits else ""
        return f"{message.name} found {len(hits)} result(s){top}"
    if isinstance(data, dict) and data.get("ok"):
        return f"{message.name} ok ({data.get('section') or data.get('id') or 'stored'})"
    return f"{message.name}: {message.text[:160]}"


def extractive_summary(previous: str, messages: Sequence[AnyMessage]) -> str:
    """The offline summary: first sentences of evicted messages, folded into ``previous``."""
    lines = [line for line in previous.splitlines() if line.strip()]
    for message in messages:
        if role_of(message) == "summary" or is_policy_reply(message):
            continue  # the offline policy's own replies are boilerplate, not learner data
        if isinstance(message, ToolMessage):
            lines.append(f"- tool: {_tool_gist(message)}")
            continue
        calls = getattr(message, "tool_calls", None) or []
        if calls and not message.text.strip():
            lines.append("- assistant: called " + ", ".join(c["name"] for c in calls))
            continue
        text = " ".join(message.text.replace(OFFLINE_BANNER, "").split())
        if not text:
            continue
        match = _FIRST_SENTENCE.match(text)
        sentence = match.group(1) if match else text[:200]
        lines.append(f"- {role_of(message)}: {sentence}")
    while lines and sum(len(line) + 1 for line in lines) > MAX_SUMMARY_CHARS:
        lines.pop(0)
    return "\n".join(lines)


async def summarise(
    model: BaseChatModel,
    previous: str,
    messages: Sequence[AnyMessage],
    *,
    timeout: float = SUMMARY_TIMEOUT_S,
    config: RunnableConfig | None = None,
) -> str:
    """Summarise ``messages`` folding in ``previous``; raise ``SummaryFailedError`` on failure.

    ``config`` (trace metadata and tags) is passed to the model call.
    """
    if is_offline_policy(model):
        return extractive_summary(previous, messages)
    prompt = SUMMARY_INSTRUCTIONS.format(previous=previous or "(none)", excerpt=render_excerpt(messages))
    try:
        reply = await asyncio.wait_for(model.ainvoke([HumanMessage(content=prompt)], config), timeout)
    except Exception as exc:  # noqa: BLE001 - any model failure means raw archive
        raise SummaryFailedError(f"{type(exc).__name__}: {exc}") from exc
    text = reply.text.strip()
    if not text:
        raise SummaryFailedError("the model returned an empty summary")
    return text[: MAX_SUMMARY_CHARS * 2]
