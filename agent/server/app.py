"""The custom app ``langgraph.json`` mounts (``http.app``): KAG's guard on every route.

The LangGraph server merges this Starlette app with its own routes; its middleware
(``ServerGuard``) runs before every route, the server's internal ones included.
Custom routes added here go through the same bearer auth
(``http.enable_custom_route_auth``).

The app's lifespan runs when the server starts (after the LangGraph runtime's own, so the
graphs are loaded): a malformed token table stops the start with a ``ConfigError``, a
missing one is warned about. It loads the process's resources, freezes the start-up heap
(``agent.heap``) and starts the memory kernel for the server's lifetime
(``agent.server.kernel_service``): the worker and one reflection cron per learner.
On shutdown the worker finishes its current batch and stops.

Routes: the dashboard's (``/dashboard/api/*``) and the kernel's (``/kernel/*``,
``agent.server.kernel_routes``), all behind the server's bearer auth.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse

from agent.errors import ThreadOwnedError
from agent.heap import freeze_startup_heap
from agent.resources import default_resources
from agent.server.auth import NOT_CONFIGURED, server_token_table
from agent.server.dashboard.assets import DashboardAssets
from agent.server.dashboard.routes import dashboard_routes
from agent.server.guard import ServerGuard
from agent.server.kernel_routes import kernel_routes
from agent.server.kernel_service import kernel_lifespan
from agent.settings import Settings

log = logging.getLogger("kag.server")


@asynccontextmanager
async def lifespan(_: Starlette) -> AsyncIterator[None]:
    """Check the token table once at start (it raises for a malformed table); run the kernel."""
    table = server_token_table()
    if not table.configured:
        log.warning("no bearer tokens configured: %s", NOT_CONFIGURED)
    # Before the kernel starts: its crons then begin right as the server reports ready.
    await freeze_startup_heap(default_resources())
    async with kernel_lifespan(learners=table.learners.values()):
        yield


def studio_anonymous() -> bool:
    """Whether LangGraph Studio may come in without a token (``Settings.studio_anonymous_allowed``)."""
    allowed = Settings.from_env().studio_anonymous_allowed
    if allowed:
        log.warning("KAG_STUDIO_ANONYMOUS: Studio comes in without a token (loopback server)")
    return allowed


async def thread_owned(_: Request, exc: Exception) -> JSONResponse:
    """A thread id that holds another learner's checkpoints: 409, nothing written."""
    return JSONResponse({"detail": str(exc)}, status_code=409)


def build_app() -> Starlette:
    """A Starlette app carrying KAG's guard middleware, error mapping and start-up checks.

    It also carries the learner dashboard (``agent.server.dashboard``): its API routes
    (behind the same bearer auth) and, after the guard, the middleware that serves its
    page and static files; and the memory kernel's routes (``/kernel/*``).
    """
    return Starlette(
        routes=[*dashboard_routes(), *kernel_routes()],
        middleware=[
            Middleware(ServerGuard, tokens=server_token_table, studio_anonymous=studio_anonymous),
            Middleware(DashboardAssets),
        ],
        exception_handlers={ThreadOwnedError: thread_owned},
        lifespan=lifespan,
    )


app = build_app()
"""What ``langgraph.json`` names as ``http.app``."""
