"""The erase operation's round trips, driven with scripted replies (no Redis), and the owner index."""

from __future__ import annotations

from typing import Any

import pytest
import redis

from agent.checkpoint import RedisSaver, ops
from agent.checkpoint.erase import ROUNDS, erase_owner
from agent.checkpoint.lua import DELETE_THREAD
from agent.checkpoint.owners import INDEX_FIELD, build_index, index_write, owned_config
from agent.errors import StoreError


@pytest.fixture
def saver() -> RedisSaver:
    return RedisSaver(redis.Redis(), key_prefix="kag:unit")  # opens no connection


def drive(op: Any, replies: list[Any]) -> tuple[list[ops.Batch], Any]:
    """Feed ``replies`` one per batch; return the batches sent and the op's result."""
    sent = [next(op)]
    for reply in replies:
        try:
            sent.append(op.send(reply))
        except StopIteration as stop:
            return sent, stop.value
    raise AssertionError(f"the op wanted more than {len(replies)} replies; last: {sent[-1]}")


def test_owned_threads_are_deleted_under_the_owner_guard_and_the_indexes_follow(saver: RedisSaver) -> None:
    p = saver.key_prefix
    op = erase_owner(saver, "ana")
    batches, erased = drive(
        op,
        [
            [[b"t1", b"t2"]],  # SMEMBERS owned:ana
            [[b""], []],  # the threads' namespace sets
            [[1, [b"r1", b"t1::c1"]], [2, []]],  # t1 deleted; t2 is someone else's (guard refused)
            [1, 1, 1, 1, None, None],  # index cleanup, then the owners re-read: nobody re-created
            [[]],  # SMEMBERS owned:ana: empty
        ],
    )
    assert erased == ["t1"]
    calls = batches[2].commands
    assert [c[:2] for c in calls] == [("EVALSHA", DELETE_THREAD.sha)] * 2
    nkeys = calls[0][2]
    assert calls[0][3 + nkeys :] == ("delete", 1, "t1", "=ana", "")  # the guard rides in the script
    assert calls[1][3 + calls[1][2] :] == ("delete", 1, "t2", "=ana")
    assert batches[3].commands[:4] == [
        ("SREM", f"{p}:owned:ana", "t1", "t2"),  # stale t2 leaves ana's index too
        ("SREM", f"{p}:unowned", "t1"),
        ("SREM", f"{p}:threads", "t1"),  # t2 stays listed: it is not ana's
        ("SREM", f"{p}:run:r1", b"t1::c1"),
    ]
    assert batches[3].commands[4:] == [("GET", f"{p}:{{t1}}:owner"), ("GET", f"{p}:{{t2}}:owner")]


def test_a_thread_recreated_meanwhile_goes_back_into_the_index_and_is_erased_next_round(
    saver: RedisSaver,
) -> None:
    p = saver.key_prefix
    op = erase_owner(saver, "ana")
    batches, erased = drive(
        op,
        [
            [[b"t1"]],
            [[b""]],
            [[1, []]],
            [1, 0, 0, b"ana"],  # a concurrent write of ana re-created t1 after the delete
            [1, 1],  # SADD owned, SADD threads
            [[b"t1"]],  # next round finds it again
            [[b""]],
            [[1, []]],
            [1, 0, 0, None],
            [[]],
        ],
    )
    assert erased == ["t1", "t1"]
    assert batches[4].commands == [("SADD", f"{p}:owned:ana", "t1"), ("SADD", f"{p}:threads", "t1")]


def test_an_owner_who_never_stops_writing_gets_an_error_not_a_false_success(saver: RedisSaver) -> None:
    op = erase_owner(saver, "ana")
    next(op)
    with pytest.raises(StoreError, match="kept being written"):
        for _ in range(ROUNDS):
            op.send([[b"t1"]])
            op.send([[b""]])
            op.send([[1, []]])
            op.send([1, 0, 0, b"ana"])
            op.send([1, 1])


def test_unowned_threads_are_adopted_only_when_their_values_name_the_owner(saver: RedisSaver) -> None:
    p = saver.key_prefix
    nb = saver.dump("ana")
    other = saver.dump({"learner_id": "bob"})
    op = erase_owner(
        saver,
        "ana",
        lambda ch, v: (v.get("learner_id") if isinstance(v, dict) else v) == "ana",
        ["learner_id"],
    )
    batches, erased = drive(
        op,
        [
            [(0, [b"nb", b"gone", b"claimed", b"other"])],  # SSCAN unowned
            [None, None, b"cai", None, 1, 0, 1, 1],  # owners, then EXISTS namespace sets
            [(0, {b"learner_id:1": nb}), (0, {b"learner_id:1": other})],  # HSCAN of nb, other
            [2],  # SREM of the stale members (gone, claimed)
            [[b""]],
            [[1, []]],
            [1, 1, 1, None],
            [[]],  # owned:ana is empty
        ],
    )
    assert erased == ["nb"]
    assert batches[2].commands[0][:5] == ("HSCAN", f"{p}:{{nb}}:n::blobs", 0, "MATCH", "learner_id:*")
    assert batches[3].commands == [("SREM", f"{p}:unowned", "gone", "claimed")]
    (call,) = batches[5].commands
    assert "~ana" in call  # an unowned thread is deleted only if still nobody's (or ana's)


def test_writes_index_their_thread_by_principal_and_local_runs_name_their_learner(saver: RedisSaver) -> None:
    assert index_write(saver, "ana", "t 1") == ("SADD", "kag:unit:owned:ana", "t%201")
    assert index_write(saver, None, "t") == ("SADD", "kag:unit:unowned", "t")
    assert saver.principal(owned_config("t", "ana")) == "ana"


def test_setup_builds_the_index_once_from_the_owner_records(saver: RedisSaver) -> None:
    p = saver.key_prefix
    op = build_index(saver)
    batches, _ = drive(op, [[None], [(0, [b"t1", b"t2"])], [b"ana", None], [1, 1], [1]])
    assert batches[2].commands == [("GET", f"{p}:{{t1}}:owner"), ("GET", f"{p}:{{t2}}:owner")]
    assert batches[3].commands == [("SADD", f"{p}:owned:ana", "t1"), ("SADD", f"{p}:unowned", "t2")]
    assert batches[4].commands == [("HSET", f"{p}:meta", INDEX_FIELD, "1")]
    done = build_index(saver)
    assert next(done).commands == [("HGET", f"{p}:meta", INDEX_FIELD)]
    with pytest.raises(StopIteration):
        done.send([b"1"])  # built before: nothing else
