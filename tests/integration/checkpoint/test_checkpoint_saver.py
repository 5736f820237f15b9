"""The Redis checkpoint saver against real Redis: restarts, concurrency, bad data, TTL."""

from __future__ import annotations

import asyncio
import json
import operator
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Annotated, Any, TypedDict

import pytest
import redis
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt

from agent.checkpoint import AsyncRedisSaver, CorruptCheckpointError, RedisSaver
from agent.checkpoint.base import blob_field, q
from agent.checkpoint.codec import split_row
from agent.errors import InvalidInputError, StoreError
from agent.settings import Settings


def _drop_prefix(url: str, prefix: str) -> None:
    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
        for i in range(0, len(keys), 500):
            client.unlink(*keys[i : i + 500])
    finally:
        client.close()


def _keys(url: str, pattern: str) -> list[str]:
    client = redis.Redis.from_url(url)
    try:
        return sorted(k.decode() for k in client.scan_iter(match=pattern, count=1000))
    finally:
        client.close()


@pytest.fixture
def prefix(settings: Settings) -> Iterator[str]:
    """A key prefix no other test uses; its keys are deleted afterwards."""
    value = f"kag:test:ckpt:{uuid.uuid4().hex[:12]}"
    yield value
    _drop_prefix(settings.redis_url, value)


@pytest.fixture
async def asaver(settings: Settings, prefix: str) -> AsyncIterator[AsyncRedisSaver]:
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        yield saver


@pytest.fixture
def saver(settings: Settings, prefix: str) -> Iterator[RedisSaver]:
    with RedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as s:
        s.setup()
        yield s


class Notes(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    doc: str
    n: int


def _review_graph() -> StateGraph:
    def prepare(state: Notes) -> Notes:
        return {"log": ["prepared"]}

    def review(state: Notes) -> Notes:
        return {"log": [f"answer:{interrupt({'question': 'approve?'})}"]}

    builder = StateGraph(Notes)
    builder.add_node("prepare", prepare)
    builder.add_node("review", review)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "review")
    builder.add_edge("review", END)
    return builder


def _counter_graph() -> StateGraph:
    def bump(state: Notes) -> Notes:
        return {"n": state.get("n", 0) + 1, "log": [f"bump{state.get('n', 0)}"]}

    builder = StateGraph(Notes)
    builder.add_node("bump", bump)
    builder.add_edge(START, "bump")
    builder.add_edge("bump", END)
    return builder


# ---- resume after the saver and the process are recreated ------------------------
CHILD = """
import asyncio, json, operator, sys
from typing import Annotated, TypedDict
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from agent.checkpoint import AsyncRedisSaver, RedisSaver

class Notes(TypedDict, total=False):
    log: Annotated[list[str], operator.add]

def prepare(state):
    return {"log": ["prepared"]}

def review(state):
    return {"log": ["answer:" + interrupt({"question": "approve?"})]}

builder = StateGraph(Notes)
builder.add_node("prepare", prepare)
builder.add_node("review", review)
builder.add_edge(START, "prepare")
builder.add_edge("prepare", "review")
builder.add_edge("review", END)
phase, url, prefix, thread = sys.argv[1:5]
cfg = {"configurable": {"thread_id": thread}}
if phase == "start":  # sync saver in the first process
    with RedisSaver.from_conn_string(url, key_prefix=prefix) as saver:
        out = builder.compile(checkpointer=saver).invoke({"log": ["in"]}, cfg)
        print(json.dumps({"interrupt": out["__interrupt__"][0].value, "log": out["log"]}))
else:  # async saver in the second process
    async def main():
        async with AsyncRedisSaver.from_conn_string(url, key_prefix=prefix) as saver:
            graph = builder.compile(checkpointer=saver)
            before = await graph.aget_state(cfg)
            out = await graph.ainvoke(Command(resume="yes"), cfg)
            print(json.dumps({"next": list(before.next), "log": out["log"]}))
    asyncio.run(main())
"""


def _child(*args: str) -> dict[str, Any]:
    done = subprocess.run([sys.executable, "-c", CHILD, *args], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_interrupt_resumes_in_a_new_process(settings: Settings, prefix: str) -> None:
    thread = f"resume-{uuid.uuid4()}"
    first = _child("start", settings.redis_url, prefix, thread)
    assert first == {"interrupt": {"question": "approve?"}, "log": ["in", "prepared"]}
    second = _child("resume", settings.redis_url, prefix, thread)
    assert second["next"] == ["review"]
    # "prepare" ran once: the second process resumed from the checkpoint, not from scratch.
    assert second["log"] == ["in", "prepared", "answer:yes"]


# ---- concurrency -------------------------------------------------------------------
async def test_twenty_async_threads_do_not_interfere(asaver: AsyncRedisSaver) -> None:
    graph = _counter_graph().compile(checkpointer=asaver)
    threads = [f"conc-{i}-{uuid.uuid4().hex[:6]}" for i in range(20)]

    async def drive(i: int, tid: str) -> None:
        cfg = {"configurable": {"thread_id": tid}}
        for step in range(5):
            await graph.ainvoke({"log": [f"{i}.{step}"]}, cfg)

    await asyncio.gather(*(drive(i, t) for i, t in enumerate(threads)))
    counts = set()
    for i, tid in enumerate(threads):
        cfg = {"configurable": {"thread_id": tid}}
        state = await graph.aget_state(cfg)
        assert state.values["n"] == 5
        assert [x for x in state.values["log"] if not x.startswith("bump")] == [f"{i}.{s}" for s in range(5)]
        counts.add(len([t async for t in asaver.alist(cfg)]))
    assert counts == {15}  # 3 checkpoints per invoke, none borrowed from other threads


def test_twenty_os_threads_share_one_sync_saver(saver: RedisSaver) -> None:
    graph = _counter_graph().compile(checkpointer=saver)
    threads = [f"sync-{i}-{uuid.uuid4().hex[:6]}" for i in range(20)]

    def drive(tid: str) -> int:
        cfg = {"configurable": {"thread_id": tid}}
        for _ in range(5):
            graph.invoke({"log": [tid]}, cfg)
        return graph.get_state(cfg).values["n"]

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(drive, threads)) == [5] * 20
    for tid in threads:
        state = graph.get_state({"configurable": {"thread_id": tid}})
        assert {x for x in state.values["log"] if not x.startswith("bump")} == {tid}


async def test_sync_saver_works_inside_a_running_loop(saver: RedisSaver) -> None:
    graph = _counter_graph().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": f"loop-{uuid.uuid4()}"}}
    graph.invoke({"log": ["sync"]}, cfg)  # blocking call from the loop thread
    await graph.ainvoke({"log": ["async"]}, cfg)  # async API of the sync saver
    assert (await graph.aget_state(cfg)).values["n"] == 2


async def test_async_saver_sync_bridge_needs_another_thread(asaver: AsyncRedisSaver) -> None:
    graph = _counter_graph().compile(checkpointer=asaver)
    cfg = {"configurable": {"thread_id": f"bridge-{uuid.uuid4()}"}}
    await graph.ainvoke({"log": ["x"]}, cfg)
    state = await asyncio.to_thread(graph.get_state, cfg)
    assert state.values["n"] == 1
    with pytest.raises(asyncio.InvalidStateError, match="another thread"):
        asaver.get_tuple(cfg)


# ---- round trips -------------------------------------------------------------------
async def test_get_tuple_is_one_round_trip_and_list_is_paged(asaver: AsyncRedisSaver) -> None:
    graph = _counter_graph().compile(checkpointer=asaver)
    cfg = {"configurable": {"thread_id": f"rt-{uuid.uuid4()}"}}
    for _ in range(150):
        await graph.ainvoke({"log": ["x"]}, cfg)
    sent: list[int] = []
    real_send = asaver._send

    async def counting(batch: Any) -> list[Any]:
        sent.append(len(batch.commands))
        return await real_send(batch)

    asaver._send = counting  # type: ignore[method-assign]
    try:
        latest = await asaver.aget_tuple(cfg)
        assert sent == [1]
        sent.clear()
        listed = [t async for t in asaver.alist(cfg)]
        assert len(listed) == 450
        ids = [t.config["configurable"]["checkpoint_id"] for t in listed]
        assert ids == sorted(ids, reverse=True) and ids[0] == latest.checkpoint["id"]
        assert len(sent) == 5  # namespaces, then per page of 250: rows+writes, blobs
        sent.clear()
        assert len([t async for t in asaver.alist(cfg, limit=7)]) == 7
        assert len(sent) == 3
    finally:
        del asaver._send


def test_small_pages_list_the_same_history(saver: RedisSaver) -> None:
    graph = _counter_graph().compile(checkpointer=saver)
    cfg = {"configurable": {"thread_id": f"pages-{uuid.uuid4()}"}}
    for _ in range(100):
        graph.invoke({"log": ["x"]}, cfg)
    small = RedisSaver(saver.client, key_prefix=saver.key_prefix, list_page_size=7)
    full, paged = list(saver.list(cfg)), list(small.list(cfg))
    assert len(full) == 300 and [t.checkpoint for t in paged] == [t.checkpoint for t in full]
    assert [t.pending_writes for t in paged] == [t.pending_writes for t in full]
    before = {
        "configurable": {
            **cfg["configurable"],
            "checkpoint_id": full[100].config["configurable"]["checkpoint_id"],
        }
    }
    assert [t.config for t in small.list(cfg, before=before, limit=30)] == [t.config for t in full[101:131]]


# ---- Redis restart with AOF (private instance) -------------------------------------
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class PrivateRedis:
    """A redis-server this test owns: AOF on, fsync always, no RDB snapshots."""

    def __init__(self, workdir: Path) -> None:
        self.dir, self.port = workdir, _free_port()
        self.pidfile = workdir / "redis.pid"
        self.url = f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        subprocess.run(
            [
                "redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                "--dir", str(self.dir), "--appendonly", "yes", "--appendfsync", "always",
                "--save", "", "--daemonize", "yes", "--pidfile", str(self.pidfile),
                "--logfile", str(self.dir / "redis.log"),
            ],
            check=True,
        )  # fmt: skip
        client = redis.Redis(port=self.port)
        for _ in range(100):
            try:
                if client.ping() and client.info("persistence")["loading"] == 0:
                    return
            except redis.ConnectionError:
                pass
            time.sleep(0.05)
        raise RuntimeError(f"private redis on {self.port} did not start")

    def kill(self, sig: int) -> None:
        if not self.pidfile.exists():
            return
        pid = int(self.pidfile.read_text().strip())
        os.kill(pid, sig)
        for _ in range(200):
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                break
            time.sleep(0.05)
        self.pidfile.unlink(missing_ok=True)


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    if shutil.which("redis-server") is None:
        pytest.fail("redis-server not installed; run scripts/services.sh up to install it")
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.kill(signal.SIGTERM)


def test_checkpoints_survive_a_redis_crash_with_aof(private_redis: PrivateRedis) -> None:
    cfg = {"configurable": {"thread_id": "crash"}}
    with RedisSaver.from_conn_string(private_redis.url, key_prefix="kag:ckpt") as saver:
        saver.setup()
        graph = _review_graph().compile(checkpointer=saver)
        graph.invoke({"log": ["in"]}, cfg)
        history = [t.config["configurable"]["checkpoint_id"] for t in saver.list(cfg)]
        private_redis.kill(signal.SIGKILL)  # hard crash: only the AOF can bring data back
        private_redis.start()
        # Same saver: the pool reconnects and the emptied script cache is reloaded.
        assert [t.config["configurable"]["checkpoint_id"] for t in saver.list(cfg)] == history
        assert graph.get_state(cfg).next == ("review",)
    with RedisSaver.from_conn_string(private_redis.url) as fresh:
        out = _review_graph().compile(checkpointer=fresh).invoke(Command(resume="ok"), cfg)
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
        await _review_graph().compile(checkpointer=saver).ainvoke({"log": ["x"]}, cfg)
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
        _counter_graph()
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
    graph = _review_graph().compile(checkpointer=asaver)
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
