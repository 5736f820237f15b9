"""Saver operations written once, as generators that never touch the network.

Each operation yields ``Batch`` requests (commands sent in one pipeline, optionally
wrapped in MULTI/EXEC) and receives their replies; ``alist``'s operation also yields
``Emit`` items. The async saver drives them with ``redis.asyncio``, the sync saver
with the blocking client, so the logic exists once and only the transport differs.
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.base import (
    ChannelVersions,
    Checkpoint,
    CheckpointMetadata,
    CheckpointTuple,
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
    row_refs,
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
from agent.errors import InvalidInputError, StoreError


@dataclass
class Batch:
    """Commands for one round trip; ``transaction`` wraps them in MULTI/EXEC."""

    commands: list[tuple[Any, ...]]
    transaction: bool = False


@dataclass
class Emit:
    """A tuple ``list`` hands to its caller."""

    item: CheckpointTuple


Op = Generator[Batch | Emit, Any, Any]
PRUNE_STRATEGIES = {"keep_latest": "keep_latest", "delete": "delete", "delete_all": "delete"}


@dataclass
class _Cursor:
    remaining: int | None
    done: bool = field(default=False)

    def take(self) -> None:
        if self.remaining is not None:
            self.remaining -= 1
            self.done = self.remaining <= 0


def _call(script: LuaScript, *args: Any) -> tuple[Any, ...]:
    return ("EVALSHA", script.sha, 0, *args)


def _flat(mapping: Mapping[str, Any]) -> list[Any]:
    return [x for kv in mapping.items() for x in kv]


def _expire(saver: RedisCheckpointBase, keys: Sequence[str]) -> list[tuple[Any, ...]]:
    return [("EXPIRE", k, saver.ttl) for k in keys] if saver.ttl else []


def _fetch_args(saver: RedisCheckpointBase, t: Target, mode: str, *rest: Any, blobs: bool = True) -> tuple:
    ttl = saver.ttl if saver.ttl and saver.refresh_on_read else 0
    head = (saver.key_prefix, q(t.thread_id), q(t.checkpoint_ns), ttl, mode, int(blobs))
    return _call(FETCH, *head, *rest)


@dataclass
class _Page:
    scanned: int
    last: str
    rows: list[bytes]
    writes: list[bytes]
    blobs: dict[bytes, bytes | None]


def _fetch(saver: RedisCheckpointBase, t: Target, mode: str, *rest: Any, blobs: bool = True) -> Op:
    """One FETCH script call: rows, their writes and (``blobs``) the blobs they use."""
    args = _fetch_args(saver, t, mode, *rest, blobs=blobs)
    ((scanned, last, rows, writes, flat),) = yield Batch([args])
    found = dict(zip(flat[::2], flat[1::2], strict=True))
    return _Page(scanned, last.decode() if last else "", rows, writes, found)


def get_tuple(saver: RedisCheckpointBase, config: RunnableConfig) -> Op:
    """One round trip: the FETCH script resolves "latest" server-side."""
    t = target_of(config)
    mode, rest = ("ids", (t.checkpoint_id,)) if t.checkpoint_id else ("latest", ())
    page = yield from _fetch(saver, t, mode, *rest)
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


def _matches(metadata: Mapping[str, Any], filter: Mapping[str, Any] | None) -> bool:
    return not filter or all(metadata.get(k) == v for k, v in filter.items())


def list_tuples(
    saver: RedisCheckpointBase,
    config: RunnableConfig | None,
    *,
    filter: dict[str, Any] | None = None,
    before: RunnableConfig | None = None,
    limit: int | None = None,
    page_size: int = 250,
) -> Op:
    """Newest first per namespace; pages of ``page_size`` fetched by one script call."""
    if filter is not None and not isinstance(filter, Mapping):
        raise InvalidInputError(f"filter must be a dict, got {type(filter).__name__}")
    if limit is not None and (not isinstance(limit, int) or limit < 0):
        raise InvalidInputError(f"limit must be a non-negative int, got {limit!r}")
    before_id = ""
    if before is not None:
        if not isinstance(before, Mapping) or not isinstance(before.get("configurable"), Mapping):
            raise InvalidInputError("before must be a config dict with 'configurable'")
        before_id = before["configurable"].get("checkpoint_id") or ""
    cursor = _Cursor(limit, done=limit == 0)
    for t in (yield from _targets(saver, config)):
        if cursor.done:
            return
        if t.checkpoint_id:  # an exact id in the config selects only that checkpoint
            if before_id and t.checkpoint_id >= before_id:
                continue
            page = yield from _fetch(saver, t, "ids", t.checkpoint_id)
            for row, writes in zip(page.rows, page.writes, strict=True):
                tup = saver.make_tuple(t, row, writes, page.blobs)
                if _matches(tup.metadata, filter):
                    yield Emit(tup)
                    cursor.take()
            continue
        yield from _list_namespace(saver, t, filter, before_id, cursor, page_size)


def _list_namespace(
    saver: RedisCheckpointBase,
    t: Target,
    filter: Mapping[str, Any] | None,
    before_id: str,
    cursor: _Cursor,
    page_size: int,
) -> Op:
    where = saver.index_key(t.thread_id, t.checkpoint_ns)
    shared: dict[bytes, Any] = {}  # decoded immutable blobs, reused across pages
    while not cursor.done:
        count = page_size if filter or cursor.remaining is None else min(page_size, cursor.remaining)
        mode = "meta" if filter else "page"
        page = yield from _fetch(saver, t, mode, before_id, count, blobs=False)
        scanned, last = page.scanned, page.last
        if filter:
            ids = [cid for cid, meta in _metadata(saver, page.rows, where) if _matches(meta, filter)]
            page.rows = []
            if ids:
                page = yield from _fetch(saver, t, "ids", *ids)
        else:
            need = {f for row in page.rows for f in row_refs(row)} - shared.keys()
            if need:
                fields = list(need)
                (vals,) = yield Batch([("HMGET", saver.blobs_key(t.thread_id, t.checkpoint_ns), *fields)])
                page.blobs = dict(zip(fields, vals, strict=True))
        for row, writes in zip(page.rows, page.writes, strict=True):
            yield Emit(saver.make_tuple(t, row, writes, page.blobs, shared))
            cursor.take()
            if cursor.done:
                return
        if scanned < count:
            return
        before_id = last


def _metadata(saver: RedisCheckpointBase, rows: list[bytes], where: str) -> list[tuple[str, Any]]:
    """``(cid, metadata)`` of each row, for metadata filters."""
    out = []
    for raw in rows:
        try:
            _, _, (cid, state, _) = split_row(raw)
        except BadValueError as exc:
            raise CorruptCheckpointError(f"corrupted checkpoint data under {where}: {exc}") from exc
        out.append((cid, saver.load(state, f"{where}[{cid}]")[1]))
    return out


def _targets(saver: RedisCheckpointBase, config: RunnableConfig | None) -> Op:
    """Resolve a list() config to concrete (thread, namespace) targets."""
    if config is None:
        threads = sorted(uq(t) for t in (yield Batch([("SMEMBERS", saver.threads_key())]))[0])
        named = None
    else:
        base = target_of(config)
        threads, named = [base.thread_id], base
    if named is not None and "checkpoint_ns" in config["configurable"]:
        return [named]
    replies = yield Batch([("SMEMBERS", saver.ns_set_key(t)) for t in threads])
    cid = named.checkpoint_id if named else None
    return [Target(t, uq(n), cid) for t, nss in zip(threads, replies, strict=True) for n in sorted(nss)]


def delete_threads(saver: RedisCheckpointBase, thread_ids: Sequence[Any], strategy: str) -> Op:
    """Delete or prune threads in one atomic script call."""
    if isinstance(thread_ids, (str, bytes)):
        raise InvalidInputError("thread_ids must be a list of thread ids, not a string")
    if strategy not in PRUNE_STRATEGIES:
        raise InvalidInputError(f"unknown prune strategy {strategy!r}; use 'keep_latest' or 'delete'")
    ids = [q(thread_id_of(t)) for t in thread_ids]
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
