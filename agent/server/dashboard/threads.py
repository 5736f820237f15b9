"""The learner's LangGraph threads, through the server's own in-process API.

Working-memory ``pressure`` is in every heartbeat checkpoint, so the dashboard records
nothing of its own: it reads the history of the learner's most recent threads, which lives
as long as the checkpoints and goes with them on erasure.

The client is the SDK's in-process one (``get_client()`` with no URL: an ASGI
transport into this server that skips the auth middleware). Tenancy is therefore
applied here: every thread is selected by ``metadata.owner`` (stamped with the
authenticated learner by ``agent.server.auth`` on every create/update/run), and
the learner id comes from the request's authenticated user, never the request.
"""

from __future__ import annotations

from typing import Any

from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

MAX_SESSIONS = 8
MAX_STEPS = 200
PAGE = 100


async def owned_threads(client: LangGraphClient, learner_id: str, limit: int) -> list[dict[str, Any]]:
    """The learner's threads, most recently updated first."""
    threads = await client.threads.search(
        metadata={"owner": learner_id}, limit=limit, sort_by="updated_at", sort_order="desc"
    )
    return [t for t in threads if (t.get("metadata") or {}).get("owner") == learner_id]


async def pressure_sessions(learner_id: str, sessions: int = MAX_SESSIONS) -> list[dict[str, Any]]:
    """Per-step pressure of the learner's last ``sessions`` threads, oldest session first.

    Each session: ``{thread_id, updated_at, points: [{step, pressure, at}]}`` in step order.
    """
    client = get_client()  # the SDK client bound to this server process
    out = []
    try:
        for thread in await owned_threads(client, learner_id, sessions):
            history = await client.threads.get_history(thread["thread_id"], limit=MAX_STEPS)
            points = [point for state in reversed(history) if (point := _point(state)) is not None]
            out.append(
                {"thread_id": thread["thread_id"], "updated_at": thread.get("updated_at"), "points": points}
            )
    finally:
        await client.aclose()
    return list(reversed(out))


def _point(state: dict[str, Any]) -> dict[str, Any] | None:
    """``{step, pressure, at}`` of one checkpoint, or None when it carries no pressure."""
    values = state.get("values") or {}
    value = values.get("pressure") if isinstance(values, dict) else None
    if not isinstance(value, (int, float)):
        return None
    step = (state.get("metadata") or {}).get("step")
    return {"step": step, "pressure": round(float(value), 4), "at": state.get("created_at")}


async def erase_server_records(learner_id: str) -> dict[str, int]:
    """The server's records of the learner: threads with their runs, and Store items.

    ``agent.memory.erasure.erase_learner``'s ``server`` step inside this server. Store items
    live under namespaces that start with the learner (``agent.server.auth`` forces that).
    """
    client = get_client()  # the SDK client bound to this server process
    try:
        threads = await _delete_threads(client, learner_id)
        items = 0
        while found := (await client.store.search_items([learner_id], limit=PAGE)).get("items"):
            for item in found:
                await client.store.delete_item(item["namespace"], key=item["key"])
                items += 1
    finally:
        await client.aclose()
    return {"threads": threads, "store_items": items}


async def _delete_threads(client: LangGraphClient, learner_id: str) -> int:
    deleted = 0
    while batch := await owned_threads(client, learner_id, PAGE):
        for thread in batch:
            await client.threads.delete(thread["thread_id"])
            deleted += 1
    return deleted
