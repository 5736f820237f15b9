"""A kernel worker that dies (SIGKILL) right after its first batch commits, before the ack.

Run by ``test_worker_crash``: ``python -m tests.integration.kernel.crash_worker LEARNER``.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from collections.abc import Sequence
from typing import Any

from agent.kernel.events import OP_RECALL
from agent.kernel.worker import build_worker
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.settings import Settings


async def main(learner_id: str) -> None:
    """Drain ``learner_id`` one event per batch; the hook kills the process after the first commit."""
    resources = Resources(Settings.from_env())
    stores = MemoryStores.wire(resources)

    async def crash(_: str, payloads: Sequence[dict[str, Any]]) -> None:
        print(f"committed {sum(len(p['messages']) for p in payloads)}", flush=True)
        os.kill(os.getpid(), signal.SIGKILL)

    stores.backlog.add_hook(OP_RECALL, "zz-crash", crash)  # runs after the real derivations
    worker = build_worker(resources, stores, consumer="doomed", batch_size=1)
    await worker.drain(learner_id)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
