"""Live notes: Server-Sent Events fed by the learner's ``ARTIFACT_READY`` Redis Stream.

``GET /dashboard/api/live`` answers ``text/event-stream``. The browser reads it with
``fetch`` streaming (so it can send ``Authorization: Bearer``; ``EventSource``
cannot) and resumes after a reconnect by sending the last stream id it saw as
``Last-Event-ID``. Without one, the stream starts at the current end (the first
``ready`` event carries that id). Each note is one event::

    id: 1732480000000-0
    event: ARTIFACT_READY
    data: {"note_id": ..., "content": ..., "tags": [...], "concept_map": ..., "links": [...]}

The server polls the stream with non-blocking ``XREAD`` (no pooled connection held while
waiting) and sends a comment line as keep-alive.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

from starlette.requests import Request
from starlette.responses import StreamingResponse

from agent.errors import InvalidInputError, StoreUnavailableError
from agent.notes.artifacts import EVENT, read_since, stream_key
from agent.resources import default_resources

POLL_SECONDS = 1.0
KEEPALIVE_POLLS = 15


def resume_id(value: str | None) -> str | None:
    """A valid ``Last-Event-ID`` (a Redis stream id), None when absent; garbage is refused."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    parts = value.split("-")
    if len(parts) != 2 or not all(p.isdecimal() and len(p) <= 20 for p in parts):
        raise InvalidInputError("Last-Event-ID must be a stream id such as '1732480000000-0'")
    return value


def frame(event: str, stream_id: str, data: object) -> str:
    """One SSE frame (JSON data on a single line)."""
    return f"id: {stream_id}\nevent: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


async def live(request: Request, learner_id: str) -> StreamingResponse:
    """Stream the learner's new notes from ``Last-Event-ID`` (or from now)."""
    last = resume_id(request.headers.get("last-event-id"))
    redis = default_resources().redis
    if last is None:
        try:
            newest = await redis.xrevrange(stream_key(learner_id), count=1)
        except OSError as exc:
            raise StoreUnavailableError("Redis", str(exc)) from exc
        last = newest[0][0] if newest else "0-0"

    async def events() -> AsyncIterator[str]:
        cursor = str(last)
        yield frame("ready", cursor, {"resumed_from": cursor})
        idle = 0
        while True:
            batch = await read_since(redis, learner_id, cursor, count=50)
            for item in batch:
                cursor = item.stream_id
                yield frame(EVENT, cursor, dict(item.artifact))
            idle = 0 if batch else idle + 1
            if idle >= KEEPALIVE_POLLS:
                idle = 0
                yield ": keep-alive\n\n"
            await asyncio.sleep(POLL_SECONDS)

    headers = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}
    return StreamingResponse(events(), media_type="text/event-stream", headers=headers)
