"""What ``GET /kernel/stats``, ``GET /kernel/health`` and ``kag kernel stats`` report.

Per learner: the learner's own backlog and their nodes counted by memory type.
Across learners: **counts only** (the total backlog, how many learners have one,
the worker's counters); never an id, a key or a piece of content of another learner.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from datetime import datetime
from typing import Any

from agent.errors import StoreUnavailableError
from agent.graphdb.store import fetch
from agent.kernel.stream import KernelStream
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.server.kernel_queries import MEMORY_COUNTS, PING
from agent.server.kernel_service import KernelService, kernel_stores, kernel_stream

PROBE_TIMEOUT_S = 5.0
"""How long a health probe waits for Redis or Neo4j."""
MEMORY_TYPES = (
    "memory",
    "summary",
    "raw_summary",
    "fact",
    "procedure",
    "episode",
    "message",
    "note",
    "reminder",
    "core_section",
    "turn_sentence",
    "insight",
    "pattern",
)
"""The types ``memory_counts`` always reports (0 when the learner has none)."""


def as_plain(value: Any) -> Any:
    """A result as JSON-ready data: pydantic models, dataclasses, dicts, lists of them, scalars."""
    if isinstance(value, list | tuple):
        return [as_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): as_plain(v) for k, v in value.items()}
    if isinstance(value, str | int | float | bool) or value is None:
        return value
    if isinstance(value, datetime):
        return value.isoformat()
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")
    for name in ("to_dict", "as_dict"):
        method = getattr(value, name, None)
        if callable(method):
            return as_plain(method())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return as_plain(dataclasses.asdict(value))
    return str(value)


async def memory_counts(stores: MemoryStores, learner_id: str) -> dict[str, int]:
    """The learner's Neo4j nodes by memory type (their own only: every match is by ``learner_id``)."""
    rows = await stores.archival.read(lambda tx: fetch(tx, MEMORY_COUNTS, learner_id=learner_id))
    counts = dict.fromkeys(MEMORY_TYPES, 0)
    for row in rows:
        counts[str(row["type"])] = counts.get(str(row["type"]), 0) + int(row["n"])
    return counts


def worker_view(service: KernelService | None) -> dict[str, Any]:
    """The worker's counters when it runs in this process; otherwise where it runs."""
    if service is None:
        return {"in_server": False, "alive": False}
    return service.worker_stats()


async def backlog(stream: KernelStream, learner_id: str | None) -> dict[str, Any]:
    """The kernel stream's depth: the learner's own, and the total and learner count (numbers only)."""
    view: dict[str, Any] = {
        "total": await stream.depth(),
        "learners_waiting": len(await stream.active_learners()),
        "max_backlog": getattr(stream, "max_backlog", None),
    }
    if learner_id is not None:
        view["learner"] = await stream.depth(learner_id)
        view["learner_parked"] = await stream.parked(learner_id)
    return view


async def learner_stats(
    resources: Resources, learner_id: str, service: KernelService | None
) -> dict[str, Any]:
    """``GET /kernel/stats``: backlog depth, lag and throughput, and the learner's memory counts."""
    return {
        "learner_id": learner_id,
        "backlog": await backlog(kernel_stream(resources), learner_id),
        "worker": worker_view(service),
        "memory": await memory_counts(kernel_stores(resources), learner_id),
    }


async def _probe(check: Any) -> dict[str, Any]:
    """Await ``check`` (bounded); ``{"ok": True, "ms": ...}`` or ``{"ok": False, "error": ...}``."""
    started = time.perf_counter()
    try:
        await asyncio.wait_for(check, PROBE_TIMEOUT_S)
    except Exception as exc:  # a probe reports what went wrong, it never raises
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}"[:300]}
    return {"ok": True, "ms": round((time.perf_counter() - started) * 1000, 1)}


async def health(resources: Resources, service: KernelService | None) -> dict[str, Any]:
    """``GET /kernel/health``: Redis, Neo4j and the worker alive, the backlog, and ``degraded``.

    Degraded when Redis or Neo4j does not answer, when the worker should run here
    and does not, or when the backlog reached its bound (producers are slowed down).
    """
    stores = kernel_stores(resources)
    redis = await _probe(resources.redis.ping())
    neo4j = await _probe(stores.archival.read(lambda tx: fetch(tx, PING)))
    worker = worker_view(service)
    depth: dict[str, Any] = {"total": None}
    if redis["ok"]:
        try:
            depth = await backlog(kernel_stream(resources), None)
        except (StoreUnavailableError, OSError) as exc:
            depth = {"total": None, "error": str(exc)[:300]}
    bound = depth.get("max_backlog")
    pressured = bound is not None and depth.get("total") is not None and depth["total"] >= bound
    reasons = [
        *(["redis unreachable"] if not redis["ok"] else []),
        *(["neo4j unreachable"] if not neo4j["ok"] else []),
        *(["worker not running"] if worker.get("in_server") and not worker.get("alive") else []),
        *(["backlog at its bound"] if pressured else []),
    ]
    return {
        "status": "degraded" if reasons else "ok",
        "degraded": bool(reasons),
        "reasons": reasons,
        "redis": redis,
        "neo4j": neo4j,
        "worker": worker,
        "backlog": depth,
    }
