"""Erase a bench learner everywhere: its Neo4j data and every Redis key of it (kernel keys included)."""

from __future__ import annotations

from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryStores
from agent.resources import Resources


async def erase(resources: Resources, stores: MemoryStores, learner: str) -> None:
    """``erase_learner``, then the learner's remaining Redis keys and its kernel active-set entry.

    Idempotency keys would otherwise stay for their 7-day TTL.
    """
    await erase_learner(resources, learner)
    keys = [k async for k in resources.redis.scan_iter(match=f"*{learner}*", count=1000)]
    if keys:
        await resources.redis.delete(*keys)
    await resources.redis.srem(stores.kernel.active_key, learner)
