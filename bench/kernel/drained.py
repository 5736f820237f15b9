"""Wait until a bench's learners are fully ingested, whoever drains them.

Every kernel worker on the same Redis drains every active learner (the per-learner lock
spreads them), so another process's worker may hold one of the bench's learners when the
bench drains it: ``KernelWorker.drain`` then waits for the lock and can return with entries
still pending. ``drain_all`` drains and re-checks the streams until they are empty, and
``own_streams`` gives a bench streams no other worker drains.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from agent.memory.stores import MemoryStores
from agent.settings import Settings


def own_streams(settings: Settings) -> dict[str, str]:
    """Settings whose kernel streams only this bench's worker drains (same Neo4j server and database).

    Every kernel worker on the shared Redis (a server, another bench) drains every learner of
    its prefix, and a bench's worker would drain theirs: a test run's leftovers, say, counted
    in the bench's lag and paid for in its turns. The prefix follows the Neo4j URI
    (``Settings.kernel_prefix``), so the bench names the same server by another host name
    and gets a prefix of its own.
    """
    if settings.neo4j_uri.startswith("bolt://127.0.0.1:"):
        return {"neo4j_uri": settings.neo4j_uri.replace("bolt://127.0.0.1:", "bolt://localhost:", 1)}
    return {}


async def drain_all(
    worker: Any, stores: MemoryStores, learners: Sequence[str], *, timeout: float = 120.0
) -> int:
    """Drain ``learners`` until their streams are empty or ``timeout`` passes; the entries left."""
    deadline = time.monotonic() + timeout
    while True:
        for learner in learners:
            await worker.drain(learner)
        left = sum([await stores.kernel.depth(learner) for learner in learners])
        if not left or time.monotonic() >= deadline:
            return left
        await asyncio.sleep(0.5)
