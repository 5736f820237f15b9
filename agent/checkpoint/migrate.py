"""Move a prefix written with key layout 1 to layout 2, in place (plain Redis; no I/O here).

Layout 1 (before Redis Cluster support) kept a thread's keys under ``P:t:T:`` with one key
per checkpoint row, writes and packed writes. ``setup()`` runs this when ``P:meta`` records
layout 1: each thread is rewritten in one MULTI/EXEC (TTLs kept), so a crash leaves every
thread wholly in one layout and a rerun finishes the job. A lock key keeps two processes
from migrating the same prefix at once; the loser is told to retry.

``setup()`` (every saver calls it) lives here too: it checks the server, migrates, loads
the scripts and builds the owner index once (``agent.checkpoint.owners.build_index``).
"""

from __future__ import annotations

import struct
from typing import Any

from agent.checkpoint.base import LAYOUT_VERSION, RedisCheckpointBase, uq
from agent.checkpoint.lua import ALL_SCRIPTS
from agent.checkpoint.owners import build_index
from agent.checkpoint.requests import Batch, Op
from agent.errors import StoreError

LOCK_SECONDS = 600


def packed_writes(fields: dict[bytes, bytes]) -> tuple[bytes, str]:
    """The packed array and ``field/len ...`` index PUT_WRITES keeps, from a writes hash."""
    items = sorted(fields.items())
    packed = struct.pack(">BI", 0xDD, len(items)) + b"".join(v for _, v in items)
    return packed, " ".join(f"{f.decode()}/{len(v)}" for f, v in items)


def migrate_layout1(saver: RedisCheckpointBase) -> Op:
    """Rewrite every thread of ``saver.key_prefix`` from layout 1 to layout 2."""
    p = saver.key_prefix
    lock = f"{p}:migrating"
    (got,) = yield Batch([("SET", lock, "1", "NX", "EX", LOCK_SECONDS)])
    if not got:
        raise StoreError(f"another process is migrating {p} to key layout {LAYOUT_VERSION}; retry setup()")
    (threads,) = yield Batch([("SMEMBERS", f"{p}:threads")])
    for qt in sorted(t.decode() for t in threads):
        yield from _migrate_thread(saver, qt)
    yield Batch([("HSET", saver.meta_key(), "layout", LAYOUT_VERSION), ("DEL", lock)])


def _migrate_thread(saver: RedisCheckpointBase, qt: str) -> Op:
    old, tid = f"{saver.key_prefix}:t:{qt}", uq(qt)
    nss, owner, ttl = yield Batch([("SMEMBERS", f"{old}:ns"), ("GET", f"{old}:owner"), ("PTTL", f"{old}:ns")])
    cmds: list[tuple[Any, ...]] = []
    drop = [f"{old}:ns", f"{old}:owner"]
    new_keys = [saver.ns_set_key(tid)]
    for qn in sorted(n.decode() for n in nss):
        ns, base = uq(qn), f"{old}:n:{qn}"
        ids, blobs = yield Batch([("ZRANGE", f"{base}:idx", 0, -1), ("HGETALL", f"{base}:blobs")])
        cids = [c.decode() for c in ids]
        reads = [c for cid in cids for c in (("GET", f"{base}:c:{cid}"), ("HGETALL", f"{base}:w:{cid}"))]
        got = yield Batch(reads)
        rows, packed, index = {}, {}, {}
        for k, cid in enumerate(cids):
            row, writes = got[2 * k], got[2 * k + 1]
            drop += [f"{base}:c:{cid}", f"{base}:w:{cid}", f"{base}:wp:{cid}"]
            if row is None:
                continue
            rows[cid] = row
            if writes:
                packed[cid], index[cid] = packed_writes(writes)
        drop += [f"{base}:idx", f"{base}:blobs"]
        for key, values in (
            (saver.blobs_key(tid, ns), blobs),
            (saver.rows_key(tid, ns), rows),
            (saver.packed_writes_key(tid, ns), packed),
            (saver.write_fields_key(tid, ns), index),
        ):
            if values:
                cmds.append(("HSET", key, *[x for kv in values.items() for x in kv]))
        if rows:
            cmds.append(("ZADD", saver.index_key(tid, ns), *[x for cid in rows for x in (0, cid)]))
        cmds.append(("SADD", saver.ns_set_key(tid), qn))
        new_keys += saver.ns_keys(tid, ns)
    if owner is not None:
        cmds.append(("SET", f"{saver.thread_base(tid)}:owner", owner))
    if ttl and ttl > 0:
        cmds += [("PEXPIRE", k, ttl) for k in new_keys]
    cmds += [("DEL", k) for k in drop]
    yield Batch(cmds, transaction=True)


def setup(saver: RedisCheckpointBase) -> Op:
    """Check the server, migrate layout 1, load the scripts, record the layout, index owners."""
    (info,) = yield Batch([("INFO", "server")])
    (layout,) = yield Batch([("HGET", saver.meta_key(), "layout")])
    version = str(info.get("redis_version", "0"))
    if tuple(int(p) for p in version.split(".")[:2]) < (6, 2):
        raise StoreError(f"Redis >= 6.2 is required for the checkpoint saver, found {version}")
    if layout is not None and layout.decode() == "1":
        yield from migrate_layout1(saver)
    elif layout is not None and layout.decode() != LAYOUT_VERSION:
        raise StoreError(
            f"{saver.meta_key()} records key layout {layout.decode()}, this saver writes "
            f"{LAYOUT_VERSION}; use another key_prefix or migrate"
        )
    yield Batch([("SCRIPT", "LOAD", s.source) for s in ALL_SCRIPTS])
    yield Batch([("HSETNX", saver.meta_key(), "layout", LAYOUT_VERSION)])
    yield from build_index(saver)
