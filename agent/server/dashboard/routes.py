"""The dashboard's API routes, mounted into the server's custom app (``agent.server.app``)."""

from __future__ import annotations

from starlette.routing import Route

from agent.server.dashboard import api
from agent.server.dashboard.live import live

PREFIX = "/dashboard/api"


def dashboard_routes() -> list[Route]:
    """Every ``/dashboard/api`` route (the server applies its bearer auth to each)."""
    return [
        Route(f"{PREFIX}/me", api.me, methods=["GET"]),
        Route(f"{PREFIX}/notes", api.notes, methods=["GET"]),
        Route(f"{PREFIX}/notes/{{note_id}}", api.note, methods=["GET"]),
        Route(f"{PREFIX}/graph", api.graph, methods=["GET"]),
        Route(f"{PREFIX}/memory", api.memory, methods=["GET"]),
        Route(f"{PREFIX}/memory/{{section}}", api.edit_memory, methods=["POST"]),
        Route(f"{PREFIX}/activity", api.activity, methods=["GET"]),
        Route(f"{PREFIX}/pressure", api.pressure, methods=["GET"]),
        Route(f"{PREFIX}/summaries", api.summaries, methods=["GET"]),
        Route(f"{PREFIX}/facts", api.facts, methods=["GET"]),
        Route(f"{PREFIX}/reminders", api.reminders, methods=["GET"]),
        Route(f"{PREFIX}/export", api.export, methods=["GET"]),
        Route(f"{PREFIX}/erase", api.erase, methods=["POST"]),
        Route(f"{PREFIX}/live", api.api(live), methods=["GET"]),
    ]
