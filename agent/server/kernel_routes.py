"""The memory kernel's HTTP face: ``/kernel/*`` routes on the LangGraph server.

Mounted in the custom app (``agent.server.app``), so the server's bearer auth
(``http.enable_custom_route_auth``) runs before every one of them, like the
dashboard's. The learner is always the token's (``learner_of``): a ``learner_id``
anywhere in the query string or the body is refused with 403, whoever it names.

- ``POST /kernel/consult``: body ``{query, context, max_results, include_insights,
  topic_filters}`` (``agent.kernel.consult.ConsultRequest``); the brief is built
  from the authenticated learner's memory only.
- ``GET /kernel/stats``: the learner's backlog and memory counts by type; the
  worker's lag and throughput; across learners, counts only.
- ``POST /kernel/reflect``: body ``{}`` or ``{"limit": 10..100}`` (default 50); reflection for the
  authenticated learner only, one at a time per learner (a second one is 409).
- ``GET /kernel/health``: Redis, Neo4j and the worker alive, the backlog, ``degraded``.

Errors are JSON ``{"detail": ...}``: no token 401, ``learner_id`` given 403, bad
input 422 (malformed JSON, unknown fields, wrong types), a body over 64 KB 413,
a store down 503.
"""

from __future__ import annotations

import functools
import json
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agent.errors import InvalidInputError
from agent.kernel.reflection.reports import DEFAULT_LIMIT, check_limit
from agent.resources import default_resources
from agent.server import kernel_status
from agent.server.dashboard.api import Handler, LearnerHandler, api, reply
from agent.server.kernel_service import current_service, kernel_stores

PREFIX = "/kernel"
MAX_KERNEL_BODY = 64 * 1024
"""The largest body a kernel route reads (a consult query is short; the server's own limit is 1 MiB)."""
_REFLECTING: set[str] = set()
"""Learners whose reflection runs in this process right now."""


class TooLargeError(InvalidInputError):
    """The request body is over ``MAX_KERNEL_BODY``."""


async def kernel_body(request: Request) -> dict[str, Any]:
    """The request's JSON object: at most 64 KB, well-formed, an object (else 413/422)."""
    raw = bytearray()
    async for chunk in request.stream():
        raw.extend(chunk)
        if len(raw) > MAX_KERNEL_BODY:
            raise TooLargeError(f"request body is larger than {MAX_KERNEL_BODY} bytes")
    try:
        value = json.loads(bytes(raw) or b"{}")
    except (ValueError, RecursionError):  # malformed or not UTF-8 (the server guard bounds the depth)
        raise InvalidInputError("the body must be a JSON object") from None
    if not isinstance(value, dict):
        raise InvalidInputError("the body must be a JSON object")
    return value


def kernel(handler: LearnerHandler) -> Handler:
    """``api`` (401, a named learner 403, errors as JSON), plus an oversized body → 413."""

    @functools.wraps(handler)
    async def checked(request: Request, learner_id: str) -> Response:
        try:
            return await handler(request, learner_id)
        except TooLargeError as exc:  # an InvalidInputError, which ``api`` would make a 422
            return reply({"detail": str(exc)}, 413)

    return api(checked)


async def consult(request: Request, learner_id: str) -> Response:
    """The authenticated learner's consultation brief for the body's query."""
    body = await kernel_body(request)
    from agent.kernel.consult import ConsultDeps
    from agent.kernel.consult import consult as run_consult

    resources = default_resources()
    deps = ConsultDeps.wire(resources, kernel_stores(resources))
    # ``run_consult`` validates the body (``ConsultRequest``: unknown fields, sizes, types → 422).
    return reply(kernel_status.as_plain(await run_consult(deps, learner_id, body)))


async def stats(request: Request, learner_id: str) -> Response:
    """Backlog, lag, throughput and the learner's memory counts."""
    return reply(await kernel_status.learner_stats(default_resources(), learner_id, current_service()))


async def reflect(request: Request, learner_id: str) -> Response:
    """Run reflection now for the authenticated learner (bounded; one at a time per learner)."""
    body = await kernel_body(request)
    unknown = set(body) - {"limit"}
    if unknown:
        raise InvalidInputError(f"unknown field(s) {sorted(unknown)}; the body is {{}} or {{'limit': N}}")
    limit = check_limit(body.get("limit", DEFAULT_LIMIT))  # 10..100, else 422
    if learner_id in _REFLECTING:
        return reply({"detail": "a reflection for this learner is already running"}, 409)
    from agent.server.kernel_reflect import reflect_one

    _REFLECTING.add(learner_id)
    try:
        report = await reflect_one(default_resources(), learner_id, limit=limit)
    finally:
        _REFLECTING.discard(learner_id)
    return reply({"learner_id": learner_id, "report": report})


async def health(request: Request, learner_id: str) -> Response:
    """Redis, Neo4j and the worker alive, the backlog depth, and whether the kernel is degraded."""
    return reply(await kernel_status.health(default_resources(), current_service()))


def kernel_routes() -> list[Route]:
    """Every ``/kernel`` route (the server applies its bearer auth to each)."""
    return [
        Route(f"{PREFIX}/consult", kernel(consult), methods=["POST"]),
        Route(f"{PREFIX}/stats", kernel(stats), methods=["GET"]),
        Route(f"{PREFIX}/reflect", kernel(reflect), methods=["POST"]),
        Route(f"{PREFIX}/health", kernel(health), methods=["GET"]),
    ]
