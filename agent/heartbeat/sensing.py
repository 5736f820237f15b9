"""Sensory memory at the heartbeat's edges: the request (``receive``) and tool outputs (``act``).

Both are attended as they arrive (``SensoryBuffer.attended``: no round trip), and the
traces returned go into ``RecallMessage.attended`` (the ``ATTENDED_TO`` link) of the
recall messages the step logs. A sensory outage is logged and the turn goes on.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from typing import Any

from langchain_core.messages import AnyMessage

from agent.errors import KAGError
from agent.heartbeat.turn import store_of
from agent.memory.sensory import trace_of

log = logging.getLogger("kag.heartbeat.cognition")

PASTE_CHARS = 2000
"""A request longer than this is captured in sensory memory as ``paste``, else ``request``."""


async def sense_request(
    stores: object, learner_id: str, request: str, context: Mapping[str, Any]
) -> list[dict]:
    """Take the request into sensory memory attended at once; capture the context payload.

    Returns the request's trace for ``RecallMessage.attended``. The context payload is
    captured but not attended, so it expires.
    """
    sensory = store_of(stores, "sensory")
    if sensory is None:
        return []
    traces: list[dict] = []
    try:
        kind = "paste" if len(request) > PASTE_CHARS else "request"
        traces = [trace_of(sensory.attended(learner_id, kind, request))]
        if context:
            await sensory.capture(learner_id, "context", json.dumps(dict(context), default=str))
    except KAGError as exc:  # an outage, or a context payload over the buffer's size cap
        log.warning("sensory memory did not take the request or its context: %s", exc)
    return traces


def sense_tool_outputs(stores: object, learner_id: str, results: Sequence[AnyMessage]) -> dict[str, list]:
    """Tool outputs into sensory memory, attended at once (the heartbeat logs them in this step).

    Returns ``{message id: [trace]}`` for ``RecallMessage.attended``; failures are logged.
    """
    sensory = store_of(stores, "sensory")
    if sensory is None:
        return {}
    traces: dict[str, list] = {}
    for message in results:
        try:
            item = sensory.attended(
                learner_id, "tool_output", message.text or "(empty)", meta={"tool": message.name or ""}
            )
        except KAGError as exc:
            log.warning("sensory memory did not take a %s output: %s", message.name, exc)
            continue
        traces[str(message.id)] = [trace_of(item)]
    return traces
