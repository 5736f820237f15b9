"""Which token a request presents: ``Authorization: Bearer <token>`` or ``X-Api-Key: <token>``.

The server's auth (``agent.server.auth``) and its guard (``agent.server.guard``, for
``/metrics`` and Studio) read the token here, so every route accepts the same two
headers with the same refusals:

no header, an ``Authorization`` header that is not ``Bearer <token>`` (even beside an
``X-Api-Key``) and two different tokens in the two headers are refused.

``X-Api-Key`` is what LangGraph's own servers and clients such as Agent Chat UI send.
The token table (``agent.server.tokens``) then says which learner the token is.
"""

from __future__ import annotations

from collections.abc import Iterable

API_KEY_HEADER = "x-api-key"
"""LangGraph's API-key header (header names are case-insensitive)."""
MISSING = "missing credentials: send 'Authorization: Bearer <token>' or 'X-Api-Key: <token>'"
MALFORMED = "malformed Authorization header; expected 'Bearer <token>' (or send 'X-Api-Key: <token>')"
EMPTY_KEY = "empty X-Api-Key header; expected 'X-Api-Key: <token>'"
CONFLICT = (
    "the Authorization and X-Api-Key headers carry two different tokens; send one (the LangGraph SDK "
    "sends LANGGRAPH_API_KEY or LANGSMITH_API_KEY as X-Api-Key: pass your KAG token as api_key)"
)


class CredentialError(Exception):
    """The request's credentials are missing, malformed or contradictory (always a 401)."""

    def __init__(self, detail: str) -> None:
        """Keep the one-line reason the client is told."""
        super().__init__(detail)
        self.detail = detail


def presented_token(authorization: str | None, api_key: str | None) -> str:
    """The one token the two headers present (``CredentialError`` otherwise)."""
    bearer = None
    if authorization is not None and authorization.strip():
        scheme, _, token = authorization.strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise CredentialError(MALFORMED)
        bearer = token.strip()
    key = None
    if api_key is not None:
        key = api_key.strip()
        if not key:
            raise CredentialError(EMPTY_KEY)
    if bearer is not None and key is not None and bearer != key:
        raise CredentialError(CONFLICT)
    token = bearer or key
    if token is None:
        raise CredentialError(MISSING)
    return token


def header_values(headers: Iterable[tuple[bytes, bytes]]) -> tuple[str | None, str | None]:
    """The ``Authorization`` and ``X-Api-Key`` values of raw ASGI headers (latin-1, as HTTP has it)."""
    authorization = api_key = None
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"authorization":
            authorization = value.decode("latin-1")
        elif lowered == API_KEY_HEADER.encode():
            api_key = value.decode("latin-1")
    return authorization, api_key


def scope_token(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token of raw ASGI headers, or None when they present none (or a refused one)."""
    try:
        return presented_token(*header_values(headers))
    except CredentialError:
        return None
