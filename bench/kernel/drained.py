"""Wait until a bench's learners are fully ingested, whoever drains them.

Every kernel worker on the same Redis drains every active learner (the per-learner lock
spreads them), so another process's worker may hold one of the bench's learners when the
bench drains it: ``KernelWorker.drain`` then waits for the lock and can return with entries
still pending. ``drain_all`` drains and re-checks the streams until they are empty.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

from agent.memory.stores import MemoryStores


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
