"""``setup()`` moves a prefix written with key layout 1 (no hash tags) to layout 2, in place."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from langgraph.types import Command

from agent.checkpoint import AsyncRedisSaver
from agent.checkpoint.base import q, uq
from agent.errors import StoreError
from agent.settings import Settings
from tests.integration.checkpoint.test_checkpoint_conformance import drop_prefix
from tests.integration.cluster.test_cluster_checkpoint import _review_graph


@pytest.fixture
def prefix(settings: Settings) -> Iterator[str]:
    value = f"kag:test:migrate:{uuid.uuid4().hex[:12]}"
    yield value
    drop_prefix(settings.redis_url, value)


def downgrade(client: redis.Redis, saver: AsyncRedisSaver) -> None:
    """Rewrite the saver's layout-2 keys as layout 1 wrote them (the inverse of the migration)."""
    p = saver.key_prefix
    for qt in (t.decode() for t in client.smembers(saver.threads_key())):
        tid, old = uq(qt), f"{p}:t:{qt}"
        for qn in (n.decode() for n in client.smembers(saver.ns_set_key(tid))):
            ns, base = uq(qn), f"{old}:n:{qn}"
            for cid, row in client.hgetall(saver.rows_key(tid, ns)).items():
                client.set(f"{base}:c:{cid.decode()}", row)
            fields = client.hgetall(saver.write_fields_key(tid, ns))
            for cid, packed in client.hgetall(saver.packed_writes_key(tid, ns)).items():
                client.set(f"{base}:wp:{cid.decode()}", packed)
                pos = 5
                for entry in fields[cid].decode().split():
                    name, size = entry.rsplit("/", 1)
                    client.hset(f"{base}:w:{cid.decode()}", name, packed[pos : pos + int(size)])
                    pos += int(size)
            client.rename(saver.index_key(tid, ns), f"{base}:idx")
            client.rename(saver.blobs_key(tid, ns), f"{base}:blobs")
            for key in saver.ns_keys(tid, ns)[1:4]:
                client.delete(key)
        client.rename(saver.ns_set_key(tid), f"{old}:ns")
        if client.exists(f"{saver.thread_base(tid)}:owner"):
            client.rename(f"{saver.thread_base(tid)}:owner", f"{old}:owner")
    client.hset(saver.meta_key(), "layout", "1")


async def _history(saver: AsyncRedisSaver, tid: str) -> list[Any]:
    cfg = {"configurable": {"thread_id": tid, "langgraph_auth_user_id": "ada"}}
    return [(t.config, t.checkpoint, t.metadata, t.pending_writes) async for t in saver.alist(cfg)]


async def test_setup_migrates_layout_1_in_place(settings: Settings, prefix: str) -> None:
    threads = ["m:1", "m{2}"]
    async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
        await saver.setup()
        graph = _review_graph().compile(checkpointer=saver)
        for tid in threads:
            cfg = {"configurable": {"thread_id": tid, "run_id": f"r-{tid}", "langgraph_auth_user_id": "ada"}}
            await graph.ainvoke({"log": [tid]}, cfg)
        await graph.ainvoke(Command(resume="y"), {"configurable": {"thread_id": threads[1]}})
        before = {tid: await _history(saver, tid) for tid in threads}
    client = redis.Redis.from_url(settings.redis_url)
    try:
        downgrade(client, saver)
        assert not list(client.scan_iter(match=f"{prefix}:{{*")), "only layout-1 keys are left"
        client.set(f"{prefix}:migrating", "1")  # another process is migrating
        async with AsyncRedisSaver.from_conn_string(settings.redis_url, key_prefix=prefix) as saver:
            with pytest.raises(StoreError, match="another process is migrating"):
                await saver.setup()
            client.delete(f"{prefix}:migrating")
            await saver.setup()
            assert client.hget(saver.meta_key(), "layout") == b"2"
            assert not list(client.scan_iter(match=f"{prefix}:t:*")), "no layout-1 key is left"
            assert {tid: await _history(saver, tid) for tid in threads} == before
            graph = _review_graph().compile(checkpointer=saver)
            cfg = {"configurable": {"thread_id": threads[0], "langgraph_auth_user_id": "ada"}}
            assert (await graph.ainvoke(Command(resume="z"), cfg))["log"][-1] == "answer:z"
            bob = {"configurable": {"thread_id": threads[0], "langgraph_auth_user_id": "bob"}}
            assert await saver.aget_tuple(bob) is None, "the owner moved with the thread"
            await saver.adelete_for_runs([f"r-{threads[1]}"])
            assert client.smembers(f"{prefix}:run:{q('r-' + threads[1])}") == set()
    finally:
        client.close()
