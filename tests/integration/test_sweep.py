"""The end-of-session sweep erases this session's test learners and their variants, no one else."""

from __future__ import annotations

import uuid

from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from tests.sweep import sweep


async def test_the_sweep_erases_the_learners_it_is_given_and_their_variants(resources: Resources) -> None:
    stores = MemoryStores.wire(resources)
    ours, theirs = f"test-{uuid.uuid4()}", f"test-{uuid.uuid4()}"
    learners = [ours, f"{ours}-other", theirs]
    try:
        for learner in learners:
            message = RecallMessage(f"{learner}-m", "user", "I mix up joins.", "2026-11-27T10:00:00+00:00")
            await stores.recall.log_messages(learner, "s1", [message])
            await build_worker(resources, stores).drain(learner)
            await resources.redis.set(f"kag-sweep-probe:{{{learner}}}", "1")
        assert all([await owned_nodes(resources, learner) for learner in learners])

        erased, keys = await sweep(resources, {ours})

        assert erased == 2 and keys >= 2
        assert await owned_nodes(resources, ours) == 0
        assert await owned_nodes(resources, f"{ours}-other") == 0
        probes = [f"kag-sweep-probe:{{{learner}}}" for learner in learners]
        assert not await resources.redis.exists(*probes[:2])
        assert await owned_nodes(resources, theirs) > 0  # another session's learner is left alone
        assert await resources.redis.exists(f"kag-sweep-probe:{{{theirs}}}") == 1
    finally:
        for learner in learners:
            await erase_learner(resources, learner)
            await resources.redis.delete(f"kag-sweep-probe:{{{learner}}}")
