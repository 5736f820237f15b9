"""The dashboard's JSON API: every handler reads or writes the authenticated learner's data only.

Routes: ``agent.server.dashboard.routes`` (all under ``/dashboard/api``, behind the API's bearer
auth); each handler's docstring says what it serves.

Errors are JSON ``{"detail": ...}``: no token 401, a named learner (query, body or
header) 403, bad input 422, unknown note 404, a store down 503.
"""

from __future__ import annotations

import functools
import logging
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from agent.errors import CoreMemoryLimitError, InvalidInputError, KAGError, StoreUnavailableError
from agent.memory.backlog import WriteBacklog
from agent.memory.core import CoreLimits, CoreMemoryStore
from agent.memory.erasure import ErasureIncompleteError, erase_learner
from agent.resources import Resources, default_resources
from agent.server.dashboard import cognitive, threads
from agent.server.dashboard.activity import activity_view
from agent.server.dashboard.export import export_zip
from agent.server.dashboard.learner import (
    IDENTITY_REFUSED,
    NotAuthenticatedError,
    learner_of,
    names_identity,
    names_learner,
)
from agent.server.dashboard.reads import DashboardReads
from agent.server.json_body import NOT_JSON, BodyRefusedError, parse_body

log = logging.getLogger("kag.dashboard")
Handler = Callable[[Request], Awaitable[Response]]
LearnerHandler = Callable[[Request, str], Awaitable[Response]]
NO_STORE = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
MAX_EDIT_BODY = 256 * 1024
CONFIRMATION = "DELETE"
_CORE: weakref.WeakKeyDictionary[Resources, CoreMemoryStore] = weakref.WeakKeyDictionary()


def reply(data: Any, status: int = 200) -> JSONResponse:
    """A JSON response that no cache keeps."""
    return JSONResponse(data, status_code=status, headers=NO_STORE)


def api(handler: LearnerHandler) -> Handler:
    """Call ``handler`` with the token's learner; refuse a request that names one (403); map errors.

    The learner is always the token's: ``learner_id`` in the query, a ``Learner-Id``-like
    header or ``learner_id`` anywhere in a JSON body is refused after authentication
    (401 first), like the ``/kernel`` routes, never silently served as the caller.
    """

    @functools.wraps(handler)
    async def wrapped(request: Request) -> Response:
        try:
            learner_id = learner_of(request)
            if names_learner(request) or names_identity(parse_body(await request.body())):
                return reply({"detail": IDENTITY_REFUSED}, 403)
            return await handler(request, learner_id)
        except BodyRefusedError as exc:
            return reply({"detail": exc.detail}, exc.status)
        except NotAuthenticatedError as exc:
            return reply({"detail": str(exc)}, 401)
        except (CoreMemoryLimitError, InvalidInputError) as exc:
            return reply({"detail": str(exc)}, 422)
        except StoreUnavailableError as exc:
            return reply({"detail": f"a store is unavailable: {exc}"}, 503)
        except KAGError as exc:
            log.exception("dashboard request failed")
            return reply({"detail": str(exc)}, 500)

    return wrapped


def core_store(resources: Resources) -> CoreMemoryStore:
    """The same core memory store the tools use (Redis over Neo4j, with the write backlog)."""
    store = _CORE.get(resources)
    if store is None:
        store = _CORE[resources] = CoreMemoryStore(
            resources.redis,
            driver=resources.neo4j,
            embeddings=resources.embeddings,
            database=resources.database,
            backlog=WriteBacklog(resources.redis, prefix=resources.settings.kernel_prefix),
            clock=resources.clock,
        )
    return store


async def json_body(request: Request, limit: int = MAX_EDIT_BODY) -> dict[str, Any]:
    """The request's JSON object (422 otherwise)."""
    raw = await request.body()
    if len(raw) > limit:
        raise InvalidInputError(f"request body is larger than {limit} bytes")
    value = parse_body(raw)  # bounded depth, no RecursionError (BodyRefusedError: 422)
    if value is None:
        value = {}
    if value is NOT_JSON or not isinstance(value, dict):
        raise InvalidInputError("the body must be a JSON object")
    return value


@api
async def me(request: Request, learner_id: str) -> Response:
    """The authenticated learner."""
    return reply({"learner_id": learner_id})


@api
async def notes(request: Request, learner_id: str) -> Response:
    """The learner's notes, or the hybrid search hits of ``q``."""
    resources = default_resources()
    reads = DashboardReads.for_resources(resources)
    query = request.query_params.get("q", "")
    if query.strip():
        found = await reads.search_notes(resources, learner_id, query)
        return reply({"query": query, "notes": found})
    return reply({"query": "", "notes": await reads.list_notes(learner_id)})


@api
async def note(request: Request, learner_id: str) -> Response:
    """One of the learner's notes with its typed links (404 for anyone else's id)."""
    found = await DashboardReads.for_resources(default_resources()).note(
        learner_id, request.path_params["note_id"]
    )
    if found is None:
        return reply({"detail": "no such note"}, 404)
    return reply(found)


@api
async def graph(request: Request, learner_id: str) -> Response:
    """Nodes and edges of the learner's knowledge graph."""
    return reply(await DashboardReads.for_resources(default_resources()).graph(learner_id))


@api
async def memory(request: Request, learner_id: str) -> Response:
    """Core memory sections and their character limit."""
    sections = await core_store(default_resources()).read(learner_id)
    return reply({"sections": sections, "limit": CoreLimits().section_limit})


@api
async def edit_memory(request: Request, learner_id: str) -> Response:
    """Edit one section: replace the text shown (``old``) with ``new``; append when it was empty."""
    section = request.path_params["section"]
    body = await json_body(request)
    old, new = body.get("old", ""), body.get("new")
    if not isinstance(old, str) or not isinstance(new, str):
        raise InvalidInputError('expected {"old": <current text>, "new": <new text>}')
    store = core_store(default_resources())
    if old.strip():
        sections = await store.replace(learner_id, section, old, new, limits=CoreLimits())
    elif new.strip():
        sections = await store.append(learner_id, section, new, limits=CoreLimits())
    else:
        sections = await store.read(learner_id)
    return reply({"sections": sections, "limit": CoreLimits().section_limit})


@api
async def pressure(request: Request, learner_id: str) -> Response:
    """Pressure per step of the last sessions: an engineer's view (learners see ``activity``)."""
    return reply({"sessions": await threads.pressure_sessions(learner_id)})


@api
async def activity(request: Request, learner_id: str) -> Response:
    """What was learned when, what is due, what came back, and the sessions, in the learner's words."""
    return reply(await activity_view(default_resources(), learner_id))


@api
async def summaries(request: Request, learner_id: str) -> Response:
    """Archived session summaries with their source turns."""
    return reply({"summaries": await DashboardReads.for_resources(default_resources()).summaries(learner_id)})


@api
async def facts(request: Request, learner_id: str) -> Response:
    """Facts by slot: the current value, and the history of earlier values."""
    return reply(await cognitive.facts_view(default_resources(), learner_id))


@api
async def reminders(request: Request, learner_id: str) -> Response:
    """Pending, triggered and resolved reminders."""
    return reply(await cognitive.reminders_view(default_resources(), learner_id))


@api
async def export(request: Request, learner_id: str) -> Response:
    """The learner's notes as Markdown files in a zip download."""
    found = await DashboardReads.for_resources(default_resources()).all_notes(learner_id)
    headers = {**NO_STORE, "Content-Disposition": 'attachment; filename="kag-notes.zip"'}
    return Response(export_zip(found), media_type="application/zip", headers=headers)


@api
async def erase(request: Request, learner_id: str) -> Response:
    """Erase the learner everywhere (``erase_learner``): the per-store report, or 503 naming what is left."""
    body = await json_body(request, limit=1024)
    if body.get("confirm") != CONFIRMATION:
        raise InvalidInputError(f'confirm the erasure with {{"confirm": "{CONFIRMATION}"}}')
    try:
        report = await erase_learner(default_resources(), learner_id, server=threads.erase_server_records)
    except ErasureIncompleteError as exc:  # a store is down: say what is left, never "erased"
        log.warning("dashboard: erasure of learner %s is incomplete: %s", learner_id, exc)
        return reply({"detail": str(exc), **exc.report.as_dict()}, 503)
    log.warning("dashboard: learner %s erased their data: %s", learner_id, "; ".join(report.lines()))
    return reply(report.as_dict())
