"""The worker's deferred work (turn sentences): finished by ``drain``, postponed by an outage."""

from __future__ import annotations

from agent.errors import StoreUnavailableError
from agent.kernel.worker import KernelWorker


async def test_drain_finishes_deferred_work_and_an_outage_postpones_it() -> None:
    calls: list[str | None] = []

    async def flaky(learner_id: str | None) -> int:
        calls.append(learner_id)
        if len(calls) <= 2:
            return 3  # two rounds with work
        raise StoreUnavailableError("Neo4j", "down")

    worker = KernelWorker(object(), {}, deferred=[flaky])  # type: ignore[arg-type]
    await worker._finish_deferred("ada")  # no exception: the drain itself stands
    assert calls == ["ada", "ada", "ada"] and worker.stats()["deferred"] == 6

    rounds: list[str | None] = []

    async def two_rounds(learner_id: str | None) -> int:
        rounds.append(learner_id)
        return 1 if len(rounds) < 3 else 0

    worker = KernelWorker(object(), {}, deferred=[two_rounds])  # type: ignore[arg-type]
    await worker._finish_deferred("ben")
    assert rounds == ["ben", "ben", "ben"]  # until a round finds nothing
    assert await worker.idle_round() == 0 and rounds[-1] is None  # idle rounds take any learner
    assert not await KernelWorker(object(), {})._may_defer()  # type: ignore[arg-type]  # nothing deferred
