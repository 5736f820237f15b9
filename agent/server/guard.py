"""An ASGI guard in front of every route of the LangGraph server, built-in ones included.

Custom routes cannot shadow the dev server's *unshadowable* internal routes, but
the custom app's middleware runs before all of them, so this is where they close.

Route policy (the note and README list every route):

- ``/internal/*`` (``debug/thread`` dumps a thread's raw record, ``truncate`` wipes
  every tenant's threads) and ``/deploy*`` (runs the deploy CLI): **404 for
  everyone**, token or not. No learner may see or wipe the server's records.
- ``GET /threads/{id}/storage``: 404 (the runtime reports checkpoint storage only
  for its built-in checkpointer and answered 501 for KAG's).
- ``/metrics``: a valid token is required (``Authorization: Bearer`` or
  ``X-Api-Key``, ``agent.server.credentials``); it carries queue and worker counts
  that are nobody's business but an operator's.
- ``/ok``, ``/info``, ``/openapi.json``, ``/docs``: public. They return liveness,
  versions and the API schema: no thread, run, store item or learner data.
- LangGraph Studio's header ``x-auth-scheme: langsmith`` (which makes ``langgraph dev`` let
  a caller in without a token) is honoured only when ``KAG_STUDIO_ANONYMOUS=true`` and the
  server binds a loopback address; otherwise it is removed.
- **Every request body** is limited to ``MAX_BODY_BYTES`` (1 MiB), chunked ones counted
  chunk by chunk, so the guard never holds more than the limit (413). The body of every
  ``POST``/``PUT``/``PATCH``/``DELETE`` is parsed safely (``agent.server.json_body``: 422,
  never a 5xx), then the per-route refusals of ``agent.server.body_policy`` apply.
- WebSocket frames of the streaming protocol get the same command refusals, as an
  error frame; the socket stays open.
- Everything else goes on to the server's own auth (``agent.server.auth``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agent.server.body_policy import PROTOCOL_SOCKET, command_refusal, refusal
from agent.server.credentials import scope_token
from agent.server.json_body import BodyRefusedError, parse_body
from agent.server.tokens import TokenTable

CLOSED = re.compile(r"^/(internal|deploy)(/|$)")
NOT_SERVED = re.compile(r"^/threads/[^/]+/storage/?$")
NEEDS_TOKEN = re.compile(r"^/metrics/?$")
BODY_METHODS = frozenset({"POST", "PUT", "PATCH", "DELETE"})
STUDIO_HEADER = (b"x-auth-scheme", b"langsmith")
STUDIO_NEEDS_TOKEN = (
    "LangGraph Studio needs a token on this server: add the header 'Authorization: Bearer <token>' "
    "(or 'X-Api-Key: <token>') to Studio's connection, or set KAG_STUDIO_ANONYMOUS=true on a "
    "server bound to 127.0.0.1"
)
NO_STORAGE = "checkpoint storage is not reported by this server (it uses KAG's Redis checkpointer)"
MAX_BODY_BYTES = 1024 * 1024
"""The largest request body the server accepts, on every route (1 MiB)."""
TOO_LARGE = (
    f"request body is larger than {MAX_BODY_BYTES} bytes (1 MiB), the server's limit; "
    "a run's request text is limited to 32 KB: store long material with archival_memory_insert"
)


class ServerGuard:
    """Closes internal routes, protects ``/metrics``, gates Studio and refuses unsafe bodies."""

    def __init__(
        self,
        app: ASGIApp,
        tokens: Callable[[], TokenTable] = TokenTable.from_env,
        studio_anonymous: Callable[[], bool] = lambda: False,
    ) -> None:
        """Wrap ``app``; ``tokens`` and ``studio_anonymous`` are read on first use, not at import."""
        self.app = app
        self._tokens_factory = tokens
        self._tokens: TokenTable | None = None
        self._studio_factory = studio_anonymous
        self._studio: bool | None = None

    @property
    def tokens(self) -> TokenTable:
        """The token table (the same one ``agent.server.auth`` uses)."""
        if self._tokens is None:
            self._tokens = self._tokens_factory()
        return self._tokens

    @property
    def studio_anonymous(self) -> bool:
        """Whether Studio's tokenless header is honoured (explicit setting and a loopback bind)."""
        if self._studio is None:
            self._studio = bool(self._studio_factory())
        return self._studio

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Apply the route policy, then hand over to the server."""
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "")
        prefix = scope.get("root_path", "")
        if prefix and path.startswith(prefix):
            path = path[len(prefix) :] or "/"
        if scope["type"] == "websocket":
            scope = self._studio_scope(scope) or _without_studio_header(scope)
            if PROTOCOL_SOCKET.match(path):
                receive = _filtered_frames(receive, send)
            await self.app(scope, receive, send)
            return
        if CLOSED.match(path):
            await _reply(send, 404, "Not Found")
            return
        if NOT_SERVED.match(path):
            await _reply(send, 404, NO_STORAGE)
            return
        studio = self._studio_scope(scope)
        if studio is None:
            await _reply(send, 401, STUDIO_NEEDS_TOKEN, bearer=True)
            return
        scope = studio
        if NEEDS_TOKEN.match(path) and not self._authenticated(scope):
            await _reply(send, 401, "a valid token is required", bearer=True)
            return
        declared = _content_length(scope)
        if declared is not None and declared > MAX_BODY_BYTES:
            await _reply(send, 413, TOO_LARGE)
            return
        method = scope.get("method", "")
        if method not in BODY_METHODS:
            await _BodyLimit(self.app, MAX_BODY_BYTES)(scope, receive, send)
            return
        body = await _read_body(receive)
        if body is None:
            await _reply(send, 413, TOO_LARGE)
            return
        try:
            refused = refusal(method, path, parse_body(body))
        except BodyRefusedError as exc:
            refused = exc
        if refused is not None:
            await _reply(send, refused.status, refused.detail)
            return
        await self.app(scope, _replay(body, receive), send)

    def _studio_scope(self, scope: Scope) -> Scope | None:
        """``scope`` as the server may see it: Studio's header kept, removed, or None (refuse: 401).

        With anonymous Studio allowed the request passes unchanged. Otherwise a request
        carrying a token loses the header (the token's learner is then the caller) and
        one without a token is refused.
        """
        headers = scope.get("headers") or []
        if STUDIO_HEADER not in [(name.lower(), value.strip().lower()) for name, value in headers]:
            return scope
        if self.studio_anonymous:
            return scope
        if scope["type"] == "http" and scope_token(headers) is None:
            return None
        return _without_studio_header(scope)

    def _authenticated(self, scope: Scope) -> bool:
        token = scope_token(scope.get("headers") or [])
        return token is not None and self.tokens.learner_for(token) is not None


def _without_studio_header(scope: Scope) -> Scope:
    headers = [(n, v) for n, v in scope.get("headers") or [] if n.lower() != STUDIO_HEADER[0]]
    return {**scope, "headers": headers}


def _filtered_frames(receive: Receive, send: Send) -> Receive:
    """The socket's frames, minus refused protocol commands (answered with an error frame)."""

    async def filtered() -> Message:
        while True:
            message = await receive()
            if message.get("type") != "websocket.receive":
                return message
            text = message.get("text")
            raw = text.encode("utf-8", "surrogatepass") if text is not None else message.get("bytes") or b""
            command: Any = None
            try:
                if len(raw) > MAX_BODY_BYTES:
                    raise BodyRefusedError(413, TOO_LARGE)
                command = parse_body(raw)
                refused = command_refusal(command)
            except BodyRefusedError as exc:
                refused = exc
            if refused is None:
                return message
            await send({"type": "websocket.send", "text": _error_frame(command, refused)})

    return filtered


def _error_frame(command: Any, refused: BodyRefusedError) -> str:
    """The streaming protocol's error envelope for a refused command (with the HTTP status)."""
    return json.dumps(
        {
            "type": "error",
            "id": command.get("id") if isinstance(command, dict) else None,
            "error": "permission_denied" if refused.status == 403 else "invalid_argument",
            "status": refused.status,
            "message": refused.detail,
        }
    )


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


async def _read_body(receive: Receive) -> bytes | None:
    chunks, size = [], 0
    while True:
        message = await receive()
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY_BYTES:
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
