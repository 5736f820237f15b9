"""The Redis checkpoint saver against real Redis: a crash with AOF, bad data, TTL, dedup and pruning."""

from __future__ import annotations

import signal
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command

from agent.checkpoint import AsyncRedisSaver, CorruptCheckpointError, RedisSaver
from agent.checkpoint.base import blob_field, q
from agent.checkpoint.codec import split_row
from agent.checkpoint.listing import list_tuples
from agent.checkpoint.requests import Batch
from agent.checkpoint.transport import iter_sync
from agent.errors import InvalidInputError, StoreError
from agent.settings import Settings
from tests.integration.checkpoint.toy_graphs import Notes, counter_graph, review_graph
from tests.private_redis import PrivateRedis


def _keys(url: str, pattern: str) -> list[str]:
    client = redis.Redis.from_url(url)
    try:
        return sorted(k.decode() for k in client.scan_iter(match=pattern, count=1000))
    finally:
        client.close()


# ---- Redis restart with AOF (private instance) -------------------------------------
@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)  # AOF on, fsync always
    server.start()
    yield server
    server.stop(signal.SIGTERM)


def test_checkpoints_survive_a_redis_crash_with_aof(private_redis: PrivateRedis) -> None:
    cfg = {"configurable": {"thread_id": "crash"}}
    with RedisSaver.from_conn_string(private_redis.url, key_prefix="kag:ckpt") as saver:
        saver.setup()
        graph = review_graph().compile(checkpointer=saver)
        graph.invoke({"log": ["in"]}, cfg)
        history = [t.config["configurable"]["checkpoint_id"] for t in saver.list(cfg)]
        private_redis.stop(signal.SIGKILL)  # hard crash: only the AOF can bring data back
        private_redis.start()
        # Same saver: the pool reconnects and the emptied script cache is reloaded.
        assert [t.config["configurable"]["checkpoint_id"] for t in saver.list(cfg)] == history
        assert graph.get_state(cfg).next == ("review",)
    with RedisSaver.from_conn_string(private_redis.url) as fresh:
        out = review_graph().compile(checkpointer=fresh).invoke(Command(resume="ok"), cfg)
    assert out["log"] == ["in", "prepared", "answer:ok"]


# ---- bad data ----------------------------------------------------------------------
def _checkpoint(cid: str, **values: Any) -> dict[str, Any]:
    return {
        "v": 1,
        "id": cid,
        "ts": "2026-01-01T00:00:00+00:00",
        "channel_values": values,
        "channel_versions": {k: "1" for k in values},
        "versions_seen": {},
    }


async def test_bad_input_raises_and_writes_nothing(
    asaver: AsyncRedisSaver, settings: Settings, prefix: str
) -> None:
    good = {"configurable": {"thread_id": "bad", "checkpoint_ns": ""}}
    with pytest.raises(InvalidInputError, match="thread_id"):
        await asaver.aput({"configurable": {}}, _checkpoint("c1", a=1), {}, {"a": "1"})
    with pytest.raises(InvalidInputError, match="checkpoint must be a dict"):
        await asaver.aput(good, ["not", "a", "dict"], {}, {})  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="not serializable"):
        await asaver.aput(good, _checkpoint("c1", a=1, b=object()), {}, {"a": "1", "b": "1"})
    with pytest.raises(InvalidInputError, match="thread_id"):
        await asaver.aget_tuple({"configurable": {"checkpoint_ns": ""}})
    with pytest.raises(InvalidInputError, match="checkpoint_id"):
        await asaver.aput_writes(good, [("a", 1)], "task")
    with_id = {"configurable": {"thread_id": "bad", "checkpoint_id": "c1"}}
    with pytest.raises(InvalidInputError, match="write #1"):
        await asaver.aput_writes(with_id, [("a", 1), ("b", object())], "task")
    with pytest.raises(InvalidInputError, match="prune strategy"):
        await asaver.aprune(["bad"], strategy="newest")
    assert _keys(settings.redis_url, f"{prefix}:*") == [f"{prefix}:meta"]  # no partial state


async def test_unknown_thread_is_none_and_empty(asaver: AsyncRedisSaver) -> None:
    cfg = {"configurable": {"thread_id": f"nobody-{uuid.uuid4()}"}}
    assert await asaver.aget_tuple(cfg) is None
    assert [t async for t in asaver.alist(cfg)] == []
    assert [t async for t in asaver.alist(None)] == []
    await asaver.adelete_thread("nobody")  # no error


async def test_corrupted_values_raise_store_errors(asaver: AsyncRedisSaver, settings: Settings) -> None:
    cfg = {"configurable": {"thread_id": "corrupt", "checkpoint_ns": ""}}
    stored = await asaver.aput(cfg, _checkpoint("c1", a="hello"), {}, {"a": "1"})
    client = redis.Redis.from_url(settings.redis_url)
    blobs, field = asaver.blobs_key("corrupt", ""), blob_field("a", "1")
    good = client.hget(blobs, field)
    assert good is not None
    try:
        client.hset(blobs, field, good[:-1] + b"X")  # one flipped byte
        with pytest.raises(CorruptCheckpointError, match="checksum") as err:
            await asaver.aget_tuple(stored)
        where = asaver.ns_base("corrupt", "")
        assert f"{where}: blob {field}" in str(err.value) and isinstance(err.value, StoreError)
        client.hset(blobs, field, b"garbage")
        with pytest.raises(CorruptCheckpointError, match="header"):
            await asaver.aget_tuple(stored)
        client.hset(blobs, field, good)
        assert (await asaver.aget_tuple(stored)).checkpoint["channel_values"] == {"a": "hello"}
        rows = asaver.rows_key("corrupt", "")
        row = client.hget(rows, "c1")
        client.hset(rows, "c1", row[:-3] + b"xyz")
        with pytest.raises(CorruptCheckpointError, match="corrupted checkpoint data under"):
            await asaver.aget_tuple(stored)
        client.hset(rows, "c1", b"garbage")
        with pytest.raises(CorruptCheckpointError, match="bad row header"):
            await asaver.aget_tuple(stored)
    finally:
        client.close()


# ---- TTL ---------------------------------------------------------------------------
async def test_ttl_applies_to_every_key_and_refreshes_on_read(settings: Settings, prefix: str) -> None:
    tid = f"ttl-{uuid.uuid4()}"
    cfg = {"configurable": {"thread_id": tid}}
    async with AsyncRedisSaver.from_conn_string(
        settings.redis_url, key_prefix=prefix, ttl=120, refresh_on_read=True
    ) as saver:
        await review_graph().compile(checkpointer=saver).ainvoke({"log": ["x"]}, cfg)
        client = redis.Redis.from_url(settings.redis_url)
        try:
            keys = _keys(settings.redis_url, f"{saver.thread_base(tid)}:*")
            cid = (await saver.aget_tuple(cfg)).checkpoint["id"]
            assert client.hexists(saver.rows_key(tid, ""), cid)
            assert client.hexists(saver.packed_writes_key(tid, ""), cid)  # its interrupt write
            assert set(saver.ns_keys(tid, "")) <= set(keys)
            assert all(0 < client.ttl(k) <= 120 for k in keys)
            for k in keys:
                client.expire(k, 5)
            await saver.aget_tuple(cfg)
            refreshed = [k for k in keys if client.ttl(k) > 100]
            assert set(saver.ns_keys(tid, "")) <= set(refreshed)
        finally:
            client.close()


async def test_no_ttl_by_default(asaver: AsyncRedisSaver, settings: Settings) -> None:
    tid = f"nottl-{uuid.uuid4()}"
    await (
        counter_graph()
        .compile(checkpointer=asaver)
        .ainvoke({"log": []}, {"configurable": {"thread_id": tid}})
    )
    client = redis.Redis.from_url(settings.redis_url)
    try:
        keys = _keys(settings.redis_url, f"{asaver.thread_base(tid)}:*")
        assert keys and all(client.ttl(k) == -1 for k in keys)
    finally:
        client.close()


# ---- blob dedup, delete and prune --------------------------------------------------
async def test_unchanged_large_channel_is_stored_once(asaver: AsyncRedisSaver, settings: Settings) -> None:
    tid = f"dedup-{uuid.uuid4()}"
    cfg = {"configurable": {"thread_id": tid}}
    builder = StateGraph(Notes)
    builder.add_node("bump", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "bump")
    builder.add_edge("bump", END)
    graph = builder.compile(checkpointer=asaver)
    big = "k" * 200_000
    await graph.ainvoke({"doc": big, "n": 0}, cfg)
    for step in range(1, 50):
        await graph.ainvoke({"n": step}, cfg)
    assert (await graph.aget_state(cfg)).values["doc"] == big
    client = redis.Redis.from_url(settings.redis_url)
    try:
        fields = [f.decode() for f in client.hkeys(asaver.blobs_key(tid, ""))]
        doc_fields = [f for f in fields if f.startswith(f"{q('doc')}:")]
        assert len(doc_fields) == 1
        sizes = {f: client.hstrlen(asaver.blobs_key(tid, ""), f) for f in fields}
        big_fields = sorted(f.split(":")[0] for f, n in sizes.items() if n > 100_000)
        # The document once as "doc" and once as the first run's input; never per step.
        assert big_fields == ["__start__", "doc"], sizes
        assert sum(sizes.values()) < 2 * 200_000 + 50 * 1_000
    finally:
        client.close()
    assert len([t async for t in asaver.alist(cfg)]) == 150


async def test_delete_thread_and_prune_leave_no_orphans(asaver: AsyncRedisSaver, settings: Settings) -> None:
    graph = review_graph().compile(checkpointer=asaver)
    keep, drop = f"keep-{uuid.uuid4()}", f"drop-{uuid.uuid4()}"
    for tid in (keep, drop):
        await graph.ainvoke({"log": ["x"]}, {"configurable": {"thread_id": tid}})
    await asaver.adelete_thread(drop)
    assert _keys(settings.redis_url, f"{asaver.thread_base(drop)}:*") == []
    await asaver.aprune([keep], strategy="keep_latest")
    kept = [t async for t in asaver.alist({"configurable": {"thread_id": keep}})]
    assert len(kept) == 1
    client = redis.Redis.from_url(settings.redis_url)
    try:
        row = client.hget(asaver.rows_key(keep, ""), kept[0].checkpoint["id"])
        _, live, _ = split_row(row)
        assert set(client.hkeys(asaver.blobs_key(keep, ""))) == set(live)
    finally:
        client.close()
    resumed = await graph.ainvoke(Command(resume="ok"), {"configurable": {"thread_id": keep}})
    assert resumed["log"] == ["x", "prepared", "answer:ok"]


def _live_blobs(client: redis.Redis, saver: AsyncRedisSaver, tid: str) -> tuple[set[bytes], set[bytes]]:
    """The blob fields the thread's remaining rows reference, and the fields stored."""
    rows = client.hvals(saver.rows_key(tid, ""))
    live = {f for row in rows for f in split_row(row)[1]}
    return live, set(client.hkeys(saver.blobs_key(tid, "")))


async def test_prune_keeps_the_newest_k_and_each_still_loads(
    asaver: AsyncRedisSaver, settings: Settings
) -> None:
    tid = f"keep-k-{uuid.uuid4()}"
    cfg = {"configurable": {"thread_id": tid}}
    graph = counter_graph().compile(checkpointer=asaver)
    for _ in range(12):
        await graph.ainvoke({"log": []}, cfg)
    before = [t async for t in asaver.alist(cfg)]
    await asaver.aprune([tid], strategy="keep_latest", keep=5)
    after = [t async for t in asaver.alist(cfg)]
    assert [t.checkpoint["id"] for t in after] == [t.checkpoint["id"] for t in before[:5]]  # newest first
    values = [t.checkpoint["channel_values"] for t in after]
    assert values == [t.checkpoint["channel_values"] for t in before[:5]]
    client = redis.Redis.from_url(settings.redis_url)
    try:
        live, stored = _live_blobs(client, asaver, tid)
        assert stored == live  # no orphan blob, none missing
    finally:
        client.close()
    assert (await graph.ainvoke({"log": []}, cfg))["n"] == 13  # the thread goes on from the newest
    with pytest.raises(InvalidInputError, match="keep"):
        await asaver.aprune([tid], keep=0)


async def test_a_saver_with_keep_bounds_a_growing_thread(settings: Settings, prefix: str) -> None:
    """Every put past ``keep`` plus the slack trims the namespace back to ``keep``."""
    keep = 20
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix, keep=keep) as saver:
        await saver.setup()
        tid = f"bounded-{uuid.uuid4()}"
        cfg = {"configurable": {"thread_id": tid}}
        graph = review_graph().compile(checkpointer=saver)
        counts = []
        for i in range(40):  # 3 checkpoints and an interrupt per run, then its resume: 5 per pair
            await graph.ainvoke({"log": [f"in{i}"]}, cfg)
            await graph.ainvoke(Command(resume=f"ok{i}"), cfg)
            counts.append(len([t async for t in saver.alist(cfg)]))
        slack = max(10, keep // 10)
        assert max(counts) <= keep + slack and counts[-1] >= keep
        assert min(counts[10:]) >= keep  # trimmed to keep, never below
        state = await graph.aget_state(cfg)
        assert state.values["log"][-3:] == ["in39", "prepared", "answer:ok39"]
        assert len(state.values["log"]) == 40 * 3  # the newest checkpoint holds the whole value
        client = redis.Redis.from_url(settings.redis_url)
        try:
            live, stored = _live_blobs(client, saver, tid)
            assert stored == live
        finally:
            client.close()


def test_a_listing_that_races_a_trim_lists_only_whole_checkpoints(saver: RedisSaver) -> None:
    """A trim between a page's rows and their blobs: the gone rows drop out, the rest stay whole."""
    tid = f"race-{uuid.uuid4()}"
    cfg = {"configurable": {"thread_id": tid}}
    graph = counter_graph().compile(checkpointer=saver)
    for _ in range(10):
        graph.invoke({"log": []}, cfg)
    everything = list(saver.list(cfg))
    blobs_key = saver.blobs_key(tid, "")
    raced = []

    def send(batch: Batch) -> list[Any]:
        if not raced and any(c[0] == "HMGET" and c[1] == blobs_key for c in batch.commands):
            saver.prune([tid], keep=4)  # the page's rows are read; their blobs are not yet
            raced.append(True)
        return saver._send(batch)

    listed = list(iter_sync(list_tuples(saver, cfg, page_size=100), send))
    assert raced  # the trim did land between the two round trips
    newest = {t.checkpoint["id"]: t for t in everything[:4]}
    assert [t.checkpoint["id"] for t in listed] == list(newest)  # the trimmed ones are not listed
    for t in listed:  # and every listed checkpoint has all its values
        assert t.checkpoint["channel_values"] == newest[t.checkpoint["id"]].checkpoint["channel_values"]
