"""Erase, at the end of a test session, what its learners left in the shared Neo4j and Redis.

Many tests clean up after themselves, not all do, and some write for variants of their
learner (``<id>-other``, ``<id>-x``). Without a sweep every ``make test`` leaves about a
thousand keys and a few hundred nodes behind in the developer's services. Only this
session's learners are erased, so a suite running at the same time from another checkout
keeps its own.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent.memory.erasure import erase_learner
from agent.resources import Resources

LEARNERS: set[str] = set()
"""Every learner id the ``learner_id`` fixture handed out in this session: the ones ``sweep`` erases."""
LEARNER_ID = re.compile(r"test-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
"""A ``learner_id`` fixture's id (``test-<uuid4>``), alone or at the start of a variant."""
TEST_LEARNERS = """
CALL () {
  MATCH (n) WHERE n.learner_id STARTS WITH 'test-' RETURN DISTINCT n.learner_id AS id
  UNION
  MATCH (n:Learner) WHERE n.id STARTS WITH 'test-' RETURN n.id AS id
}
RETURN DISTINCT id
"""


def _ours(name: str, learners: set[str]) -> bool:
    """True when ``name`` (a learner id or a Redis key) names one of ``learners`` or a variant."""
    found = LEARNER_ID.search(name)
    return found is not None and found.group(0) in learners


async def sweep(resources: Resources, learners: Iterable[str]) -> tuple[int, int]:
    """Erase ``learners`` and their variants; the learners erased and the other keys deleted."""
    wanted = set(learners)
    if not wanted:
        return 0, 0
    async with resources.neo4j.session(database=resources.database) as session:
        rows = await (await session.run(TEST_LEARNERS)).data()
    erased = sorted({str(r["id"]) for r in rows if _ours(str(r["id"]), wanted)})
    for learner in erased:
        await erase_learner(resources, learner)
    keys = []
    async for key in resources.redis.scan_iter(match="*test-*", count=1000):
        name = key.decode() if isinstance(key, bytes) else str(key)
        if _ours(name, wanted):
            keys.append(key)
    for start in range(0, len(keys), 500):
        await resources.redis.delete(*keys[start : start + 500])
    return len(erased), len(keys)
