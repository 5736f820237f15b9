"""Who a dashboard API request is for: the authenticated learner, never a parameter.

The LangGraph server authenticates custom routes with KAG's bearer auth
(``http.enable_custom_route_auth``); the request's user is the token's learner.
No query string, path or body value can choose another learner.
"""

from __future__ import annotations

from starlette.requests import HTTPConnection

from agent.errors import InvalidInputError
from agent.validation import validate_learner_id


class NotAuthenticatedError(InvalidInputError):
    """The request reached a dashboard route without an authenticated user."""


def learner_of(request: HTTPConnection) -> str:
    """The authenticated learner's id (a request without one is refused)."""
    user = request.scope.get("user")
    identity = getattr(user, "identity", None)
    if not getattr(user, "is_authenticated", False) or not identity:
        raise NotAuthenticatedError("a valid bearer token is required")
    return validate_learner_id(str(identity))
