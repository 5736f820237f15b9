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
    LAYOUT_VERSION,
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
    ALL_SCRIPTS,
    DELETE_RUNS,
    DELETE_THREADS,
    FETCH,
    PUT_WRITES,
    LuaScript,
)
from agent.checkpoint.owners import claim, visible
from agent.checkpoint.requests import Batch, Emit, Op
from agent.errors import InvalidInputError, StoreError

__all__ = ["Batch", "Emit", "Op"]  # re-exported: drivers and listing import them from here


PRUNE_STRATEGIES = {"keep_latest": "keep_latest", "delete": "delete", "delete_all": "delete"}


def _call(script: LuaScript, *args: Any) -> tuple[Any, ...]:
    return ("EVALSHA", script.sha, 0, *args)


def _flat(mapping: Mapping[str, Any]) -> list[Any]:
    return [x for kv in mapping.items() for x in kv]


def _expire(saver: RedisCheckpointBase, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    return [("EXPIRE", k, saver.ttl) for k in keys] if saver.ttl else []


def fetch_command(saver: RedisCheckpointBase, t: Target, mode: str, *rest: Any, blobs: bool = True) -> tuple:
    """The FETCH script call (see ``agent.checkpoint.lua``) for ``t``."""
    ttl = saver.ttl if saver.ttl and saver.refresh_on_read else 0
    head = (saver.key_prefix, q(t.thread_id), q(t.checkpoint_ns), ttl, mode, int(blobs))
    return _call(FETCH, *head, *rest)


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
    """Everything serialised first, then one MULTI/EXEC: no partial checkpoint."""
    t = target_of(config)
    check_checkpoint(checkpoint, metadata, new_versions)
    tid, ns, cid = t.thread_id, t.checkpoint_ns, checkpoint["id"]
    yield from claim(saver, tid, config)
    body = dict(checkpoint)
    values = body.pop("channel_values", None) or {}
    blobs = {
        blob_field(ch, ver): saver.dump(values[ch]) if ch in values else EMPTY_VALUE
        for ch, ver in new_versions.items()
    }
    meta = get_checkpoint_metadata(config, metadata)
    run_id = meta.get("run_id")
    run_key = saver.run_key(str(run_id)) if run_id else None
    ckpt_key = saver.checkpoint_key(tid, ns, cid)
    refs = " ".join(blob_field(ch, v) for ch, v in body.get("channel_versions", {}).items())
    run = q(str(run_id)) if run_id else ""
    parent = t.checkpoint_id or ""
    row = encode_row(cid, saver.dump([body, meta]), parent, run, refs)
    cmds: list[tuple[Any, ...]] = []
    if blobs:
        cmds.append(("HSET", saver.blobs_key(tid, ns), *_flat(blobs)))
    cmds += [
        ("SET", ckpt_key, row),
        ("ZADD", saver.index_key(tid, ns), 0, cid),
        ("SADD", saver.ns_set_key(tid), q(ns)),
        ("SADD", saver.threads_key(), q(tid)),
    ]
    keys = [ckpt_key, saver.index_key(tid, ns), saver.ns_set_key(tid), saver.blobs_key(tid, ns)]
    if run_key:
        cmds.append(("SADD", run_key, saver.run_member(tid, ns, cid)))
        keys.append(run_key)
    yield Batch(cmds + _expire(saver, keys), transaction=True)
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
    yield from claim(saver, tid, config)
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
        keys = (saver.writes_key(tid, ns, cid), saver.packed_writes_key(tid, ns, cid))
        yield Batch([("EVALSHA", PUT_WRITES.sha, 2, *keys, saver.ttl or 0, *args)])


def delete_threads(saver: RedisCheckpointBase, thread_ids: Sequence[Any], strategy: str) -> Op:
    """Delete or prune threads in one atomic script call."""
    if isinstance(thread_ids, (str, bytes)):
        raise InvalidInputError("thread_ids must be a list of thread ids, not a string")
    if strategy not in PRUNE_STRATEGIES:
        raise InvalidInputError(f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'")
    names = [thread_id_of(t) for t in thread_ids]
    mine = yield from visible(saver, names, None)  # another learner's thread is never touched
    ids = [q(t) for t in mine]
    if ids:
        yield Batch([_call(DELETE_THREADS, saver.key_prefix, PRUNE_STRATEGIES[strategy], *ids)])


def delete_for_runs(saver: RedisCheckpointBase, run_ids: Sequence[Any]) -> Op:
    """Delete every checkpoint (and its writes) whose metadata run_id is listed."""
    if isinstance(run_ids, (str, bytes)):
        raise InvalidInputError("run_ids must be a list of run ids, not a string")
    ids = [q(str(r)) for r in run_ids if r is not None and str(r)]
    if ids:
        yield Batch([_call(DELETE_RUNS, saver.key_prefix, *ids)])


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
    replies = yield Batch(
        [
            c
            for ns in nss
            for c in (
                ("ZRANGE", saver.index_key(src, ns), 0, -1),
                ("HGETALL", saver.blobs_key(src, ns)),
            )
        ]
    )
    ids = {ns: [i.decode() for i in replies[2 * k]] for k, ns in enumerate(nss)}
    pairs = [(ns, cid) for ns in nss for cid in ids[ns]]
    reads: list[tuple[Any, ...]] = []
    for ns, cid in pairs:
        reads += [
            ("GET", saver.checkpoint_key(src, ns, cid)),
            ("HGETALL", saver.writes_key(src, ns, cid)),
            ("GET", saver.packed_writes_key(src, ns, cid)),
        ]
    got = yield Batch(reads)
    cmds: list[tuple[Any, ...]] = []
    keys = [saver.ns_set_key(dst)]
    for k, ns in enumerate(nss):
        if blobs := replies[2 * k + 1]:
            cmds.append(("HSET", saver.blobs_key(dst, ns), *_flat(blobs)))
        cmds.append(("SADD", saver.ns_set_key(dst), q(ns)))
        keys += [saver.blobs_key(dst, ns), saver.index_key(dst, ns)]
    for j, (ns, cid) in enumerate(pairs):
        row, writes, packed = got[3 * j : 3 * j + 3]
        if row is None:
            continue
        where = saver.checkpoint_key(src, ns, cid)
        try:
            run, refs, (_, state, parent) = split_row(row)
        except BadValueError as exc:
            raise CorruptCheckpointError(f"corrupted checkpoint at {where}: {exc}") from exc
        body, meta = saver.load(state, where)
        if isinstance(meta, dict) and meta.get("thread_id") == src:
            state = saver.dump([body, {**meta, "thread_id": dst}])
            row = encode_row(cid, state, parent, run, b" ".join(refs).decode())
        ckpt_key = saver.checkpoint_key(dst, ns, cid)
        cmds += [("SET", ckpt_key, row), ("ZADD", saver.index_key(dst, ns), 0, cid)]
        keys.append(ckpt_key)
        if writes:
            wkeys = [saver.writes_key(dst, ns, cid), saver.packed_writes_key(dst, ns, cid)]
            cmds += [("HSET", wkeys[0], *_flat(writes)), ("SET", wkeys[1], packed or b"")]
            keys += wkeys
        if run:
            run_key = f"{saver.key_prefix}:run:{run}"
            cmds.append(("SADD", run_key, saver.run_member(dst, ns, cid)))
            keys.append(run_key)
    cmds.append(("SADD", saver.threads_key(), q(dst)))
    yield Batch(cmds + _expire(saver, keys), transaction=True)


def setup(saver: RedisCheckpointBase) -> Op:
    """Check the server, load the scripts and record the key layout version."""
    info, layout = yield Batch([("INFO", "server"), ("HGET", saver.meta_key(), "layout")])
    version = str(info.get("redis_version", "0"))
    if tuple(int(p) for p in version.split(".")[:2]) < (6, 2):
        raise StoreError(f"Redis >= 6.2 is required for the checkpoint saver, found {version}")
    if layout is not None and layout.decode() != LAYOUT_VERSION:
        raise StoreError(
            f"{saver.meta_key()} records key layout {layout.decode()}, this saver writes "
            f"{LAYOUT_VERSION}; use another key_prefix or migrate"
        )
    yield Batch(
        [("SCRIPT", "LOAD", s.source) for s in ALL_SCRIPTS]
        + [("HSETNX", saver.meta_key(), "layout", LAYOUT_VERSION)]
    )
