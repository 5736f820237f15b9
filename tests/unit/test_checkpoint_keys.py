"""Key builders, value framing and validation of the Redis saver; no services."""

from __future__ import annotations

import itertools

import pytest
import redis
from langgraph.checkpoint.base import WRITES_IDX_MAP
from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer
from langgraph.checkpoint.serde.types import ERROR, INTERRUPT

from agent.checkpoint import RedisSaver, ops
from agent.checkpoint.base import (
    CorruptCheckpointError,
    blob_field,
    channel_of,
    decode_typed,
    encode_typed,
    q,
    target_of,
    uq,
)
from agent.errors import InvalidInputError, StoreError

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
    assert saver.index_key("t1", "") == "kag:unit:t:t1:n::idx"
    assert saver.index_key("t1", "child:abc") == "kag:unit:t:t1:n:child%3Aabc:idx"
    assert saver.checkpoint_key("t1", "", "cid") == "kag:unit:t:t1:n::c:cid"
    assert saver.blobs_key("t1", "") == "kag:unit:t:t1:n::blobs"
    assert saver.ns_set_key("t1") == "kag:unit:t:t1:ns"
    assert saver.threads_key() == "kag:unit:threads"
    assert saver.run_key("r:1") == "kag:unit:run:r%3A1"


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
        assert channel_of(field) == ch and " " not in field


def test_typed_framing_round_trips_and_detects_corruption() -> None:
    raw = encode_typed(("msgpack", b"\x93\x01\x02\x03"))
    assert decode_typed(raw, "k") == ("msgpack", b"\x93\x01\x02\x03")
    flipped = raw[:-1] + bytes([raw[-1] ^ 0xFF])
    with pytest.raises(CorruptCheckpointError, match="checksum"):
        decode_typed(flipped, "k")
    with pytest.raises(CorruptCheckpointError, match="header"):
        decode_typed(b"garbage", "k")
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


def test_put_builds_one_transaction_with_blobs_only_for_new_versions(saver: RedisSaver) -> None:
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
    assert isinstance(batch, ops.Batch) and batch.transaction
    blob_cmds = [c for c in batch.commands if c[1] == saver.blobs_key("t", "")]
    assert len(blob_cmds) == 1
    assert blob_cmds[0][2::2] == (blob_field("n", "2"),)  # "big" is unchanged: not rewritten
    row = next(c for c in batch.commands if c[1] == saver.checkpoint_key("t", "", "c2"))
    fields = dict(zip(row[2::2], row[3::2], strict=True))
    cid, _, _, parent, refs = saver.unpack_row(fields["row"], lambda: "k")
    assert (cid, parent) == ("c2", "c1")
    assert refs.split() == fields["blobs"].split() == [blob_field("big", "1"), blob_field("n", "2")]
    assert all(c[0] != "EXPIRE" for c in batch.commands)  # no TTL by default


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
    cmds = [c for c in batch.commands if c[0] in {"HSET", "HSETNX"}]
    assert [(c[0], c[2]) for c in cmds] == [
        ("HSETNX", "w:task:0"),
        ("HSET", f"w:task:{WRITES_IDX_MAP[ERROR]}"),
        ("HSET", f"w:task:{WRITES_IDX_MAP[INTERRUPT]}"),
    ]
    with pytest.raises(InvalidInputError, match="write #1"):
        next(ops.put_writes(saver, config, [("a", 1), "bad"], "task"))


def test_writes_decode_in_writes_sort_key_order(saver: RedisSaver) -> None:
    raws = [
        saver.dump_write(task, path, idx, "ch", f"{task}{idx}")
        for task, path, idx in [("t2", "b", 0), ("t1", "b", 1), ("t1", "b", 0), ("t9", "a", 0)]
    ]
    writes = saver.load_writes(raws, lambda: "k")
    assert [w[2] for w in writes] == ["t90", "t10", "t11", "t20"]


def test_constructor_rejects_bad_options() -> None:
    with pytest.raises(InvalidInputError, match="decode_responses"):
        RedisSaver(redis.Redis(decode_responses=True))
    with pytest.raises(InvalidInputError, match="ttl"):
        RedisSaver(redis.Redis(), ttl=0)
    with pytest.raises(InvalidInputError, match="key_prefix"):
        RedisSaver(redis.Redis(), key_prefix="kag:*")
    assert RedisSaver(redis.Redis(), serde=JsonPlusSerializer()).key_prefix == "kag:ckpt"
