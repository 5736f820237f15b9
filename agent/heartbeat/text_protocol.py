"""The design's text markers for models without native tool calling.

``[FUNCTION] tool_name(arg="v", n=1)`` or ``[FUNCTION] tool_name({"arg": "v"})``
calls a tool; ``[FINAL_ANSWER] text`` ends the turn. Anything else without a
marker counts as a final answer. Malformed arguments raise ``ToolCallSyntaxError``
whose message goes back to the model as a tool error: that includes arguments
nested too deeply to parse, and ones that are not literals. Values of the wrong
type (``query=None``, a dict, a list) parse, and the tool runner turns them into
a tool error against the tool's schema.

List arguments are Python or JSON list literals and may span lines; a list given as one
string (``steps="a, then b"``) is not split: the tool's schema refuses it, so the model
learns the list form from the error.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import uuid
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import AIMessage

_FUNCTION = re.compile(r"^\s*\[FUNCTION\]\s*([A-Za-z_][\w]*)\s*\((.*)\)\s*$", re.S)
_FUNCTION_HEAD = re.compile(r"^\s*\[FUNCTION\]\s*([A-Za-z_][\w]*)?", re.S)
_FINAL = re.compile(r"^\s*\[FINAL_ANSWER\]\s*(.*)$", re.S)


class ToolCallSyntaxError(ValueError):
    """A ``[FUNCTION]`` line whose arguments cannot be parsed."""

    def __init__(self, tool_name: str, problem: str) -> None:
        """Remember which tool the model tried to call."""
        self.tool_name = tool_name or "unknown"
        super().__init__(
            f"Malformed [FUNCTION] call to {self.tool_name!r}: {problem}. "
            'Use: [FUNCTION] tool_name(arg="value", other=1)'
        )


@dataclass(frozen=True)
class ParsedReply:
    """A parsed model reply: a tool call or a final answer."""

    tool_name: str | None
    args: dict[str, Any]
    final_text: str | None

    @property
    def call_id(self) -> str:
        """A stable id for the tool call, derived from its content."""
        blob = json.dumps([self.tool_name, self.args], sort_keys=True, default=str)
        return "text-" + hashlib.sha1(blob.encode()).hexdigest()[:12]


def parse_reply(text: str) -> ParsedReply:
    """Parse one reply in the text protocol."""
    final = _FINAL.match(text)
    if final:
        return ParsedReply(None, {}, final.group(1).strip())
    head = _FUNCTION_HEAD.match(text)
    if not head:
        return ParsedReply(None, {}, text.strip())
    match = _FUNCTION.match(text)
    if not match:
        raise ToolCallSyntaxError(head.group(1) or "", "expected tool_name(arguments)")
    name, raw = match.group(1), match.group(2).strip()
    return ParsedReply(name, _parse_args(name, raw), None)


def _parse_args(name: str, raw: str) -> dict[str, Any]:
    if not raw:
        return {}
    if raw.startswith("{"):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ToolCallSyntaxError(name, f"invalid JSON object ({exc.msg})") from exc
        except (RecursionError, MemoryError, ValueError) as exc:
            raise ToolCallSyntaxError(
                name, f"JSON arguments are too large or too deep ({type(exc).__name__})"
            ) from exc
        if not isinstance(value, dict):
            raise ToolCallSyntaxError(name, "JSON arguments must be an object")
        return value
    try:
        call = ast.parse(f"f({raw})", mode="eval").body
    except SyntaxError as exc:
        raise ToolCallSyntaxError(name, f"cannot parse arguments ({exc.msg})") from exc
    except (RecursionError, MemoryError, ValueError) as exc:  # nesting, NUL bytes, huge literals
        raise ToolCallSyntaxError(name, f"cannot parse arguments ({type(exc).__name__})") from exc
    if not isinstance(call, ast.Call) or call.args:
        raise ToolCallSyntaxError(name, "use keyword arguments only")
    args: dict[str, Any] = {}
    for keyword in call.keywords:
        if keyword.arg is None:
            raise ToolCallSyntaxError(name, "**kwargs are not allowed")
        try:
            args[keyword.arg] = ast.literal_eval(keyword.value)
        except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError) as exc:
            raise ToolCallSyntaxError(name, f"argument {keyword.arg!r} is not a literal") from exc
    return args


def parse_text_reply(reply: AIMessage) -> AIMessage:
    """Turn a text-protocol reply into a tool call, a final answer, or a tool error."""
    try:
        parsed = parse_reply(reply.text)
    except ToolCallSyntaxError as exc:
        call_id = f"text-malformed-{uuid.uuid4().hex[:8]}"
        return AIMessage(
            content=reply.text,
            tool_calls=[{"name": exc.tool_name, "args": {}, "id": call_id, "type": "tool_call"}],
            additional_kwargs={"malformed_call": str(exc)},
            id=reply.id,
        )
    if parsed.tool_name:
        call = {
            "name": parsed.tool_name,
            "args": parsed.args,
            "id": parsed.call_id,
            "type": "tool_call",
        }
        return AIMessage(content=reply.text, tool_calls=[call], id=reply.id)
    return AIMessage(content=parsed.final_text or "", id=reply.id)
