"""Saver operations written once, as generators that never touch the network.

Each operation yields ``Batch`` requests (commands sent in one pipeline, optionally
wrapped in MULTI/EXEC) and receives their replies; ``alist``'s operation also yields
``Emit`` items. The async saver drives them with ``redis.asyncio``, the sync saver
with the blocking client, so the logic exists once and only the transport differs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    get_checkpoint_metadata,
)

from agent.checkpoint.base import (
    RedisCheckpointBase,
    Target,
    blob_field,
    check_checkpoint,
    q,
    target_of,
    thread_id_of,
    uq,
    write_field,
)
from agent.checkpoint.codec import (
    EMPTY_VALUE,
    BadValueError,
    CorruptCheckpointError,
    encode_row,
    split_row,
)
from agent.checkpoint.lua import (
    DELETE_CHECKPOINTS,
    DELETE_THREAD,
    FETCH,
    PUT,
    PUT_WRITES,
    LuaScript,
)
from agent.checkpoint.owners import claim, index_write, owner_key, raise_owned, visible
from agent.checkpoint.requests import Batch, Emit, Op
from agent.errors import InvalidInputError, StoreError

__all__ = ["Batch", "Emit", "Op"]  # re-exported: drivers and listing import them from here


PRUNE_STRATEGIES = {"keep_latest": "keep", "delete": "delete", "delete_all": "delete"}


def trim_due(count: int, keep: int | None) -> bool:
    """True when a put that left ``count`` checkpoints in a namespace must trim it to ``keep``.

    Only once ``keep`` is passed by a slack (a tenth of ``keep``, at least 10), so the
    trim, which reads the kept rows and the blob names, runs once per that many steps.
    """
    return keep is not None and count > keep + max(10, keep // 10)


def script_call(script: LuaScript, keys: Sequence[str], *args: Any) -> tuple[Any, ...]:
    """An EVALSHA of ``script`` with its ``KEYS`` and ``ARGV``."""
    return ("EVALSHA", script.sha, len(keys), *keys, *args)


def _flat(mapping: Mapping[str, Any]) -> list[Any]:
    return [x for kv in mapping.items() for x in kv]


def _expire(saver: RedisCheckpointBase, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    return [("EXPIRE", k, saver.ttl) for k in keys] if saver.ttl else []


def fetch_command(saver: RedisCheckpointBase, t: Target, mode: str, *rest: Any, blobs: bool = True) -> tuple:
    """The FETCH script call (see ``agent.checkpoint.lua``) for ``t``."""
    ttl = saver.ttl if saver.ttl and saver.refresh_on_read else 0
    keys = [*saver.ns_keys(t.thread_id, t.checkpoint_ns), saver.ns_set_key(t.thread_id)]
    return script_call(FETCH, keys, ttl, mode, int(blobs), *rest)


@dataclass
class FetchedPage:
    """What one FETCH call returned."""

    scanned: int
    last: str
    rows: list[bytes]
    writes: list[bytes]
    blobs: dict[bytes, bytes | None]

    @classmethod
    def of(cls, reply: Sequence[Any]) -> FetchedPage:
        """Parse the script's reply ``[scanned, last, rows, writes, flat blobs]``."""
        scanned, last, rows, writes, flat = reply
        found = dict(zip(flat[::2], flat[1::2], strict=True))
        return cls(scanned, last.decode() if last else "", rows, writes, found)


def fetch(saver: RedisCheckpointBase, t: Target, mode: str, *rest: Any, blobs: bool = True) -> Op:
    """One FETCH script call: rows, their writes and (``blobs``) the blobs they use."""
    (reply,) = yield Batch([fetch_command(saver, t, mode, *rest, blobs=blobs)])
    return FetchedPage.of(reply)


def get_tuple(saver: RedisCheckpointBase, config: RunnableConfig) -> Op:
    """One round trip: the FETCH script resolves "latest" server-side."""
    t = target_of(config)
    if not (yield from visible(saver, [t.thread_id], config)):
        return None  # another learner's thread: nothing to see
    mode, rest = ("ids", (t.checkpoint_id,)) if t.checkpoint_id else ("latest", ())
    page = yield from fetch(saver, t, mode, *rest)
    if not page.rows:
        return None
    return saver.make_tuple(t, page.rows[0], page.writes[0], page.blobs)


def put(
    saver: RedisCheckpointBase,
    config: RunnableConfig,
    checkpoint: Checkpoint,
    metadata: CheckpointMetadata,
    new_versions: ChannelVersions,
) -> Op:
    """Everything serialised first, then one PUT script call on the thread's keys.

    The script claims the thread and writes the checkpoint atomically. The prefix-wide sets
    are written first, so a crash between the two leaves a stale index member, never an
    unlisted checkpoint.
    """
    t = target_of(config)
    check_checkpoint(checkpoint, metadata, new_versions)
    tid, ns, cid = t.thread_id, t.checkpoint_ns, checkpoint["id"]
    body = dict(checkpoint)
    values = body.pop("channel_values", None) or {}
    blobs = {
        blob_field(ch, ver): saver.dump(values[ch]) if ch in values else EMPTY_VALUE
        for ch, ver in new_versions.items()
    }
    meta = get_checkpoint_metadata(config, metadata)
    run_id = meta.get("run_id")
    refs = " ".join(blob_field(ch, v) for ch, v in body.get("channel_versions", {}).items())
    run = q(str(run_id)) if run_id else ""
    parent = t.checkpoint_id or ""
    row = encode_row(cid, saver.dump([body, meta]), parent, run, refs)
    principal = saver.principal(config)
    index: list[tuple[Any, ...]] = [("SADD", saver.threads_key(), q(tid)), index_write(saver, principal, tid)]
    if run_id:
        run_key = saver.run_key(str(run_id))
        index += [("SADD", run_key, saver.run_member(tid, ns, cid)), *_expire(saver, [run_key])]
    keys = [
        owner_key(saver, tid),
        saver.blobs_key(tid, ns),
        saver.rows_key(tid, ns),
        saver.index_key(tid, ns),
        saver.ns_set_key(tid),
    ]
    args = [principal or "", saver.ttl or 0, cid, row, q(ns), *_flat(blobs)]
    (count,) = yield Batch([script_call(PUT, keys, *args)], index=index)
    if count == -1:
        raise_owned(tid)
    if trim_due(count, saver.keep):  # the history is bounded: drop the oldest past ``keep``
        after = yield from _apply_delete(saver, [tid], "keep", saver.keep)  # PUT just checked the owner
        if after:
            yield Batch(after)
    return t.config(cid)


def put_writes(
    saver: RedisCheckpointBase,
    config: RunnableConfig,
    writes: Sequence[tuple[str, Any]],
    task_id: str,
    task_path: str = "",
) -> Op:
    """Regular writes keep the first value per (task, idx); special ones overwrite."""
    t = target_of(config, need_id=True)
    if not isinstance(task_id, str) or not task_id:
        raise InvalidInputError(f"task_id must be a non-empty string, got {task_id!r}")
    if isinstance(writes, (str, bytes)) or not isinstance(writes, Sequence):
        raise InvalidInputError(f"writes must be a list of (channel, value), got {writes!r}")
    tid, ns, cid = t.thread_id, t.checkpoint_ns, t.checkpoint_id or ""
    args: list[Any] = []
    for i, w in enumerate(writes):
        if not isinstance(w, (tuple, list)) or len(w) != 2 or not isinstance(w[0], str):
            raise InvalidInputError(f"write #{i} must be a (channel, value) pair, got {w!r}")
        idx = saver.write_idx(w[0], i)
        try:
            packed = saver.dump_write(task_id, task_path or "", idx, w[0], w[1])
        except Exception as exc:
            raise InvalidInputError(f"write #{i} to {w[0]!r} is not serializable: {exc}") from exc
        args += ["set" if idx < 0 else "nx", write_field(task_id, idx), packed]
    if args:
        keys = (saver.packed_writes_key(tid, ns), saver.write_fields_key(tid, ns), owner_key(saver, tid))
        principal = saver.principal(config)
        call = script_call(PUT_WRITES, keys, principal or "", saver.ttl or 0, cid, *args)
        (done,) = yield Batch([call], index=[index_write(saver, principal, tid)])
        if done == -1:
            raise_owned(tid)


def thread_keys(saver: RedisCheckpointBase, tid: str, nss: Sequence[str]) -> list[str]:
    """Namespace set, owner, then five keys per (encoded) namespace: DELETE_THREAD's KEYS."""
    keys = [saver.ns_set_key(tid), owner_key(saver, tid)]
    for n in nss:
        keys += saver.ns_keys(tid, uq(n))
    return keys


def delete_threads(
    saver: RedisCheckpointBase,
    thread_ids: Sequence[Any],
    strategy: str,
    *,
    keep: int = 1,
) -> Op:
    """Delete or prune threads: one atomic script per thread, then the prefix-wide sets.

    ``keep_latest`` keeps the newest ``keep`` checkpoints of every namespace (and the
    blobs they use); ``delete`` removes everything.
    """
    if isinstance(thread_ids, (str, bytes)):
        raise InvalidInputError("thread_ids must be a list of thread ids, not a string")
    if strategy not in PRUNE_STRATEGIES:
        raise InvalidInputError(f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'")
    if isinstance(keep, bool) or not isinstance(keep, int) or keep < 1:
        raise InvalidInputError(f"keep must be a positive number of checkpoints, got {keep!r}")
    mode = PRUNE_STRATEGIES[strategy]
    names = [thread_id_of(t) for t in thread_ids]
    todo = yield from visible(saver, names, None)  # another learner's thread is never touched
    after = yield from _apply_delete(saver, todo, mode, keep)
    if mode == "delete":
        after += [("SREM", saver.threads_key(), q(t)) for t in names]
    if after:
        yield Batch(after)
    if mode == "delete":
        yield from _reregister(saver, names)


def _apply_delete(saver: RedisCheckpointBase, todo: list[str], mode: str, keep: int) -> Op:
    """DELETE_THREAD on each of ``todo`` (threads the caller may touch), in up to 10 rounds.

    Returns the SREMs of the removed checkpoints' run-set members (the caller sends them).
    """
    _, srems, left = yield from delete_rounds(saver, dict.fromkeys(todo, ""), mode, keep)
    if left:
        raise StoreError(f"threads {list(left)!r} kept changing while being deleted; retry")
    return srems


def delete_rounds(
    saver: RedisCheckpointBase, guards: Mapping[str, str], mode: str, keep: int, rounds: int = 10
) -> Op:
    """DELETE_THREAD on each thread of ``guards`` (thread id -> the script's guard, "" for none).

    The script gets the thread's namespaces as keys; when a concurrent write added a
    namespace after they were read, it changes nothing (code 0) and the thread is tried
    again, at most ``rounds`` times; a guard that no longer holds (code 2) leaves it.
    Returns ``(deleted ids, the SREMs of their run-set members, {thread: guard} still left)``.
    """
    deleted: list[str] = []
    runs: list[tuple[str, bytes]] = []
    todo = dict(guards)
    for _ in range(rounds):
        if not todo:
            break
        nss = yield Batch([("SMEMBERS", saver.ns_set_key(t)) for t in todo])
        names = [sorted(n.decode() for n in members) for members in nss]
        calls = [
            script_call(DELETE_THREAD, thread_keys(saver, tid, ns), mode, keep, q(tid), guard, *ns)
            for (tid, guard), ns in zip(todo.items(), names, strict=True)
        ]
        replies = yield Batch(calls)
        retry = {}
        for (tid, guard), (code, data) in zip(todo.items(), replies, strict=True):
            if code == 0:  # a namespace appeared since SMEMBERS: read again
                retry[tid] = guard
            elif code == 1:
                deleted.append(tid)
                runs += [(data[i].decode(), data[i + 1]) for i in range(0, len(data), 2)]
        todo = retry
    return deleted, [("SREM", f"{saver.key_prefix}:run:{r}", m) for r, m in runs], todo


def _reregister(saver: RedisCheckpointBase, thread_ids: Sequence[str]) -> Op:
    """Put back into ``threads`` any of ``thread_ids`` a concurrent write re-created."""
    if not thread_ids:
        return
    alive = yield Batch([("EXISTS", saver.ns_set_key(t)) for t in thread_ids])
    back = [("SADD", saver.threads_key(), q(t)) for t, n in zip(thread_ids, alive, strict=True) if n]
    if back:
        yield Batch(back)


def delete_for_runs(saver: RedisCheckpointBase, run_ids: Sequence[Any]) -> Op:
    """Delete every checkpoint (and its writes) whose metadata run_id is listed.

    Reads the run sets, runs one DELETE_CHECKPOINTS script per thread, then drops the
    run sets and the threads left empty from ``threads``.
    """
    if isinstance(run_ids, (str, bytes)):
        raise InvalidInputError("run_ids must be a list of run ids, not a string")
    run_keys = [saver.run_key(str(r)) for r in run_ids if r is not None and str(r)]
    if not run_keys:
        return
    members = yield Batch([("SMEMBERS", k) for k in run_keys])
    threads: dict[str, dict[str, list[str]]] = {}
    for m in (m.decode() for ms in members for m in ms):
        parts = m.split(":", 2)
        if len(parts) == 3:
            threads.setdefault(parts[0], {}).setdefault(parts[1], []).append(parts[2])
    calls = []
    for qt, by_ns in threads.items():
        tid = uq(qt)
        keys = [saver.ns_set_key(tid)]
        args: list[Any] = []
        for n, cids in sorted(by_ns.items()):
            keys += saver.ns_keys(tid, uq(n))
            args += [n, len(cids), *cids]
        calls.append(script_call(DELETE_CHECKPOINTS, keys, *args))
    left = (yield Batch(calls)) if calls else []
    emptied = [uq(qt) for qt, n in zip(threads, left, strict=True) if n == 0]
    after = [("DEL", k) for k in run_keys] + [("SREM", saver.threads_key(), q(t)) for t in emptied]
    yield Batch(after)
    yield from _reregister(saver, emptied)


def copy_thread(saver: RedisCheckpointBase, source: Any, target: Any) -> Op:
    """Copy every namespace, checkpoint, write and blob; written in one MULTI/EXEC.

    Raw values are copied as stored; only metadata naming the source ``thread_id``
    (the LangGraph server adds it) is rewritten to the target.
    """
    src, dst = thread_id_of(source), thread_id_of(target)
    if src == dst:
        raise InvalidInputError("copy_thread needs different source and target thread ids")
    if not (yield from visible(saver, [src], None)):
        return  # another learner's thread: there is nothing to copy
    yield from claim(saver, dst, None)
    (nss,) = yield Batch([("SMEMBERS", saver.ns_set_key(src))])
    nss = sorted(uq(n) for n in nss)
    if not nss:
        return
    reads = [
        c
        for ns in nss
        for c in (
            ("ZRANGE", saver.index_key(src, ns), 0, -1),
            ("HGETALL", saver.blobs_key(src, ns)),
            ("HGETALL", saver.rows_key(src, ns)),
            ("HGETALL", saver.packed_writes_key(src, ns)),
            ("HGETALL", saver.write_fields_key(src, ns)),
        )
    ]
    got = yield Batch(reads)
    index: list[tuple[Any, ...]] = [("SADD", saver.threads_key(), q(dst))]
    index.append(index_write(saver, saver.principal(None), dst))
    cmds: list[tuple[Any, ...]] = []
    keys = [saver.ns_set_key(dst)]
    for k, ns in enumerate(nss):
        ids, blobs, rows, packed, fields = got[5 * k : 5 * k + 5]
        where = saver.rows_key(src, ns)
        copied: dict[bytes, bytes] = {}
        for cid_b in ids:
            row = rows.get(cid_b)
            if row is None:
                continue
            try:
                run, refs, (cid, state, parent) = split_row(row)
            except BadValueError as exc:
                raise CorruptCheckpointError(f"corrupted checkpoint at {where}[{cid_b!r}]: {exc}") from exc
            body, meta = saver.load(state, where)
            if isinstance(meta, dict) and meta.get("thread_id") == src:
                state = saver.dump([body, {**meta, "thread_id": dst}])
                row = encode_row(cid, state, parent, run, b" ".join(refs).decode())
            copied[cid_b] = row
            if run:
                run_key = f"{saver.key_prefix}:run:{run}"
                index += [("SADD", run_key, saver.run_member(dst, ns, cid)), *_expire(saver, [run_key])]
        if blobs:
            cmds.append(("HSET", saver.blobs_key(dst, ns), *_flat(blobs)))
        if copied:
            cmds += [
                ("HSET", saver.rows_key(dst, ns), *_flat(copied)),
                ("ZADD", saver.index_key(dst, ns), *[x for cid in copied for x in (0, cid)]),
            ]
        for hkey, values in ((saver.packed_writes_key, packed), (saver.write_fields_key, fields)):
            kept = {c: v for c, v in values.items() if c in copied}
            if kept:
                cmds.append(("HSET", hkey(dst, ns), *_flat(kept)))
        cmds.append(("SADD", saver.ns_set_key(dst), q(ns)))
        keys += saver.ns_keys(dst, ns)
    yield Batch(cmds + _expire(saver, keys), transaction=True, index=index)
