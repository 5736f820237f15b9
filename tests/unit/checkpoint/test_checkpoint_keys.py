"""Key builders, value framing and validation of the Redis saver; no services."""

from __future__ import annotations

import itertools

import ormsgpack
import pytest
import redis
from langgraph.checkpoint.base import WRITES_IDX_MAP
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT

from agent.checkpoint import RedisSaver, ops
from agent.checkpoint.base import MAX_PAGE, blob_field, q, target_of, uq
from agent.checkpoint.codec import (
    BadValueError,
    CorruptCheckpointError,
    channel_of,
    decode_writes,
    encode_row,
    encode_typed,
    split_row,
    unframe,
)
from agent.checkpoint.lua import PUT
from agent.errors import InvalidInputError, StoreError, ThreadOwnedError

TRICKY = ["", "a", "a:b", "a b", "a%3Ab", "child:abc|x:1", "ü", "::", "%"]


@pytest.fixture
def saver() -> RedisSaver:
    # Building a client opens no connection; nothing here talks to Redis.
    return RedisSaver(redis.Redis(), key_prefix="kag:unit")


def test_segment_encoding_round_trips_and_has_no_separators() -> None:
    for s in TRICKY:
        assert uq(q(s)) == s
        assert ":" not in q(s) and " " not in q(s)


def test_root_and_child_namespace_keys(saver: RedisSaver) -> None:
    assert saver.index_key("t1", "") == "kag:unit:{t1}:n::idx"
    assert saver.index_key("t1", "child:abc") == "kag:unit:{t1}:n:child%3Aabc:idx"
    assert saver.rows_key("t1", "") == "kag:unit:{t1}:n::c"
    assert saver.blobs_key("t1", "") == "kag:unit:{t1}:n::blobs"
    assert saver.packed_writes_key("t1", "") == "kag:unit:{t1}:n::wp"
    assert saver.write_fields_key("t1", "") == "kag:unit:{t1}:n::wf"
    assert saver.ns_set_key("t1") == "kag:unit:{t1}:ns"
    assert saver.threads_key() == "kag:unit:threads"
    assert saver.run_key("r:1") == "kag:unit:run:r%3A1"
    assert saver.thread_base("a{b}c") == "kag:unit:{a%7Bb%7Dc}"  # braces never end the tag early


def _slot(key: str) -> str:
    """The part of a key Redis Cluster hashes: the first non-empty ``{...}``."""
    start = key.find("{")
    end = key.find("}", start + 1)
    return key[start + 1 : end] if start >= 0 and end > start + 1 else key


def test_every_key_of_a_thread_shares_its_hash_tag(saver: RedisSaver) -> None:
    from agent.checkpoint.owners import owner_key

    for tid in [t for t in TRICKY if t] + ["{x}", "}{", "a}b"]:
        keys = [saver.ns_set_key(tid), owner_key(saver, tid)]
        for ns in TRICKY:
            keys += saver.ns_keys(tid, ns)
        assert {_slot(k) for k in keys} == {q(tid)}, keys
    assert _slot(saver.threads_key()) == saver.threads_key()  # prefix-wide: not a thread's


def test_keys_are_injective_over_thread_and_namespace(saver: RedisSaver) -> None:
    pairs = [(t, n) for t, n in itertools.product(TRICKY, TRICKY) if t]
    for build in (saver.index_key, saver.blobs_key):
        keys = {build(t, n) for t, n in pairs}
        assert len(keys) == len(pairs)
    members = {saver.run_member(t, n, "c:1") for t, n in pairs}
    assert len(members) == len(pairs)


def test_blob_field_names_its_channel_and_version() -> None:
    fields = {blob_field(ch, v) for ch in TRICKY for v in (1, "00001.5", 2.5)}
    assert len(fields) == len(TRICKY) * 3
    for ch in TRICKY:
        field = blob_field(ch, "0001.3")
        assert channel_of(field.encode()) == ch and " " not in field


def test_typed_framing_round_trips_and_detects_corruption() -> None:
    raw = encode_typed(("msgpack", b"\x93\x01\x02\x03"))
    assert unframe(raw) == ("msgpack", b"\x93\x01\x02\x03")
    flipped = raw[:-1] + bytes([raw[-1] ^ 0xFF])
    with pytest.raises(BadValueError, match="checksum"):
        unframe(flipped)
    with pytest.raises(BadValueError, match="header"):
        unframe(b"garbage")
    assert issubclass(CorruptCheckpointError, StoreError)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        (None, "config must be a dict"),
        ({"thread_id": "t"}, "config must be a dict"),
        ({"configurable": {}}, "no 'thread_id'"),
        ({"configurable": {"thread_id": ""}}, "non-empty"),
        ({"configurable": {"thread_id": None}}, "non-empty"),
        ({"configurable": {"thread_id": ["t"]}}, "must be a string"),
        ({"configurable": {"thread_id": "t", "checkpoint_ns": 3}}, "checkpoint_ns"),
        ({"configurable": {"thread_id": "t", "checkpoint_id": 7}}, "checkpoint_id"),
    ],
)
def test_bad_configs_raise_clear_errors(config: object, message: str) -> None:
    with pytest.raises(InvalidInputError, match=message):
        target_of(config)


def test_target_defaults_and_ints() -> None:
    t = target_of({"configurable": {"thread_id": 42}})
    assert (t.thread_id, t.checkpoint_ns, t.checkpoint_id) == ("42", "", None)
    with pytest.raises(InvalidInputError, match="checkpoint_id"):
        target_of({"configurable": {"thread_id": "t"}}, need_id=True)


def _put_call(batch: ops.Batch) -> tuple[list[str], list]:
    """The single PUT script call of a put batch: its keys and its arguments."""
    ((name, sha, nkeys, *rest),) = batch.commands  # one atomic script call
    assert (name, sha) == ("EVALSHA", PUT.sha)
    return rest[:nkeys], rest[nkeys:]


def test_put_is_one_script_call_with_blobs_only_for_new_versions(saver: RedisSaver) -> None:
    checkpoint = {
        "v": 1,
        "id": "c2",
        "ts": "now",
        "channel_values": {"big": "x" * 1000, "n": 2},
        "channel_versions": {"big": "1", "n": "2"},
        "versions_seen": {},
    }
    op = ops.put(
        saver,
        {"configurable": {"thread_id": "t", "checkpoint_id": "c1"}},
        checkpoint,
        {"source": "loop", "step": 1},
        {"n": "2"},
    )
    batch = next(op)
    assert isinstance(batch, ops.Batch) and not batch.transaction  # the script is atomic
    # the prefix-wide indexes are written apart from the thread's single-slot script call;
    # a write without a principal lists the thread as unowned (``agent.checkpoint.erase``)
    assert batch.index == [("SADD", saver.threads_key(), "t"), ("SADD", saver.unowned_key(), "t")]
    keys, (principal, ttl, cid, row, ns, *blobs) = _put_call(batch)
    assert keys == [
        f"{saver.thread_base('t')}:owner",
        saver.blobs_key("t", ""),
        saver.rows_key("t", ""),
        saver.index_key("t", ""),
        saver.ns_set_key("t"),
    ]
    assert {_slot(k) for k in keys} == {"t"}
    assert (principal, ttl, cid, ns) == ("", 0, "c2", "")  # no principal, no TTL by default
    assert blobs[::2] == [blob_field("n", "2")]  # "big" is unchanged: not rewritten
    run, refs, (cid, state, parent) = split_row(row)
    assert (run, cid, parent) == ("", "c2", "c1")
    assert refs == [blob_field("big", "1").encode(), blob_field("n", "2").encode()]
    body, meta = saver.load(state, "k")
    assert "channel_values" not in body and body["channel_versions"] == {"big": "1", "n": "2"}
    assert meta == {"source": "loop", "step": 1}
    with pytest.raises(ThreadOwnedError):
        op.send([-1])  # the script's refusal: another learner owns the thread


def test_writes_name_the_principal_that_claims_the_thread(saver: RedisSaver) -> None:
    config = {"configurable": {"thread_id": "t", "checkpoint_id": "c", "langgraph_auth_user_id": "ada"}}
    checkpoint = {"v": 1, "id": "c2", "ts": "now", "channel_values": {}, "channel_versions": {}}
    batch = next(ops.put(saver, config, checkpoint, {}, {}))
    _, (principal, *_) = _put_call(batch)
    assert principal == "ada"
    assert ("SADD", saver.owned_key("ada"), "t") in batch.index  # the owner index erasure reads
    op = ops.put_writes(saver, config, [("a", 1)], "task")
    writes = next(op)
    ((_, _, nkeys, *rest),) = writes.commands
    assert rest[nkeys - 1] == f"{saver.thread_base('t')}:owner" and rest[nkeys] == "ada"
    assert writes.index == [("SADD", saver.owned_key("ada"), "t")]
    with pytest.raises(ThreadOwnedError):
        op.send([-1])


def test_bad_put_arguments_fail_before_any_command(saver: RedisSaver) -> None:
    config = {"configurable": {"thread_id": "t"}}
    for checkpoint, metadata, versions, message in [
        ("nope", {}, {}, "checkpoint must be a dict"),
        ({"id": ""}, {}, {}, "checkpoint\\['id'\\]"),
        ({"id": "c", "channel_values": []}, {}, {}, "channel_values"),
        ({"id": "c"}, None, {}, "metadata must be a dict"),
        ({"id": "c"}, {}, None, "new_versions must be a dict"),
    ]:
        with pytest.raises(InvalidInputError, match=message):
            next(ops.put(saver, config, checkpoint, metadata, versions))


def test_special_writes_use_reserved_negative_slots(saver: RedisSaver) -> None:
    config = {"configurable": {"thread_id": "t", "checkpoint_id": "c"}}
    batch = next(ops.put_writes(saver, config, [("a", 1), (ERROR, "e"), (INTERRUPT, "i")], "task"))
    ((name, _, nkeys, pkey, fkey, okey, principal, ttl, cid, *args),) = batch.commands  # one script call
    assert (name, nkeys, principal, ttl, cid) == ("EVALSHA", 3, "", 0, "c")
    assert (pkey, fkey) == (saver.packed_writes_key("t", ""), saver.write_fields_key("t", ""))
    assert okey == f"{saver.thread_base('t')}:owner"
    assert [(args[i], args[i + 1]) for i in range(0, len(args), 3)] == [
        ("nx", "task:0"),
        ("set", f"task:{WRITES_IDX_MAP[ERROR]}"),
        ("set", f"task:{WRITES_IDX_MAP[INTERRUPT]}"),
    ]
    with pytest.raises(InvalidInputError, match="write #1"):
        next(ops.put_writes(saver, config, [("a", 1), "bad"], "task"))


def test_rows_round_trip_and_reject_garbage() -> None:
    row = encode_row("c:1", b"state", "c:0", "r%3A1", "a:1 b:2")
    assert split_row(row) == ("r%3A1", [b"a:1", b"b:2"], ["c:1", b"state", "c:0"])
    assert split_row(encode_row("c", b"", "", "", ""))[:2] == ("", [])
    for bad in (b"no header", b"r= x\n\xc1", b"r=\n" + b"\x91\x01"):
        with pytest.raises(BadValueError):
            split_row(bad)


def test_writes_decode_in_writes_sort_key_order(saver: RedisSaver) -> None:
    raws = [
        saver.dump_write(task, path, idx, "ch", f"{task}{idx}")
        for task, path, idx in [("t2", "b", 0), ("t1", "b", 1), ("t1", "b", 0), ("t9", "a", 0)]
    ]
    writes = decode_writes(saver.serde, [ormsgpack.unpackb(r) for r in raws])
    assert [w[2] for w in writes] == ["t90", "t10", "t11", "t20"]


def test_constructor_rejects_bad_options() -> None:
    with pytest.raises(InvalidInputError, match="decode_responses"):
        RedisSaver(redis.Redis(decode_responses=True))
    with pytest.raises(InvalidInputError, match="ttl"):
        RedisSaver(redis.Redis(), ttl=0)
    with pytest.raises(InvalidInputError, match="key_prefix"):
        RedisSaver(redis.Redis(), key_prefix="kag:*")
    with pytest.raises(InvalidInputError, match="braces"):
        RedisSaver(redis.Redis(), key_prefix="kag:{x}")
    with pytest.raises(InvalidInputError, match="list_page_size"):
        RedisSaver(redis.Redis(), list_page_size=MAX_PAGE + 1)
    assert RedisSaver(redis.Redis(), serde=JsonPlusSerializer()).key_prefix == "kag:ckpt"


def test_channel_versions_are_compact_monotonic_and_fork_safe(saver: RedisSaver) -> None:
    versions = [saver.get_next_version(None, None)]
    for _ in range(30):
        versions.append(saver.get_next_version(versions[-1], None))
    assert versions == sorted(versions) and len(set(versions)) == len(versions)
    assert all(len(v) == 19 for v in versions)  # 49 with InMemorySaver's scheme
    # Two forks of one parent get distinct versions, so their blobs never collide.
    assert len({saver.get_next_version(versions[5], None) for _ in range(50)}) == 50
    # Threads written with the old 32-digit scheme keep increasing after the change.
    old = f"{41:032}.{0.5:016}"
    assert saver.get_next_version(old, None) > old and saver.get_next_version(old, None).startswith(
        f"{42:010}."
    )
    assert saver.get_next_version(7, None).startswith(f"{8:010}.")


def test_cluster_urls_are_recognised_and_plain_urls_are_not() -> None:
    from agent.checkpoint.cluster import cluster_url

    assert cluster_url("redis+cluster://127.0.0.1:7000") == "redis://127.0.0.1:7000"
    assert cluster_url("rediss+cluster://h:7000/0") == "rediss://h:7000/0"
    assert cluster_url("redis://127.0.0.1:6379/0") is None
    assert cluster_url("unix:///tmp/redis.sock") is None


def test_every_batch_of_put_and_delete_is_single_slot_apart_from_its_index(saver: RedisSaver) -> None:
    checkpoint = {"v": 1, "id": "c1", "ts": "now", "channel_values": {"a": 1}, "channel_versions": {"a": "1"}}
    config = {"configurable": {"thread_id": "t{1}", "run_id": "r1"}}
    batch = next(ops.put(saver, config, checkpoint, {}, {"a": "1"}))
    keys, _ = _put_call(batch)
    assert {_slot(k) for k in keys} == {q("t{1}")}
    assert [c[1] for c in batch.index] == [saver.threads_key(), saver.unowned_key(), saver.run_key("r1")]
    op = ops.delete_threads(saver, ["t{1}"], "delete")
    (read,) = next(op).commands
    (script,) = op.send([[b""]]).commands  # one (root) namespace
    assert read == ("SMEMBERS", saver.ns_set_key("t{1}"))
    assert script[0] == "EVALSHA" and {_slot(k) for k in script[3 : 3 + script[2]]} == {q("t{1}")}
    cleanup = op.send([[1, [b"r1", b"t%7B1%7D::c1"]]])
    assert cleanup.index == [] and cleanup.commands == [
        ("SREM", saver.run_key("r1"), b"t%7B1%7D::c1"),
        ("SREM", saver.threads_key(), q("t{1}")),
    ]


def test_layout_1_writes_hash_becomes_the_packed_array_put_writes_keeps(saver: RedisSaver) -> None:
    from agent.checkpoint.codec import decode_writes
    from agent.checkpoint.migrate import packed_writes

    raws = {f"task:{i}".encode(): saver.dump_write("task", "", i, "ch", i) for i in range(3)}
    packed, index = packed_writes(raws)
    assert index == " ".join(f"task:{i}/{len(raws[f'task:{i}'.encode()])}" for i in range(3))
    assert [w[2] for w in decode_writes(saver.serde, ormsgpack.unpackb(packed))] == [0, 1, 2]


def test_a_cluster_client_is_recognised_and_must_return_bytes() -> None:
    from redis.asyncio.cluster import RedisCluster

    from agent.checkpoint import AsyncRedisSaver

    # An async cluster client connects lazily: nothing here talks to Redis.
    assert AsyncRedisSaver(RedisCluster(host="127.0.0.1", port=1)).cluster
    with pytest.raises(InvalidInputError, match="decode_responses"):
        AsyncRedisSaver(RedisCluster(host="127.0.0.1", port=1, decode_responses=True))
