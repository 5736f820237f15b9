"""Learner ids: a UUID or a slug. Every store keys its data by a validated id."""

from __future__ import annotations

import hashlib
import re
import uuid

from agent.errors import InvalidInputError

_SLUG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")
MAX_REQUEST_BYTES = 32 * 1024


def validate_learner_id(value: object) -> str:
    """Return ``value`` if it is a UUID or a slug (``[A-Za-z0-9][A-Za-z0-9_-]{0,63}``)."""
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


def resolve_learner_id(authenticated: object, claimed: object) -> str:
    """The learner a run serves: the authenticated user wins over the request body.

    Under the LangGraph server ``authenticated`` is
    ``config["configurable"]["langgraph_auth_user_id"]`` and a body ``learner_id``
    is ignored, so it cannot address another learner (``agent.auth`` refuses a
    malformed one with 422 before the run starts). Without a server identity
    (CLI, tests) the body's id is used, after validation.
    """
    return validate_learner_id(authenticated or claimed)
