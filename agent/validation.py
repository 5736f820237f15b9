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


def validate_request(value: object) -> str:
    """Return ``value`` if it is a non-empty string of at most 32 KB (UTF-8)."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidInputError("request must be a non-empty string")
    size = len(value.encode("utf-8"))
    if size > MAX_REQUEST_BYTES:
        raise InvalidInputError(
            f"request is {size} bytes; the limit is {MAX_REQUEST_BYTES} bytes (32 KB). "
            "Split it, or store long material with archival_memory_insert."
        )
    return value


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
