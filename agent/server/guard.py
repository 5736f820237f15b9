"""An ASGI guard in front of every route of the LangGraph server, built-in ones included.

Custom routes cannot shadow the dev server's *unshadowable* internal routes, but
the custom app's middleware runs before all of them, so this is where they close.

Route policy (the note and README list every route):

- ``/internal/*`` (``debug/thread`` dumps a thread's raw record, ``truncate`` wipes
  every tenant's threads) and ``/deploy*`` (runs the deploy CLI): **404 for
  everyone**, token or not. No learner may see or wipe the server's records.
- ``/metrics``: a valid bearer token is required (it carries queue and worker
  counts that are nobody's business but an operator's).
- ``/ok``, ``/info``, ``/openapi.json``, ``/docs``: public. They return liveness,
  versions and the API schema: no thread, run, store item or learner data.
- ``POST /threads/{id}/state`` and ``POST /threads`` (whose ``supersteps`` seed a
  new thread's state): refused (403) when they write an identity field
  (``learner_id``). The auth handlers never see these values, so the guard reads
  the body here; every node also re-binds the learner (``agent.identity``).
- **Every request body** is limited to ``MAX_BODY_BYTES`` (1 MiB; a run's
  ``request`` text is itself limited to 32 KB by ``agent.validation``): a larger
  ``content-length`` gets 413 before a byte is read, and a body streamed without
  one (chunked) is counted chunk by chunk and cut off with 413 as soon as it
  passes the limit, so the guard never holds more than the limit.
- Everything else goes on to the server's own auth (``agent.server.auth``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from agent.server.tokens import TokenTable

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

IDENTITY_FIELDS = frozenset({"learner_id"})
"""State fields that select whose memory a graph uses: no client may write them."""
CLOSED = re.compile(r"^/(internal|deploy)(/|$)")
NEEDS_TOKEN = re.compile(r"^/metrics/?$")
STATE_UPDATE = re.compile(r"^/threads/[^/]+/state/?$")
THREAD_CREATE = re.compile(r"^/threads/?$")
MAX_BODY_BYTES = 1024 * 1024
"""The largest request body the server accepts, on every route (1 MiB)."""
MAX_STATE_BODY = MAX_BODY_BYTES
TOO_LARGE = (
    f"request body is larger than {MAX_BODY_BYTES} bytes (1 MiB), the server's limit; "
    "a run's request text is limited to 32 KB: store long material with archival_memory_insert"
)


def writes_identity(values: Any) -> bool:
    """True when a state update (a dict, or a list of them) writes an identity field."""
    if isinstance(values, dict):
        return bool(IDENTITY_FIELDS & set(values))
    if isinstance(values, list):
        return any(writes_identity(v) for v in values)
    return False


class ServerGuard:
    """Closes internal routes, protects ``/metrics`` and refuses identity writes."""

    def __init__(self, app: ASGIApp, tokens: Callable[[], TokenTable] = TokenTable.from_env) -> None:
        """Wrap ``app``; ``tokens`` is read on first use (no side effect at import)."""
        self.app = app
        self._tokens_factory = tokens
        self._tokens: TokenTable | None = None

    @property
    def tokens(self) -> TokenTable:
        """The bearer token table (the same one ``agent.server.auth`` uses)."""
        if self._tokens is None:
            self._tokens = self._tokens_factory()
        return self._tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Apply the route policy, then hand over to the server."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        prefix = scope.get("root_path", "")
        if prefix and path.startswith(prefix):
            path = path[len(prefix) :] or "/"
        if CLOSED.match(path):
            await _reply(send, 404, "Not Found")
            return
        if NEEDS_TOKEN.match(path) and not self._authenticated(scope):
            await _reply(send, 401, "a valid bearer token is required", bearer=True)
            return
        declared = _content_length(scope)
        if declared is not None and declared > MAX_BODY_BYTES:
            await _reply(send, 413, TOO_LARGE)
            return
        if scope.get("method") == "POST" and (STATE_UPDATE.match(path) or THREAD_CREATE.match(path)):
            body = await _read_body(receive)
            if body is None:
                await _reply(send, 413, TOO_LARGE)
                return
            if _identity_update(body):
                await _reply(send, 403, "thread state updates and supersteps may not write learner_id")
                return
            receive = _replay(body, receive)
            await self.app(scope, receive, send)
            return
        await _BodyLimit(self.app, MAX_BODY_BYTES)(scope, receive, send)

    def _authenticated(self, scope: Scope) -> bool:
        header = dict(scope.get("headers") or []).get(b"authorization", b"").decode("latin-1")
        scheme, _, token = header.strip().partition(" ")
        return scheme.lower() == "bearer" and self.tokens.learner_for(token.strip()) is not None


def _content_length(scope: Scope) -> int | None:
    for name, value in scope.get("headers") or []:
        if name.lower() == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None  # the server answers a malformed header itself
    return None


class _BodyLimit:
    """Counts a request's body as the app reads it; past ``limit`` the client gets 413.

    The app is then told the client went away (``http.disconnect``) and whatever
    it sends afterwards is dropped, so the 413 is the only response.
    """

    def __init__(self, app: ASGIApp, limit: int) -> None:
        self.app = app
        self.limit = limit
        self.size = 0
        self.started = False
        self.refused = False

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        async def counted_receive() -> Message:
            if self.refused:
                return {"type": "http.disconnect"}
            message = await receive()
            if message.get("type") == "http.request":
                self.size += len(message.get("body", b""))
                if self.size > self.limit:
                    self.refused = True
                    if not self.started:
                        self.started = True
                        await _reply(send, 413, TOO_LARGE)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            if self.refused:
                return
            if message.get("type") == "http.response.start":
                self.started = True
            await send(message)

        await self.app(scope, counted_receive, guarded_send)


def _identity_update(body: bytes) -> bool:
    """A state update's ``values``, or a new thread's ``supersteps[].updates[].values``."""
    try:
        payload = json.loads(body or b"{}")
    except ValueError:
        return False  # the server answers malformed JSON itself
    if not isinstance(payload, dict):
        return False
    updates = [
        update.get("values")
        for step in payload.get("supersteps") or []
        if isinstance(step, dict)
        for update in step.get("updates") or []
        if isinstance(update, dict)
    ]
    return writes_identity(payload.get("values")) or writes_identity(updates)


async def _read_body(receive: Receive) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_STATE_BODY:
            return None
        chunks.append(chunk)
        if not message.get("more_body"):
            return b"".join(chunks)


def _replay(body: bytes, then: Receive) -> Receive:
    """The body read already, then the client's own messages (a real disconnect)."""
    sent = False

    async def receive() -> Message:
        nonlocal sent
        if sent:
            return await then()
        sent = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive


async def _reply(send: Send, status: int, detail: str, *, bearer: bool = False) -> None:
    body = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if bearer:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
