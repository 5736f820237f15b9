"""A refused request context is never remembered on the thread.

A run's input is written to the thread before its first node runs. So a run with
``"context": {"session_id": {"$ne": null}}`` was refused by the ``receive`` node only
after the bad context was stored, and every later run on that thread (which inherits
the thread's context) failed with "context.session_id must be a non-empty string"
until a valid context was sent. Now the server refuses a bad context before the run
exists (422), through every way a client writes one: a run's input, a run command's
update, a state update.
"""

from __future__ import annotations

import pytest
from langgraph_sdk.errors import APIStatusError

from tests.security.attack import REFUSED, http_status

pytestmark = [pytest.mark.integration, pytest.mark.server]

BAD_CONTEXTS = [
    ({"session_id": {"$ne": None}}, "context.session_id"),
    ({"session_id": ""}, "context.session_id"),
    ({"current_concept": ["sql"]}, "context.current_concept"),
    ({"end_session": "yes"}, "context.end_session"),
    ({"session_history": "hello"}, "context.session_history"),
    ("nope", "context"),
]


@pytest.mark.parametrize(("context", "field"), BAD_CONTEXTS, ids=[str(i) for i in range(len(BAD_CONTEXTS))])
async def test_a_refused_context_does_not_break_the_thread(as_bob, context, field) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    with pytest.raises(REFUSED) as err:
        await as_bob.runs.wait(thread_id, "kag", input={"request": "Hello, I am Bob.", "context": context})
    assert http_status(err.value) == 422 and field in str(err.value.response.text), err.value

    later = await as_bob.runs.wait(thread_id, "kag", input={"request": "What is a left join?"})
    assert isinstance(later, dict) and later.get("response"), f"the next run must be served: {later}"
    state = await as_bob.threads.get_state(thread_id)
    assert state["values"].get("context") in (None, {}), state["values"].get("context")


async def test_a_bad_context_is_refused_in_commands_and_state_updates_too(as_bob) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    served = await as_bob.runs.wait(
        thread_id, "kag", input={"request": "Hi there.", "context": {"current_concept": "sql.joins"}}
    )
    assert served.get("response"), "control: a valid context is served"
    bad = {"session_id": {"$ne": None}}
    with pytest.raises(APIStatusError) as err:
        await as_bob.threads.update_state(thread_id, {"context": bad}, as_node="receive")
    assert err.value.status_code == 422 and "context.session_id" in str(err.value.body)
    with pytest.raises(REFUSED) as err:
        await as_bob.runs.wait(thread_id, "kag", command={"update": {"context": bad}, "goto": "receive"})
    assert http_status(err.value) == 422
    with pytest.raises(APIStatusError) as err:
        update = {"values": {"context": bad}, "as_node": "receive"}
        await as_bob.threads.create(supersteps=[{"updates": [update]}])
    assert err.value.status_code == 422
    kept = (await as_bob.threads.get_state(thread_id))["values"]["context"]
    assert kept == {"current_concept": "sql.joins"}, "the valid context stays as it was"
    again = await as_bob.runs.wait(thread_id, "kag", input={"request": "And a right join?"})
    assert again.get("response"), again
