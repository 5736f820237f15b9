"""Run the model's tool calls with the design's guardrails.

- Unknown tool, malformed arguments and expected failures (``KAGError``, LangChain's
  ``ToolException``): logged without a traceback, the error text goes to the queue and the
  loop continues.
- Arguments that are not a JSON object, hold invalid Unicode or nest deeper than
  ``MAX_ARG_DEPTH`` are refused before the tool runs, naming the argument.
- Anything else is a bug: logged with its traceback, and the model still gets an error
  message, so the loop goes on.

The learner id is injected here from state; a ``learner_id`` the model supplies
is discarded, so no model output can address another learner's memory.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import ToolCall, ToolMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, ToolException
from pydantic import ValidationError

from agent.errors import InvalidInputError, KAGError

log = logging.getLogger(__name__)
INJECTED_ARGS = ("learner_id", "knobs", "state")
"""Hidden arguments the graph supplies; any the model sends are dropped."""
MAX_ARG_DEPTH = 32
"""How deeply a tool call's arguments may nest (lists and objects)."""


@dataclass
class ToolRunResult:
    """What one ``act`` phase produced."""

    messages: list[ToolMessage] = field(default_factory=list)
    """One tool message per call, in call order."""
    outputs: list[dict[str, Any]] = field(default_factory=list)
    """Parsed JSON outputs of successful calls (``{}`` for failures)."""
    errors: int = 0
    """Calls that failed (unknown tool, bad arguments, exception)."""
    unknown: int = 0
    """Calls to tools that are not registered."""


def error_message(call: ToolCall, text: str) -> ToolMessage:
    """The tool message that tells the model its call failed, and why."""
    return ToolMessage(
        content=f"ERROR: {text}", tool_call_id=call["id"] or "", name=call["name"], status="error"
    )


async def run_tool_calls(
    calls: Sequence[ToolCall],
    registry: Mapping[str, BaseTool],
    injected: Mapping[str, Any],
    config: RunnableConfig | None = None,
) -> ToolRunResult:
    """Execute ``calls`` one after another, never raising for a tool's failure.

    ``config`` (trace metadata and tags) is passed to every tool call.
    """
    result = ToolRunResult()
    for call in calls:
        name = call.get("name")
        tool = registry.get(name) if isinstance(name, str) else None
        failure: str | None = None
        if tool is None:
            log.warning("tool not found: %s", call["name"])
            result.unknown += 1
            failure = f"no tool named {_safe(str(call['name']))!r}. Available: {', '.join(sorted(registry))}."
        else:
            try:
                args = _model_args(call.get("args"))
            except InvalidInputError as exc:
                log.error("tool %s got malformed arguments: %s", name, exc)
                failure = f"malformed arguments for {name}: {exc}"
        if tool is not None and failure is None:
            try:
                raw = await tool.ainvoke({**args, **_declared(tool, injected)}, config)
            except ValidationError as exc:
                log.error("tool %s got malformed arguments: %s", call["name"], exc)
                failure = f"malformed arguments for {call['name']}: {_brief(exc)}"
            except (KAGError, ToolException) as exc:
                log.error("tool %s failed: %s", call["name"], exc)
                failure = f"{call['name']} failed: {exc}"
            except Exception as exc:  # a bug in a tool: keep the traceback, keep the loop going
                log.exception("tool %s raised unexpectedly", call["name"])
                failure = f"{call['name']} failed with an internal error ({type(exc).__name__})"
        if failure is not None:
            result.errors += 1
            result.messages.append(error_message(call, failure))
            result.outputs.append({})
            continue
        text = raw if isinstance(raw, str) else json.dumps(raw, default=str)
        result.messages.append(ToolMessage(content=text, tool_call_id=call["id"] or "", name=call["name"]))
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = {"text": text}
        result.outputs.append(parsed if isinstance(parsed, dict) else {"value": parsed})
    return result


def _declared(tool: BaseTool, injected: Mapping[str, Any]) -> Mapping[str, Any]:
    """The injected arguments ``tool`` declares (all of them when its schema is not a model).

    A tool drops arguments it does not declare anyway, but LangChain renders the input it was
    given into its ``on_tool_start`` callback text first, and only hides the injected arguments
    the tool declares: an undeclared ``state`` would ``repr`` the whole FIFO queue on every call.
    """
    schema = tool.args_schema
    if schema is None or isinstance(schema, dict):
        return injected
    fields = schema.model_fields
    return {k: v for k, v in injected.items() if k in fields}


def _model_args(raw: object) -> dict[str, Any]:
    """The model's arguments, minus injected ones; ``InvalidInputError`` when unusable."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"arguments must be a JSON object, got {type(raw).__name__}")
    args: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise InvalidInputError(f"argument names must be strings, got {key!r}")
        _check_value(key, value, f"argument {_safe(key)!r}", 0)
        if key not in INJECTED_ARGS:
            args[key] = value
    return args


def _check_value(key: str, value: object, where: str, depth: int) -> None:
    _check_str(key, where)
    if depth > MAX_ARG_DEPTH:
        raise InvalidInputError(f"{where} nests deeper than {MAX_ARG_DEPTH} levels")
    if isinstance(value, str):
        _check_str(value, where)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            _check_value(k if isinstance(k, str) else str(k), v, where, depth + 1)
    elif isinstance(value, list | tuple):
        for v in value:
            _check_value("", v, where, depth + 1)


def _check_str(text: str, where: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise InvalidInputError(f"{where} is not valid Unicode text (it holds a lone surrogate)") from None


def _safe(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")[:80]


def _brief(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors()[:5])
    return str(exc)[:300]
