"""What request bodies may write: the guard's per-route refusals, shared with the auth handlers.

Values a client writes into a thread (a run's ``input`` and ``command.update``, a
state update's ``values``, a new thread's ``supersteps``) may not carry an identity
field (``learner_id``: 403), and a ``context`` among them (the heartbeat's request
context) must be valid (422) *before* it is stored: the input is written to the
thread before the first node runs, so a refused ``context.session_id`` used to stay
on the thread and fail every later run.

Routes whose bodies only the guard sees (the auth handlers get no body for them):

- ``POST /threads/{id}/state`` and ``POST /threads`` (``supersteps``);
- ``POST /threads/{id}/commands`` and the WebSocket ``/threads/{id}/stream/events``
  (LangGraph's streaming protocol): ``run.start`` drops ``context`` and ``command``
  silently and runs anyway, so either field is refused (403), as the REST run
  routes refuse what they cannot honour; its ``input`` may not carry ``learner_id``
  (the learner is the token's) and ``input.respond`` may not write it;
- ``POST /mcp`` ``tools/call``: the runtime turns an auth refusal of the run it starts into
  a 500, so the refusal is made here: neither ``arguments`` nor ``context`` may carry
  ``learner_id``.
- ``POST /store/items/search``: the runtime's schema leaves ``namespace_prefix`` optional
  but its route reads it unguarded (``{}`` was a 500, found by the property tests), so a
  search without a list there is refused (422).
"""

from __future__ import annotations

import re
from typing import Any

from agent.errors import InvalidInputError
from agent.server.json_body import BodyRefusedError
from agent.validation import validate_request_context

IDENTITY_FIELDS = frozenset({"learner_id"})
"""State fields that select whose memory a graph uses: no client may write them."""
STATE_UPDATE = re.compile(r"^/threads/[^/]+/state/?$")
THREAD_CREATE = re.compile(r"^/threads/?$")
PROTOCOL_COMMAND = re.compile(r"^/threads/[^/]+/commands/?$")
PROTOCOL_SOCKET = re.compile(r"^/threads/[^/]+/stream/events/?$")
MCP = re.compile(r"^/mcp/?$")
STORE_SEARCH = re.compile(r"^/store/items/search/?$")
STORE_PREFIX = "a store search needs namespace_prefix, a list of strings (it may be empty: [])"
IDENTITY_WRITE = "thread state updates and supersteps may not write learner_id"
DROPPED_FIELDS = (
    "run.start over the streaming protocol cannot carry {fields} (the server would drop them and "
    "run anyway); send them to POST /threads/{{thread_id}}/runs"
)
MCP_IDENTITY = "MCP tool calls may not carry learner_id: the learner is the one the token names"


def writes_identity(values: Any) -> bool:
    """True when a state update (a dict, or a list of them) writes an identity field."""
    if isinstance(values, dict):
        return bool(IDENTITY_FIELDS & set(values))
    if isinstance(values, list):
        return any(writes_identity(v) for v in values)
    return False


def update_writes_identity(update: Any) -> bool:
    """``Command.update`` is a dict, or a list of ``[key, value]`` pairs."""
    if isinstance(update, list):
        return any(
            isinstance(item, (list, tuple)) and item and item[0] in IDENTITY_FIELDS for item in update
        ) or writes_identity(update)
    return writes_identity(update)


def written_values_refusal(values: Any, detail: str = IDENTITY_WRITE) -> BodyRefusedError | None:
    """403 when ``values`` (a dict or a list of them) write ``learner_id``; 422 for a bad ``context``."""
    if writes_identity(values):
        return BodyRefusedError(403, detail)
    return context_refusal(values)


def context_refusal(values: Any) -> BodyRefusedError | None:
    """422 when ``values`` (a dict or a list of them) hold an invalid request ``context``."""
    for item in values if isinstance(values, list) else [values]:
        if isinstance(item, dict) and "context" in item:
            try:
                validate_request_context(item["context"])
            except InvalidInputError as exc:
                return BodyRefusedError(422, str(exc))
    return None


def refusal(method: str, path: str, payload: Any) -> BodyRefusedError | None:
    """Why the body ``payload`` (parsed) of ``method path`` is refused, or None."""
    if method != "POST" or not isinstance(payload, dict):
        return None
    if STATE_UPDATE.match(path):
        return written_values_refusal(payload.get("values"))
    if THREAD_CREATE.match(path):
        return written_values_refusal(_superstep_values(payload))
    if PROTOCOL_COMMAND.match(path):
        return command_refusal(payload)
    if MCP.match(path):
        return _mcp_refusal(payload)
    if STORE_SEARCH.match(path) and not _string_list(payload.get("namespace_prefix")):
        return BodyRefusedError(422, STORE_PREFIX)
    return None


def _string_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, str) for item in value)


def _superstep_values(payload: dict[str, Any]) -> list[Any]:
    """A new thread's ``supersteps[].updates[].values``."""
    steps = payload.get("supersteps")
    return [
        update.get("values")
        for step in (steps if isinstance(steps, list) else [])
        if isinstance(step, dict)
        for update in (step.get("updates") if isinstance(step.get("updates"), list) else [])
        if isinstance(update, dict)
    ]


def command_refusal(command: Any) -> BodyRefusedError | None:
    """A streaming-protocol command (HTTP or WebSocket frame) the server refuses."""
    if not isinstance(command, dict) or not isinstance(command.get("params"), dict):
        return None
    params = command["params"]
    if command.get("method") == "run.start":
        dropped = [name for name in ("context", "command") if params.get(name) is not None]
        if dropped:
            return BodyRefusedError(403, DROPPED_FIELDS.format(fields=" and ".join(dropped)))
        return written_values_refusal(params.get("input"), "run inputs may not carry learner_id")
    if command.get("method") == "input.respond" and update_writes_identity(params.get("update")):
        return BodyRefusedError(403, "run commands may not update learner_id")
    return None


def _mcp_refusal(message: dict[str, Any]) -> BodyRefusedError | None:
    """An MCP ``tools/call`` whose run the auth would refuse (the runtime would answer 500)."""
    if message.get("method") != "tools/call" or not isinstance(message.get("params"), dict):
        return None
    params = message["params"]
    arguments = {} if params.get("arguments") is None else params["arguments"]
    if not isinstance(arguments, dict):
        return BodyRefusedError(422, "MCP tools/call arguments must be an object (the tool's input)")
    context = params.get("context")
    if context is not None and not isinstance(context, dict):
        return BodyRefusedError(422, "MCP tools/call context must be an object")
    if IDENTITY_FIELDS & set(arguments) or IDENTITY_FIELDS & set(context or {}):
        return BodyRefusedError(403, MCP_IDENTITY)
    return context_refusal(arguments)
