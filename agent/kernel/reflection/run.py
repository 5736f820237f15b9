"""Run reflection: one learner (:func:`reflect_learner`) or many (:func:`reflect_learners`).

The graph (``graphs/reflection.py``), ``kag reflect``, the cron and ``POST /kernel/reflect``
all end up here, so every way of running reflection takes the same five steps in the
same order: synthesis -> anticipation -> curation -> prioritisation -> decay.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from typing import Any

from langchain_core.language_models import BaseChatModel

from agent.clock import as_aware
from agent.errors import StoreUnavailableError
from agent.kernel.reflection.anticipation import anticipation
from agent.kernel.reflection.maintenance import curation, decay, prioritisation
from agent.kernel.reflection.reports import DEFAULT_LIMIT, ReflectionReport, StepReport, check_limit
from agent.kernel.reflection.store import ReflectionStore
from agent.kernel.reflection.synthesis import synthesis
from agent.kernel.stream import KernelStream
from agent.resources import Resources
from agent.validation import validate_learner_id

log = logging.getLogger(__name__)

Step = Callable[..., Awaitable[StepReport]]
STEP_FUNCTIONS: dict[str, Step] = {
    "synthesis": synthesis,
    "anticipation": anticipation,
    "curation": curation,
    "prioritisation": prioritisation,
    "decay": decay,
}
"""The five steps in run order; each is ``async (store, learner_id, *, limit) -> StepReport``."""
MAX_LEARNERS = 1000
"""Learners one ``reflect_learners(None)`` call reflects at most."""


async def reflect_learner(
    store: ReflectionStore,
    learner_id: str,
    *,
    limit: int = DEFAULT_LIMIT,
    model: BaseChatModel | None = None,
) -> ReflectionReport:
    """Run the five steps for one learner; the report says what each step changed.

    ``model`` (optional) phrases the insights synthesis writes (``phrasing``).
    """
    learner_id = validate_learner_id(learner_id)
    limit = check_limit(limit)
    report = ReflectionReport(learner_id, limit, started_at=store.now_iso())
    for name, step in STEP_FUNCTIONS.items():
        extra = {"model": model} if name == "synthesis" else {}
        report.steps.append(await step(store, learner_id, limit=limit, **extra))
    report.finished_at = store.now_iso()
    return report


async def learners_due(store: ReflectionStore, *, max_learners: int = MAX_LEARNERS) -> list[str]:
    """Learners with unscanned items or insights/patterns due to decay."""
    cutoff = (as_aware(store.clock()) - timedelta(hours=1)).isoformat()
    return await store.learners_due(cutoff, max_learners)


async def invalidate(resources: Resources, learner_id: str) -> None:
    """Advance the learner's kernel generation (``KernelStream.bump``): cached consultations expire.

    Reflection writes Neo4j directly, not through the stream, so it bumps like any other
    such write. A Redis outage is logged, not raised: the insights are stored either way.
    """
    try:
        await KernelStream(resources.redis, prefix=resources.settings.kernel_prefix).bump(learner_id)
    except StoreUnavailableError as exc:
        log.warning("reflection could not bump the kernel generation: %s", exc)


async def reflect_learners(
    resources: Resources,
    learner_ids: Sequence[str] | None = None,
    *,
    limit: int = DEFAULT_LIMIT,
    on_change: Callable[[str], Awaitable[Any]] | None = None,
) -> list[ReflectionReport]:
    """Reflect each of ``learner_ids`` (None: every learner with something due), one after another.

    After a learner's run that changed something, ``on_change(learner_id)`` is awaited
    (default :func:`invalidate`, so cached consultations see the new insights).
    """
    limit = check_limit(limit)
    store = ReflectionStore.for_resources(resources)
    ids = (
        [validate_learner_id(i) for i in learner_ids]
        if learner_ids is not None
        else await learners_due(store)
    )
    reports = []
    for learner_id in dict.fromkeys(ids):
        report = await reflect_learner(store, learner_id, limit=limit, model=resources.chat_model)
        reports.append(report)
        if report.changed:
            await (on_change(learner_id) if on_change is not None else invalidate(resources, learner_id))
    return reports
