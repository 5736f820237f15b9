"""Erasing one learner's threads: the owner index, threads written without a principal, a guard.

Which threads are L's (``agent.checkpoint.owners``): every write with principal L lists
its thread in ``P:owned:L`` and records L as the thread's owner; a write without a
principal lists the thread in ``P:unowned``. Erasing L (no I/O here; the savers drive it):

1. every thread of ``P:owned:L`` whose owner record is L is deleted by DELETE_THREAD
   with the guard ``=L``, so the ownership check and the delete are one script. A
   thread another learner owns (listed after a refused claim) is left alone.
2. every thread of ``P:unowned`` is looked at: one L owns by now goes as in 1; one that
   nobody owns goes (guard ``~L``: L or nobody) when ``adopt`` says a value it holds
   names L. The saver does not know the graphs' state, the caller does
   (``agent.memory.erasure`` reads the ``learner_id`` channel and the run's input).
3. the index members, and the ``threads`` and ``run:R`` members of what was deleted,
   are removed in one pipeline with a re-read of the owners, so a thread a concurrent
   write of L re-created goes back into ``P:owned:L``; the steps repeat until that set
   is empty, or fail after ``ROUNDS`` with a clear error (L is still writing).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agent.checkpoint.base import RedisCheckpointBase, q, uq
from agent.checkpoint.codec import BadValueError, CorruptCheckpointError
from agent.checkpoint.ops import delete_rounds
from agent.checkpoint.owners import owner_key
from agent.checkpoint.requests import Batch, Op
from agent.errors import StoreError

Adopt = Callable[[str, Any], bool]
"""``adopt(channel, value)``: True when an unowned thread's value says it is the learner's."""

ROUNDS = 10
PAGE = 500


def erase_owner(
    saver: RedisCheckpointBase, owner: str, adopt: Adopt | None = None, channels: Sequence[str] = ()
) -> Op:
    """Delete every thread ``owner`` owns, and the unowned ones ``adopt`` gives them; return their ids.

    ``channels``: the root-namespace channels whose values ``adopt`` reads.
    """
    erased: list[str] = []
    if adopt is not None and channels:
        guards = yield from _unowned(saver, owner, adopt, channels)
        erased += yield from _delete_guarded(saver, owner, guards)
    for _ in range(ROUNDS):
        (members,) = yield Batch([("SMEMBERS", saver.owned_key(owner))])
        if not members:
            return erased
        erased += yield from _delete_guarded(saver, owner, {uq(m): "=" for m in members})
    raise StoreError(f"the threads of {owner!r} kept being written while they were erased; retry")


def _unowned(saver: RedisCheckpointBase, owner: str, adopt: Adopt, channels: Sequence[str]) -> Op:
    """Guards for the ``P:unowned`` threads that are ``owner``'s; claimed or gone members are dropped."""
    guards: dict[str, str] = {}
    cursor: Any = 0
    while True:
        ((cursor, members),) = yield Batch([("SSCAN", saver.unowned_key(), cursor, "COUNT", PAGE)])
        tids = [uq(m) for m in members]
        if tids:
            got = yield Batch(
                [("GET", owner_key(saver, t)) for t in tids] + [("EXISTS", saver.ns_set_key(t)) for t in tids]
            )
            owners, alive = got[: len(tids)], got[len(tids) :]
            stale = [q(t) for t, o, n in zip(tids, owners, alive, strict=True) if not n or o is not None]
            mine = [t for t, o in zip(tids, owners, strict=True) if o is not None and _text(o) == owner]
            guards |= dict.fromkeys(mine, "=")
            free = [t for t, o, n in zip(tids, owners, alive, strict=True) if n and o is None]
            if free:
                named = yield from _named(saver, free, adopt, channels)
                guards |= dict.fromkeys(named, "~")
            if stale:  # claimed since, or deleted: no longer anyone's unowned thread
                yield Batch([("SREM", saver.unowned_key(), *stale)])
        if int(cursor) == 0:
            return guards


def _named(saver: RedisCheckpointBase, tids: list[str], adopt: Adopt, channels: Sequence[str]) -> Op:
    """The threads of ``tids`` whose root-namespace ``channels`` hold a value ``adopt`` accepts."""
    wanted = [(t, ch) for t in tids for ch in channels]
    found: set[str] = set()
    todo = {pair: 0 for pair in wanted}
    while todo:
        pairs = list(todo)
        replies = yield Batch(
            [
                ("HSCAN", saver.blobs_key(t, ""), todo[(t, ch)], "MATCH", f"{q(ch)}:*", "COUNT", 1000)
                for t, ch in pairs
            ]
        )
        todo = {}
        for (t, ch), (cursor, values) in zip(pairs, replies, strict=True):
            items = values.values() if isinstance(values, Mapping) else values[1::2]
            if any(_accepts(saver, adopt, ch, raw) for raw in items):
                found.add(t)
            elif int(cursor) != 0:  # a big blobs hash: HSCAN goes on where it stopped
                todo[(t, ch)] = cursor
    return [t for t in tids if t in found]


def _accepts(saver: RedisCheckpointBase, adopt: Adopt, channel: str, raw: bytes) -> bool:
    try:
        value = saver.load(raw, "an unowned thread's blob")
    except (BadValueError, CorruptCheckpointError):
        return False  # an empty channel version, or a value nobody can read
    return bool(adopt(channel, value))


def _delete_guarded(saver: RedisCheckpointBase, owner: str, guards: dict[str, str]) -> Op:
    """DELETE_THREAD with each thread's guard, then the indexes (see the module doc, step 3)."""
    if not guards:
        return []
    deleted, srems, left = yield from delete_rounds(
        saver, {tid: guard + owner for tid, guard in guards.items()}, "delete", 1, ROUNDS
    )
    if left:
        raise StoreError(f"threads {sorted(left)!r} kept changing while being erased; retry")
    tids = list(guards)
    after: list[tuple[Any, ...]] = [("SREM", saver.owned_key(owner), *map(q, tids))]
    if deleted:
        gone = [q(t) for t in deleted]
        after += [("SREM", saver.unowned_key(), *gone), ("SREM", saver.threads_key(), *gone)]
    after += srems
    owners = (yield Batch(after + [("GET", owner_key(saver, t)) for t in tids]))[len(after) :]
    back = [q(t) for t, o in zip(tids, owners, strict=True) if o is not None and _text(o) == owner]
    if back:  # re-created by a concurrent write of the owner: found again by the next round
        yield Batch([("SADD", saver.owned_key(owner), *back), ("SADD", saver.threads_key(), *back)])
    return deleted


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
