"""Reflection on demand: what ``POST /kernel/reflect`` and ``kag reflect`` run.

Both call the reflection package (``agent.kernel.reflection``) directly, over the same
resources bundle; the cron runs the served ``reflection``
graph instead (``agent.server.kernel_cron``). The route always passes exactly one
learner, the authenticated one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent.kernel.reflection.reports import DEFAULT_LIMIT
from agent.resources import Resources
from agent.server.kernel_status import as_plain
from agent.validation import validate_learner_id


async def reflect_learners(
    resources: Resources, learner_ids: Sequence[str] | None, *, limit: int = DEFAULT_LIMIT
) -> list[dict[str, Any]]:
    """Reflect ``learner_ids`` (None: every learner with something due); one report each.

    A learner whose run changed something gets a new write generation (the reflection
    package's default ``invalidate``), so their cached consultations are not served stale.
    """
    from agent.kernel.reflection.run import reflect_learners as run

    ids = None if learner_ids is None else [validate_learner_id(lid) for lid in learner_ids]
    reports = await run(resources, ids, limit=limit)
    return [as_plain(report) for report in reports]


async def reflect_one(resources: Resources, learner_id: str, *, limit: int = DEFAULT_LIMIT) -> dict[str, Any]:
    """Reflect one learner (the authenticated one, for the route); their report."""
    reports = await reflect_learners(resources, [learner_id], limit=limit)
    return reports[0] if reports else {}
