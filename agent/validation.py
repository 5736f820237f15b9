"""Learner ids: a UUID or a slug. Every store keys its data by a validated id."""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping
from typing import Any

from agent.errors import InvalidInputError, LearnerMismatchError

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_REQUEST_BYTES = 32 * 1024


def validate_learner_id(value: object) -> str:
    """The canonical learner id: the one rule every store and entry point keys data by.

    A UUID (any spelling ``uuid.UUID`` parses: upper case, braces, ``urn:uuid:``, bare
    hex) becomes its canonical lower-case hyphenated form; a slug
    (``[A-Za-z0-9][A-Za-z0-9_-]{0,63}``) is returned as given. Anything else raises
    ``InvalidInputError``.
    """
    if not isinstance(value, str) or not value:
        raise InvalidInputError("learner_id must be a non-empty string (a UUID or a slug)")
    try:
        return str(uuid.UUID(value))
    except ValueError:
        pass
    if not _SLUG.match(value):
        raise InvalidInputError(
            f"learner_id {value[:80]!r} is neither a UUID nor a slug of letters, digits, "
            "'-' and '_' (at most 64 characters)"
        )
    return value


def validate_text(value: object, field: str, max_bytes: int, *, allow_blank: bool = False) -> str:
    """The one rule for text that reaches Neo4j or Redis: valid Unicode, non-blank, capped.

    ``value`` must be a ``str`` that encodes as UTF-8 (no lone surrogates such as
    ``U+D800`` alone, which no store can hold), of at most ``max_bytes`` bytes once
    encoded and, unless ``allow_blank``, not empty or whitespace only. Anything
    else raises ``InvalidInputError`` naming ``field``; the value is returned
    unchanged otherwise (control characters, markup and query syntax are data).
    """
    if not isinstance(value, str):
        kind = "string" if allow_blank else "non-empty string"
        raise InvalidInputError(f"{field} must be a {kind}, got {type(value).__name__}")
    if not allow_blank and not value.strip():
        raise InvalidInputError(f"{field} must be a non-empty string")
    try:
        size = len(value.encode("utf-8"))
    except UnicodeEncodeError as exc:
        raise InvalidInputError(
            f"{field} is not valid Unicode text (a lone surrogate {value[exc.start]!r} "
            f"at character {exc.start}); send UTF-8 text"
        ) from None
    if size > max_bytes:
        raise InvalidInputError(f"{field} is {size} bytes; the limit is {max_bytes} bytes ({_kb(max_bytes)})")
    return value


def _kb(size: int) -> str:
    return f"{size // 1024} KB" if size % 1024 == 0 else f"{size} bytes"


def validate_request(value: object) -> str:
    """Return ``value`` if it is a non-empty, valid Unicode string of at most 32 KB (UTF-8)."""
    try:
        return validate_text(value, "request", MAX_REQUEST_BYTES)
    except InvalidInputError as exc:
        if "bytes; the limit" not in str(exc):
            raise
        raise InvalidInputError(
            f"{exc}. Split it, or store long material with archival_memory_insert."
        ) from None


MAX_CONTEXT_ID_BYTES = 256
MAX_HISTORY_TURNS = 200
MAX_TURN_BYTES = 64 * 1024


def validate_request_context(value: object) -> dict[str, Any]:
    """A run input's ``context`` (``RequestContext``), checked before anything is written.

    ``None`` is ``{}``. Otherwise it must be an object whose known fields have
    their types: ``session_id`` and ``current_concept`` text of at most 256 bytes,
    ``end_session`` a boolean, ``session_history`` a list of at most 200
    ``{role, content}`` turns (text, valid Unicode, at most 64 KB each). Other
    fields are kept as they are. Anything else raises ``InvalidInputError``
    naming the field (``context.session_id``, ``context.session_history[3].content``).
    """
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidInputError(
            f"context must be an object (current_concept, session_id, end_session, session_history), "
            f"got {type(value).__name__}"
        )
    context = dict(value)
    for name in ("session_id", "current_concept"):
        if context.get(name) is not None:
            validate_text(context[name], f"context.{name}", MAX_CONTEXT_ID_BYTES)
    if context.get("end_session") is not None and not isinstance(context["end_session"], bool):
        raise InvalidInputError(
            f"context.end_session must be true or false, got {type(context['end_session']).__name__}"
        )
    history = context.get("session_history")
    if history is not None:
        if not isinstance(history, list):
            raise InvalidInputError(
                "context.session_history must be a list of {role, content} turns, "
                f"got {type(history).__name__}"
            )
        if len(history) > MAX_HISTORY_TURNS:
            raise InvalidInputError(f"context.session_history holds at most {MAX_HISTORY_TURNS} turns")
        for i, turn in enumerate(history):
            where = f"context.session_history[{i}]"
            if not isinstance(turn, Mapping):
                raise InvalidInputError(
                    f"{where} must be an object {{role, content}}, got {type(turn).__name__}"
                )
            validate_text(turn.get("role", "user"), f"{where}.role", 32)
            validate_text(turn.get("content", ""), f"{where}.content", MAX_TURN_BYTES, allow_blank=True)
    return context


def learner_hash(learner_id: str) -> str:
    """A short, stable, non-reversible tag for traces and logs."""
    return hashlib.sha256(learner_id.encode()).hexdigest()[:16]


AUTH_USER_KEY = "langgraph_auth_user_id"
"""Where the LangGraph server puts the authenticated user in ``config["configurable"]``."""


def resolve_learner_id(authenticated: object, claimed: object) -> str:
    """The learner a run serves: the authenticated user, checked against any claim.

    Under the LangGraph server ``authenticated`` is
    ``config["configurable"]["langgraph_auth_user_id"]``. A claimed id (the input's
    or the state's ``learner_id``) is at most a cache of it: when it names anyone
    else the run is refused with ``LearnerMismatchError`` before anything is read
    or written. Without a server identity (plain Python, CLI, tests) the claimed
    id is authoritative, after validation.
    """
    if authenticated in (None, ""):
        return validate_learner_id(claimed)
    learner = validate_learner_id(authenticated)
    if claimed not in (None, "") and _canonical(claimed) != learner:
        raise LearnerMismatchError(
            "this run is authenticated as another learner than the learner_id in its input or "
            "thread state; refused before any memory was read or written"
        )
    return learner


def _canonical(value: object) -> str | None:
    try:
        return validate_learner_id(value)
    except InvalidInputError:
        return None


def acting_learner(state: Mapping[str, Any], config: Mapping[str, Any] | None) -> str:
    """The learner every node of every graph acts for (see ``resolve_learner_id``)."""
    configurable = (config or {}).get("configurable") or {}
    return resolve_learner_id(configurable.get(AUTH_USER_KEY), state.get("learner_id"))
