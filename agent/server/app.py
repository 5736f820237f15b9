"""The custom app ``langgraph.json`` mounts (``http.app``): KAG's guard on every route.

The LangGraph server merges this Starlette app with its own routes; its middleware
(``ServerGuard``) runs before every route, the server's internal ones included.
Custom routes added here go through the same bearer auth
(``http.enable_custom_route_auth``).
"""

from __future__ import annotations

from starlette.applications import Starlette
from starlette.middleware import Middleware

from agent.server.guard import ServerGuard


def build_app() -> Starlette:
    """A Starlette app carrying KAG's guard middleware."""
    return Starlette(middleware=[Middleware(ServerGuard)])


app = build_app()
"""What ``langgraph.json`` names as ``http.app``."""
