"""Kernel events: encoding round trip, idempotency keys, bad entries."""

from __future__ import annotations

import pytest

from agent.kernel.events import OP_RECALL, KernelEvent, decode, encode, event_key


def test_an_event_survives_the_stream_encoding() -> None:
    event = KernelEvent(
        op=OP_RECALL,
        learner_id="alice",
        payload={"messages": [{"id": "m,1", "content": "a, b \u00e9"}]},
        key="k",
        parked=True,
        at=12.5,
        tail_ids=("m,1", "m2"),
    )
    back = decode("1-0", encode(event))
    assert back == KernelEvent(**{**event.__dict__, "entry_id": "1-0"})


def test_the_key_depends_on_learner_op_and_ids_only() -> None:
    a = event_key(OP_RECALL, "alice", ["s1", "m1"])
    assert a == event_key(OP_RECALL, "alice", ["s1", "m1"])
    assert a != event_key(OP_RECALL, "bob", ["s1", "m1"])
    assert a != event_key(OP_RECALL, "alice", ["s1", "m2"])
    assert a != event_key("other.op", "alice", ["s1", "m1"])


@pytest.mark.parametrize("fields", [{}, {"op": "x"}, {"op": "x", "learner": "a", "key": "k", "payload": "{"}])
def test_an_entry_that_is_not_an_event_is_a_value_error(fields: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="not a kernel event"):
        decode("1-0", fields)
