"""Erase everything KAG stores for one learner: one function for the CLI, the dashboard and the API.

What goes, per store:

- **server** (inside the LangGraph server only; the caller passes ``server``): the
  learner's threads with their runs, and their LangGraph Store items;
- **redis**: every checkpoint and pending write of every thread the learner wrote, on the
  server or locally (CLI, notebooks), with the owner records and indexes
  (``agent.memory.erasure_redis``); core memory, the kernel stream and its entries, the
  artifact stream, the write backlog, consultation and recent-item caches, the reminder
  flag, the sensory buffer, and the learner's place in the shared sets;
- **neo4j**: notes and their revisions, memories and summaries, messages and their
  sentences, reminders, promoted sensory traces, the durable core memory and the
  ``Learner`` node. Shared indexes and other learners are untouched.

Every store is attempted even when another is down. If any part fails,
``ErasureIncompleteError`` names what is left in which store (and why) and carries the
report of what did go; nothing says "erased" while data remains. Every step is
idempotent, so running the erasure again once the store is back finishes the job.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import neo4j
from redis.exceptions import RedisError

from agent.errors import KAGError, StoreError, StoreUnavailableError
from agent.graphdb.store import fetch
from agent.kernel.stream import KernelStream
from agent.language import grammar
from agent.memory.cognitive_queries import DELETE_REMINDERS
from agent.memory.erasure_redis import erase_checkpoints, erase_keys
from agent.memory.queries import (
    COUNT_OWNED,
    DELETE_CORE_SECTIONS,
    DELETE_LEARNER,
    DELETE_MEMORIES,
    DELETE_MESSAGES,
    DELETE_SENSORY_TRACES,
    DELETE_SENTENCES,
)
from agent.notes.queries import DELETE_LEARNER_NOTES
from agent.notes.store import NoteStore
from agent.resources import Resources
from agent.validation import validate_learner_id

log = logging.getLogger(__name__)

ServerRecords = Callable[[str], Awaitable[dict[str, int]]]
"""Deletes the server's own records of a learner (threads, runs, Store items); returns counts."""

NEO4J_DELETES = {
    "notes": DELETE_LEARNER_NOTES,
    "memories": DELETE_MEMORIES,
    "messages": DELETE_MESSAGES,
    "sentences": DELETE_SENTENCES,
    "reminders": DELETE_REMINDERS,
    "sensory_traces": DELETE_SENSORY_TRACES,
    "core_sections": DELETE_CORE_SECTIONS,
    "learner": DELETE_LEARNER,
}
"""Report name -> erasure query, in the order they run (one write transaction)."""

LEFT = {
    "server": "the learner's server threads, runs and Store items",
    "redis": (
        "checkpoints of the learner's threads, core memory, kernel and artifact streams, caches, "
        "reminder flag and sensory buffer"
    ),
    "redis keys": "core memory, kernel and artifact streams, caches, reminder flag and sensory buffer",
    "neo4j": "notes, memories, messages, sentences, reminders, traces, core memory and the Learner node",
}
"""What a store still holds when its step fails."""

FAILURES = (KAGError, RedisError, OSError, neo4j.exceptions.Neo4jError, neo4j.exceptions.DriverError)
"""A store being down or refusing. Any failure leaves its store's part named in the error, the
other stores are still erased; failures other than these are also logged with their traceback."""


@dataclass
class ErasureReport:
    """What one erasure removed per store, and what it could not."""

    learner_id: str
    removed: dict[str, dict[str, int]] = field(default_factory=dict)
    left: dict[str, str] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        """True when every store was erased."""
        return not self.left

    def lines(self) -> list[str]:
        """One line per store: what went (counts), or what is left and why."""
        out = []
        for store, counts in self.removed.items():
            shown = ", ".join(f"{n} {what}" for what, n in counts.items() if n) or "nothing"
            out.append(f"{store}: removed {shown}")
        out += [f"{store}: LEFT {what}" for store, what in self.left.items()]
        return out

    def as_dict(self) -> dict[str, Any]:
        """JSON for the API: ``{learner_id, erased, removed, left}``."""
        return {
            "learner_id": self.learner_id,
            "erased": self.complete,
            "removed": self.removed,
            "left": self.left,
        }


class ErasureIncompleteError(StoreError):
    """A store was down or failed: what is left is named; running the erasure again finishes it."""

    def __init__(self, report: ErasureReport) -> None:
        """Name every store with data left, and why."""
        self.report = report
        left = "; ".join(f"{store}: {what}" for store, what in report.left.items())
        super().__init__(
            f"erasure of {report.learner_id} is incomplete, still stored: {left}. "
            "Run the erasure again once the store is back."
        )


async def erase_learner(
    resources: Resources, learner_id: str, *, server: ServerRecords | None = None
) -> ErasureReport:
    """Delete everything stored for the learner, everywhere (see the module doc); return the report.

    ``server``: the server's records (inside the LangGraph server). Raises
    ``ErasureIncompleteError`` (with the report) when any store kept data.
    """
    learner_id = validate_learner_id(learner_id)
    report = ErasureReport(learner_id)
    if server is not None:
        await _step(report, "server", lambda: server(learner_id))
    kernel = KernelStream(resources.redis, prefix=resources.settings.kernel_prefix)
    token = await _drain_lock(kernel, learner_id)
    try:
        await _erase_stores(resources, learner_id, report)
    finally:
        if token:
            await kernel.unlock(learner_id, token)
    # the process's parse memo holds recent texts of every learner: emptied whole (a cost in parsing
    # again, never a loss), so none of this learner's words outlive the erasure in memory
    grammar.forget()
    if token == "":  # a worker kept the lock: it may have applied writes after the erasure
        report.left.setdefault("neo4j", f"{LEFT['neo4j']} (the kernel worker was applying their writes)")
    if not report.complete:
        raise ErasureIncompleteError(report)
    return report


async def _drain_lock(kernel: KernelStream, learner_id: str) -> str | None:
    """The learner's kernel drain lock, so no worker applies their queued writes while they go.

    Returns the token; ``""`` when a worker held it past its lifetime; None when Redis is
    down (no worker drains either, and the Redis step reports what is left).
    """
    try:
        return await kernel.lock(learner_id, wait=kernel.lock_ttl_ms / 1000 + 1) or ""
    except StoreUnavailableError:
        return None


async def _erase_stores(resources: Resources, learner_id: str, report: ErasureReport) -> None:
    """Redis (checkpoints, then keys), then Neo4j, each into ``report``."""
    # Redis before Neo4j: the kernel stream's deferred writes go before the nodes they would write.
    checkpoints = lambda: _count("threads", erase_checkpoints(resources, learner_id))  # noqa: E731
    threads = await _step(report, "redis", checkpoints)
    if threads is not None:
        keys = await _step(report, "redis keys", lambda: _count("keys", erase_keys(resources, learner_id)))
        if keys is not None:
            report.removed["redis"] = threads | keys
            del report.removed["redis keys"]
        else:
            report.left["redis"] = report.left.pop("redis keys")
    await _step(report, "neo4j", lambda: _erase_neo4j(resources, learner_id))


async def _step(
    report: ErasureReport, store: str, work: Callable[[], Awaitable[dict[str, int]]]
) -> dict[str, int] | None:
    """Run one store's erasure into ``report``; a failure is recorded as what is left."""
    try:
        counts = await work()
    except Exception as exc:  # noqa: BLE001 - every store is still attempted; the error names this one
        if not isinstance(exc, FAILURES):  # not a store refusing: a bug, so its traceback is logged
            log.exception("erasure: the %s step failed unexpectedly", store)
        reason = " ".join(str(exc).split()) or type(exc).__name__
        report.left[store] = f"{LEFT[store]} ({reason})"
        report.removed.pop(store, None)
        return None
    report.removed[store] = counts
    return counts


async def _count(name: str, work: Awaitable[int]) -> dict[str, int]:
    return {name: await work}


async def _erase_neo4j(resources: Resources, learner_id: str) -> dict[str, int]:
    """Every node of the learner, in one write transaction; returns nodes deleted per kind."""

    async def erase(tx: Any) -> dict[str, int]:
        counts = {}
        for name, query in NEO4J_DELETES.items():
            result = await tx.run(query, {"learner_id": learner_id})
            counts[name] = (await result.consume()).counters.nodes_deleted
        return counts

    # Through the stores' access path: retries and errors mapped in one place.
    return await NoteStore.for_resources(resources).write(erase)


async def owned_nodes(resources: Resources, learner_id: str) -> int:
    """Memories, messages and notes Neo4j still holds for the learner (0 after ``erase_learner``)."""
    learner_id = validate_learner_id(learner_id)
    rows = await NoteStore.for_resources(resources).read(
        lambda tx: fetch(tx, COUNT_OWNED, learner_id=learner_id)
    )
    return int(rows[0]["owned"])
