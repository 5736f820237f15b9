"""Background reflection as LangGraph crons, registered by the server itself: one per learner.

``langgraph dev`` runs crons (``langgraph_api.cron_scheduler`` polls for due ones); the
server's own lifespan runs before the custom app's, so when ``ensure_reflection_crons``
runs the graphs are loaded and the runtime is up.

**One cron per learner of the token table**, on the ``reflection`` graph's system
assistant, input ``{"limit": ...}``, no thread (each fire is a stateless run). A
cron's runs act *as its learner*: the payload carries the learner as
``config.configurable.langgraph_auth_user``, which the scheduler turns into the run's
auth context, so every node is bound to that learner (``agent.identity``) as for any
learner's own run. No run ever reflects two learners.

The crons are created in-process with no auth context; learners cannot create, see or
change crons (the auth handlers deny the ``crons`` resource). Idempotent: each learner's
cron has a fixed id (``reflection_cron_id``), so a restart finds it instead of adding a
second; crons of learners no longer in the token table, or all of them when the kernel is
off in the server (empty schedule), are deleted. The schedule comes from
``Settings.reflection_interval_seconds`` via ``cron_schedule``.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any

log = logging.getLogger("kag.kernel.cron")

REFLECTION_GRAPH = "reflection"
"""The graph id ``langgraph.json`` serves reflection under."""
CRON_TAG = "reflection-cron"
"""``metadata.kag`` of every reflection cron (and of every run it creates)."""
DEFAULT_LIMIT = 50
"""Items per step and run the crons ask for (the graph bounds it to 10..100)."""
MAX_CRONS = 100_000


def reflection_cron_id(learner_id: str) -> uuid.UUID:
    """The fixed id of ``learner_id``'s reflection cron (registering it twice finds it)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"kag:kernel:reflection-cron:{learner_id}")


def cron_schedule(interval_seconds: int) -> str:
    """The cron expression for "every ``interval_seconds``" (``Settings.reflection_interval_seconds``).

    Under a minute: a 6-field expression with seconds (croniter's sixth field),
    ``"* * * * * */10"``; whole hours: ``"0 */2 * * *"`` (a day or more: midnight);
    otherwise whole minutes, ``"*/5 * * * *"`` for the default 300 s. Steps that do not
    divide the next unit restart at its boundary, as cron steps do.
    """
    seconds = max(1, int(interval_seconds))
    if seconds < 60:
        return f"* * * * * */{seconds}"
    if seconds >= 86_400:
        return "0 0 * * *"
    if seconds % 3600 == 0:
        return f"0 */{seconds // 3600} * * *"
    minutes = max(1, round(seconds / 60))
    return f"*/{minutes} * * * *" if minutes < 60 else f"0 */{round(minutes / 60)} * * *"


def cron_payload(learner_id: str, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """The run a learner's cron creates: the reflection graph, as that learner, nothing in the input."""
    user = {"identity": learner_id, "display_name": learner_id, "is_authenticated": True, "permissions": []}
    return {
        "assistant_id": REFLECTION_GRAPH,
        "input": {"limit": limit},
        "config": {"configurable": {"langgraph_auth_user": user}},
        "metadata": {"kag": CRON_TAG},
    }


def _runtime() -> tuple[Any, Any, Any] | None:
    """``(connect, Crons, GRAPHS)`` of the running LangGraph server; None outside one."""
    try:
        from langgraph_api.feature_flags import IS_POSTGRES_OR_GRPC_BACKEND
        from langgraph_api.graph import GRAPHS
        from langgraph_runtime.database import connect

        if IS_POSTGRES_OR_GRPC_BACKEND:
            from langgraph_api.grpc.ops import Crons
        else:
            from langgraph_runtime.ops import Crons
    except Exception:  # not inside `langgraph dev` / the API server (plain Starlette, tests)
        return None
    return connect, Crons, GRAPHS


async def ensure_reflection_crons(
    learners: Iterable[str], schedule: str, *, limit: int = DEFAULT_LIMIT
) -> list[dict[str, Any]]:
    """Make the server's reflection crons exactly one per learner on ``schedule`` (empty: none).

    Returns the crons now registered. Never raises: a cron that cannot be registered
    is logged, and ``kag reflect`` / ``POST /kernel/reflect`` still work.
    """
    runtime = _runtime()
    if runtime is None:
        log.info("not inside a LangGraph server: no reflection crons (use `kag reflect`)")
        return []
    connect, crons, graphs = runtime
    wanted = sorted(set(learners)) if schedule.strip() else []
    if wanted and REFLECTION_GRAPH not in graphs:
        log.warning("graph %r is not served (langgraph.json): no reflection crons", REFLECTION_GRAPH)
        wanted = []
    registered: list[dict[str, Any]] = []
    try:
        async with connect() as conn:
            keep = {str(reflection_cron_id(learner)) for learner in wanted}
            for cron in await _tagged(conn, crons):
                if str(cron["cron_id"]) not in keep:
                    await _drain(await crons.delete(conn, cron["cron_id"]))
            for learner in wanted:
                registered.append(await _ensure_one(conn, crons, learner, schedule, limit))
            total = len(await _tagged(conn, crons))
    except Exception:
        log.exception("could not register the reflection crons (schedule %r)", schedule)
        return registered
    log.info("reflection crons: %d learner(s), %d in the runtime, %r", len(registered), total, schedule)
    return registered


async def _ensure_one(conn: Any, crons: Any, learner_id: str, schedule: str, limit: int) -> dict[str, Any]:
    cron_id = reflection_cron_id(learner_id)
    cron = await _first(
        await crons.put(
            conn,
            payload=cron_payload(learner_id, limit),
            schedule=schedule,
            cron_id=cron_id,
            thread_id=None,
            on_run_completed="delete",
            metadata={"kag": CRON_TAG},
            enabled=True,
        )
    )
    if cron is None or cron.get("schedule") != schedule:
        cron = await _first(await crons.update(conn, cron_id=cron_id, schedule=schedule))
    return cron or {}


async def _tagged(conn: Any, crons: Any) -> list[dict[str, Any]]:
    rows, _ = await crons.search(
        conn, assistant_id=None, thread_id=None, enabled=None, limit=MAX_CRONS, offset=0
    )
    return [dict(c) async for c in rows if (c.get("metadata") or {}).get("kag") == CRON_TAG]


async def _first(rows: Any) -> dict[str, Any] | None:
    async for row in rows:
        return dict(row)
    return None


async def _drain(rows: Any) -> None:
    async for _ in rows:
        pass
