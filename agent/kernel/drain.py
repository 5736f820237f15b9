"""Draining one learner's stream: read, apply in order, acknowledge after commit.

Used by the kernel worker (every learner, in the background) and by the write
backlog's replay (one learner, on demand). A learner is drained by one process at
a time (the stream's per-learner lock), so the learner's writes apply in the order
they were enqueued; entries a crashed drainer left pending are reclaimed first
(``XAUTOCLAIM``), then new ones are read.

Consecutive events with the same operation are applied together when their store
offers ``apply_backlog_batch`` (recall messages: one embedding call and one
``UNWIND`` write per session), else one by one. After a run applies, its hooks run
(write-time derivation); only then are the events acknowledged. So a crash between
commit and acknowledgement redelivers them, and idempotent writes (MERGE on ids)
make the redelivery a no-op.

Outcomes per run: ``StoreUnavailableError`` stops the drain (the events stay pending
and are retried); bad data (``ValueError``/``KeyError``, ``InvalidInputError`` is one)
is retried one event at a time and the failing event is dead-lettered with its error;
other ``KAGError`` (auth, permissions) pauses the drain. An event whose payload names
another learner than the stream it sits on is bad data too: it is dead-lettered, never
written under either learner.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Protocol

from agent.errors import KAGError, StoreUnavailableError
from agent.kernel.events import KernelEvent
from agent.kernel.stream import KernelStream

log = logging.getLogger(__name__)

Hook = Callable[[str, Sequence[dict[str, Any]]], Awaitable[None]]
"""``hook(learner_id, payloads)`` run after a run of one operation applied, before the ack."""


class EventConsumer(Protocol):
    """A store that applies kernel events (the ops it lists in ``backlog_ops``)."""

    backlog_ops: frozenset[str]

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Apply one event idempotently; raise StoreUnavailableError if Neo4j is down."""
        ...


_DRAINING: ContextVar[frozenset[str]] = ContextVar("kag_draining", default=frozenset())


def draining() -> frozenset[str]:
    """Learners whose stream the current task is draining (their derived writes apply directly)."""
    return _DRAINING.get()


def consumer_name(role: str = "worker") -> str:
    """A consumer name unique to this process: ``<role>-<host>-<pid>``."""
    return f"{role}-{socket.gethostname()}-{os.getpid()}"


@dataclass
class DrainResult:
    """What one drain of one learner did."""

    applied: int = 0
    """Events applied and acknowledged."""
    dead: int = 0
    """Events dead-lettered (bad data)."""
    finished: bool = True
    """False when the drain stopped early (Neo4j down, a paused error, or the lock was held)."""
    skipped: int = 0
    """Events whose operation no consumer here handles (left pending for one that does)."""
    max_lag: float = 0.0
    """Largest seconds between enqueue and acknowledgement among the applied events."""


async def drain_learner(
    stream: KernelStream,
    learner_id: str,
    routes: Mapping[str, EventConsumer],
    *,
    consumer: str,
    batch_size: int = 50,
    hooks: Mapping[str, Sequence[Hook]] | None = None,
    wait_lock: float = 0.0,
    claim_idle_ms: int = 0,
    max_batches: int | None = None,
    now: Callable[[], float] | None = None,
) -> DrainResult:
    """Apply the learner's events in order until the stream is empty (or ``max_batches``)."""
    clock = now or time.time
    result = DrainResult()
    token = await stream.lock(learner_id, wait=wait_lock)
    if token is None:
        result.finished = False
        return result
    marker = _DRAINING.set(_DRAINING.get() | {learner_id})
    try:
        batches = 0
        while max_batches is None or batches < max_batches:
            # Under the learner's lock nobody else drains it: anything pending is orphaned.
            events = await stream.read(learner_id, consumer, batch_size, claim_idle_ms=claim_idle_ms)
            if not events:
                break
            batches += 1
            stop = await _apply_batch(stream, learner_id, events, routes, hooks or {}, result, clock)
            if stop:
                result.finished = False
                break
            if not await stream.refresh(learner_id, token):
                log.warning("kernel lock of a learner expired mid-drain; stopping")
                result.finished = False
                break
        if result.finished and not result.skipped:
            await stream.retire_if_empty(learner_id)
    finally:
        _DRAINING.reset(marker)
        await stream.unlock(learner_id, token)
    return result


def _runs(events: Sequence[KernelEvent]) -> list[list[KernelEvent]]:
    runs: list[list[KernelEvent]] = []
    for event in events:
        if runs and runs[-1][0].op == event.op:
            runs[-1].append(event)
        else:
            runs.append([event])
    return runs


async def _apply_batch(
    stream: KernelStream,
    learner_id: str,
    events: list[KernelEvent],
    routes: Mapping[str, EventConsumer],
    hooks: Mapping[str, Sequence[Hook]],
    result: DrainResult,
    clock: Callable[[], float],
) -> bool:
    """Apply ``events`` run by run; True when the drain must stop."""

    async def apply(target: EventConsumer, run: list[KernelEvent]) -> bool:
        try:
            await _apply_run(target, run, hooks.get(run[0].op, ()), learner_id)
        except StoreUnavailableError:
            return True
        except (ValueError, KeyError) as exc:
            if len(run) == 1:
                await _dead(stream, run[0], result, exc)
                return False
            for event in run:  # find the bad one; the good ones still apply
                if await apply(target, [event]):
                    return True
            return False
        except KAGError as exc:
            log.warning("kernel drain paused at entry %s: %s", run[0].entry_id, exc)
            return True
        await _acked(stream, learner_id, run, result, clock)
        return False

    for run in _runs(events):
        target = routes.get(run[0].op)
        if target is None:
            result.skipped += len(run)  # its store is not wired here: leave it pending
        elif await apply(target, run):
            return True
    return False


def _foreign(learner_id: str, event: KernelEvent) -> bool:
    """True when the event's payload names another learner than the stream it sits on."""
    owner = event.payload.get("learner_id")
    return owner is not None and owner != learner_id


async def _apply_run(
    target: EventConsumer, run: list[KernelEvent], hooks: Sequence[Hook], learner_id: str
) -> None:
    foreign = [e.entry_id for e in run if _foreign(learner_id, e)]
    if foreign:  # one learner's stream never writes under another learner
        raise ValueError(f"entries {foreign[:3]} name another learner than their stream's")
    payloads = [e.payload for e in run]
    batch = getattr(target, "apply_backlog_batch", None)
    if batch is not None:
        await batch(run[0].op, payloads)
    else:
        for event in run:
            await target.apply_backlog_entry(event.op, event.payload)
    for hook in hooks:
        await hook(learner_id, payloads)


async def _acked(
    stream: KernelStream,
    learner_id: str,
    run: list[KernelEvent],
    result: DrainResult,
    clock: Callable[[], float],
) -> None:
    await stream.ack(learner_id, run)
    result.applied += len(run)
    now = clock()
    result.max_lag = max([result.max_lag, *(now - e.at for e in run if e.at)])


async def _dead(
    stream: KernelStream, event: KernelEvent, result: DrainResult, exc: BaseException | None = None
) -> None:
    log.error("kernel entry %s can never apply, dead-lettered: %s", event.entry_id, exc)
    await stream.dead_letter(event, str(exc) if exc else "invalid")
    result.dead += 1
