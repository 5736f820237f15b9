"""Who a dashboard API request is for: the authenticated learner, never a parameter.

The LangGraph server authenticates custom routes with KAG's bearer auth
(``http.enable_custom_route_auth``); the request's user is the token's learner.
No query string, path or body value can choose another learner: a request that
names one (``learner_id`` in the query or the JSON body, at any depth, or a
``Learner-Id``-like header) is refused with 403 rather than silently served as the
caller (``names_learner``, used by the dashboard and the ``/kernel`` routes alike).
"""

from __future__ import annotations

from typing import Any

from starlette.requests import HTTPConnection

from agent.errors import InvalidInputError
from agent.validation import validate_learner_id

IDENTITY_REFUSED = "the learner comes from the token: omit learner_id (query, body and headers)"
_LEARNER_HEADERS = frozenset(
    f"{x}{k}learner{i}" for x in ("", "x-") for k in ("", "kag-") for i in ("", "-id")
)
"""Header names that would name a learner (``Learner-Id``, ``X-Learner-Id``, ``X-KAG-Learner`` ...)."""


def names_identity(value: Any) -> bool:
    """True when a JSON value carries a ``learner_id`` key at any depth (iterative: no recursion limit)."""
    pending = [value]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if "learner_id" in item:
                return True
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return False


def names_learner(request: HTTPConnection) -> bool:
    """True when the query string or a header names a learner (the body is checked where it is read)."""
    if "learner_id" in request.query_params:
        return True
    return any(name.lower().replace("_", "-") in _LEARNER_HEADERS for name in request.headers)


class NotAuthenticatedError(InvalidInputError):
    """The request reached a dashboard route without an authenticated user."""


def learner_of(request: HTTPConnection) -> str:
    """The authenticated learner's id (a request without one is refused)."""
    user = request.scope.get("user")
    identity = getattr(user, "identity", None)
    if not getattr(user, "is_authenticated", False) or not identity:
        raise NotAuthenticatedError("a valid bearer token is required")
    return validate_learner_id(str(identity))
