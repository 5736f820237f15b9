"""What several heartbeat steps read of the turn: its Context, session, queue, prompt and events.

Each step (``receive``, ``monitor``, ``archive``, ``compile``, ``think``, ``act``, ``notes``)
lives in its own module; what more than one of them needs lives here, so no step module
imports another.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from langchain_core.messages import AnyMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.context import Context
from agent.heartbeat.summarizer import role_of
from agent.heartbeat.working_memory import compile_prompt
from agent.memory.recall import RecallMessage
from agent.turns import CALL_MARK, turn_context_id

SUMMARY_NAME = "recursive_summary"
"""Name of the ``SystemMessage`` at the head of the queue that holds the recursive summary."""


def run_context(runtime: Runtime[Context]) -> Context:
    """The run's Context: defaults when none was passed, ``ConfigError`` naming the field when bad."""
    return Context.coerce(runtime.context)


def emit(runtime: Runtime[Context], phase: str, **data: Any) -> None:
    """Stream a custom ``{"phase": ...}`` event (``stream_mode="custom"``)."""
    runtime.stream_writer({"phase": phase, **data})


def session_id(state: Mapping[str, Any], config: RunnableConfig) -> str:
    """The session recall storage groups messages by: the request's, else the thread id."""
    configurable = config.get("configurable", {})
    return str(state.get("context", {}).get("session_id") or configurable.get("thread_id") or "default")


def split_summary(queue: list[AnyMessage]) -> tuple[str, list[AnyMessage]]:
    """Separate the recursive summary at the head of the queue from the rest."""
    if queue and isinstance(queue[0], SystemMessage) and queue[0].name == SUMMARY_NAME:
        return queue[0].text, queue[1:]
    return "", queue


def build_prompt(state: Mapping[str, Any], ctx: Context, extra_system: str = "") -> list[AnyMessage]:
    """The model's prompt: system and core memory (with the summary and ``extra_system``), then the queue."""
    summary, queue = split_summary(state.get("fifo_queue", []))
    text, slots = ctx.tool_protocol == "text", state.get("slots") or []
    prompt = compile_prompt(state.get("core_memory", {}), queue, text_protocol=text, slots=slots)
    head = prompt[0].text
    if summary:
        head += f"\n\nRECURSIVE SUMMARY (earlier conversation, archived)\n{summary}"
    if extra_system:
        head += f"\n\n{extra_system}"
    return [SystemMessage(content=head), *prompt[1:]]


def recall_message(message: AnyMessage, attended: list[dict] | None = None) -> RecallMessage:
    """``message`` for recall storage; ``attended``: the sensory traces it promotes (``ATTENDED_TO``)."""
    text = message.text
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        text = (text + " " if text else "") + " ".join(f"{CALL_MARK}{c['name']}({c['args']})]" for c in calls)
    return RecallMessage(
        id=str(message.id), role=role_of(message), content=text or "(empty)", attended=attended or None
    )


def with_id(message: AnyMessage) -> AnyMessage:
    """``message`` with an id (a fresh one when it had none)."""
    if not message.id:
        message.id = str(uuid.uuid4())
    return message


def current_requests(state: Mapping[str, Any]) -> set[str]:
    """Ids of the request being served: a search hit on it is no evidence.

    Its recall message, and the ``turn_context`` memory the kernel worker derives from it
    (a background worker may drain the request before this turn's search runs).
    """
    queue = state.get("fifo_queue") or []
    last = next((m for m in reversed(queue) if isinstance(m, HumanMessage)), None)
    if last is None or not last.id:
        return set()
    return {str(last.id), turn_context_id(str(last.id))}


def unique(*lists: Iterable[str]) -> list[str]:
    """The items of ``lists`` in order, each once."""
    return list(dict.fromkeys(x for items in lists for x in items))


def store_of(stores: object, name: str) -> Any:
    """A cognitive store of the bundle, or None when this bundle has none (the step is skipped)."""
    return getattr(stores, name, None)
