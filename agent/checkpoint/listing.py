"""``list``/``alist`` as one operation: targets, pages and metadata filters (no I/O).

Pages come newest first from the FETCH script: one call returns a page's rows and
their packed writes, one HMGET the blobs they reference that earlier pages have not
already decoded (parsing row headers in Lua costs more than that second round trip).
Metadata filters (``filter=``) decode only each row's metadata, then fetch the
matching rows in full.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.runnables import RunnableConfig

from agent.checkpoint.base import RedisCheckpointBase, Target, target_of, uq
from agent.checkpoint.codec import BadValueError, CorruptCheckpointError, row_refs, split_row
from agent.checkpoint.ops import Batch, Emit, FetchedPage, Op, fetch
from agent.checkpoint.owners import visible
from agent.errors import InvalidInputError


@dataclass
class _Cursor:
    remaining: int | None
    done: bool = field(default=False)

    def take(self) -> None:
        if self.remaining is not None:
            self.remaining -= 1
            self.done = self.remaining <= 0


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
            page = yield from fetch(saver, t, "ids", t.checkpoint_id)
            for row, writes in zip(page.rows, page.writes, strict=True):
                tup = saver.make_tuple(t, row, writes, page.blobs)
                if _matches(tup.metadata, filter):
                    yield Emit(tup)
                    cursor.take()
            continue
        if filter:
            yield from _list_filtered(saver, t, filter, before_id, cursor, page_size)
        else:
            yield from _list_pages(saver, t, before_id, cursor, page_size)


def _list_pages(saver: RedisCheckpointBase, t: Target, before_id: str, cursor: _Cursor, page_size: int) -> Op:
    """Every checkpoint of one namespace, a page at a time."""
    shared: dict[bytes, Any] = {}  # decoded immutable blobs, reused across pages
    while not cursor.done:
        count = page_size if cursor.remaining is None else min(page_size, cursor.remaining)
        page = yield from fetch(saver, t, "page", before_id, count, blobs=False)
        need = {f for row in page.rows for f in row_refs(row)} - shared.keys()
        if need:
            fields = list(need)
            (vals,) = yield Batch([("HMGET", saver.blobs_key(t.thread_id, t.checkpoint_ns), *fields)])
            page.blobs = dict(zip(fields, vals, strict=True))
            if any(v is None for v in vals):
                yield from _reread_trimmed(saver, t, page)
        yield from _emit(saver, t, page, cursor, shared)
        if cursor.done or page.scanned < count:
            return
        before_id = page.last


def _row_id(row: bytes) -> str | None:
    """A row's checkpoint id, None when the row does not parse."""
    try:
        return str(split_row(row)[2][0])
    except BadValueError:
        return None


def _reread_trimmed(saver: RedisCheckpointBase, t: Target, page: FetchedPage) -> Op:
    """Rows whose blobs went between a page's two round trips, read again in one script.

    A trim (``keep``) or a prune between the page and its blobs deletes the oldest rows
    with the blobs only they used: those rows are dropped, any still there come back
    whole (FETCH reads rows and blobs atomically), so no tuple is missing a value.
    """
    missing = {f for f, v in page.blobs.items() if v is None}
    stale = {i: _row_id(row) for i, row in enumerate(page.rows) if missing & set(row_refs(row))}
    stale = {i: cid for i, cid in stale.items() if cid is not None}  # a corrupt row raises later
    if not stale:
        return
    fresh = yield from fetch(saver, t, "ids", *stale.values())
    pairs = zip(fresh.rows, fresh.writes, strict=True)
    again = {_row_id(row): (row, w) for row, w in pairs}
    rows, writes = [], []
    for i, (row, w) in enumerate(zip(page.rows, page.writes, strict=True)):
        if i in stale:
            if stale[i] not in again:
                continue  # trimmed meanwhile: gone from the history, not listed
            row, w = again[stale[i]]
        rows.append(row)
        writes.append(w)
    page.rows, page.writes = rows, writes
    page.blobs.update(fresh.blobs)


def _list_filtered(
    saver: RedisCheckpointBase,
    t: Target,
    filter: Mapping[str, Any],
    before_id: str,
    cursor: _Cursor,
    page_size: int,
) -> Op:
    """Checkpoints of one namespace whose metadata matches ``filter``."""
    where = saver.index_key(t.thread_id, t.checkpoint_ns)
    while not cursor.done:
        scan = yield from fetch(saver, t, "meta", before_id, page_size, blobs=False)
        ids = [cid for cid, meta in _metadata(saver, scan.rows, where) if _matches(meta, filter)]
        if ids:
            yield from _emit(saver, t, (yield from fetch(saver, t, "ids", *ids)), cursor)
        if cursor.done or scan.scanned < page_size:
            return
        before_id = scan.last


def _emit(
    saver: RedisCheckpointBase,
    t: Target,
    page: FetchedPage,
    cursor: _Cursor,
    shared: dict[bytes, Any] | None = None,
) -> Op:
    """Hand a page's tuples to the caller until ``cursor`` is done."""
    for row, writes in zip(page.rows, page.writes, strict=True):
        yield Emit(saver.make_tuple(t, row, writes, page.blobs, shared))
        cursor.take()
        if cursor.done:
            return


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
    threads = yield from visible(saver, threads, config)  # never another learner's threads
    if not threads:
        return []
    if named is not None and "checkpoint_ns" in config["configurable"]:
        return [named]
    replies = yield Batch([("SMEMBERS", saver.ns_set_key(t)) for t in threads])
    cid = named.checkpoint_id if named else None
    return [Target(t, uq(n), cid) for t, nss in zip(threads, replies, strict=True) for n in sorted(nss)]
