"""Runs that try to choose whose memory they use: input, command, context, config, assistants.

Every attack is bob's, on his own thread (or a stateless run), after the fixtures
proved that alice's thread and memory hold her locker code. Each one must be
refused, or run as bob only, and must neither show bob her code nor write anything for
alice.
"""

from __future__ import annotations

import pytest
from langgraph_sdk.errors import APIStatusError

from tests.security.attack import (
    ASK_SECRET,
    BOB_VALUE,
    HEARTBEAT_NODES,
    PLANT,
    REFUSED,
    everything_seen,
    http_status,
    human,
    no_secret,
    thread_dump,
)

pytestmark = [pytest.mark.integration, pytest.mark.server]

NODES = [*HEARTBEAT_NODES, "notes"]


def command_update(alice_id: str, form: str) -> dict | list:
    """A ``Command.update`` that sets alice as the learner and queues bob's question."""
    pairs = [["learner_id", alice_id], ["fifo_queue", [human(PLANT)]], ["request", PLANT]]
    return pairs if form == "pairs" else dict(pairs)


def refused_or_mismatch(seen) -> None:
    """A run that was not refused must have failed with the mismatch error."""
    if seen.status is not None:
        assert seen.status == 403, seen.text()
        return
    assert seen.errors, f"the run was accepted and did not fail: {seen.text()[:3000]}"
    assert seen.errors[0]["error"] == "LearnerMismatchError", seen.errors


@pytest.mark.parametrize("form", ["dict", "pairs"])
@pytest.mark.parametrize("goto", [*NODES, None])
async def test_a_command_writing_learner_id_is_refused_whatever_the_goto(
    as_bob, alice, bob_thread, alice_unchanged, goto, form
) -> None:
    command = {"update": command_update(alice.learner_id, form)}
    if goto is not None:
        command["goto"] = goto

    seen = await everything_seen(as_bob, bob_thread, "kag", command=command)

    assert seen.status == 403, f"refused before the run exists, got: {seen.text()[:3000]}"
    assert "learner_id" in str(seen.refused.body)
    no_secret(seen.text(), await thread_dump(as_bob, bob_thread))
    await alice_unchanged()


async def test_runs_wait_with_a_learner_id_command_is_refused_too(
    as_bob, alice, bob_thread, alice_unchanged
) -> None:
    command = {"update": command_update(alice.learner_id, "dict"), "goto": "monitor"}
    with pytest.raises(REFUSED) as err:
        await as_bob.runs.wait(bob_thread, "kag", command=command)
    assert http_status(err.value) == 403
    with pytest.raises(REFUSED) as err:  # stateless: the server makes a thread for it
        await as_bob.runs.wait(None, "kag", command=command)
    assert http_status(err.value) == 403
    no_secret(str(err.value), await thread_dump(as_bob, bob_thread))
    await alice_unchanged()


@pytest.mark.parametrize("goto", NODES)
async def test_a_send_naming_alice_never_runs_a_node_for_her(
    as_bob, alice, bob, bob_thread, alice_unchanged, goto
) -> None:
    send = {
        "node": goto,
        "input": {"learner_id": alice.learner_id, "fifo_queue": [human(PLANT)], "request": PLANT},
    }

    seen = await everything_seen(as_bob, bob_thread, "kag", command={"goto": send})

    refused_or_mismatch(seen)
    no_secret(seen.text(), await thread_dump(as_bob, bob_thread))
    await alice_unchanged()


@pytest.mark.parametrize(
    "resume", [ASK_SECRET, {"learner_id": "ALICE"}, [["learner_id", "ALICE"]], None], ids=str
)
async def test_a_resume_on_bobs_thread_leaks_nothing(
    as_bob, alice, bob_thread, alice_unchanged, resume
) -> None:
    if isinstance(resume, dict):
        resume = {"learner_id": alice.learner_id, "request": ASK_SECRET}
    elif isinstance(resume, list):
        resume = [["learner_id", alice.learner_id]]
    before = await as_bob.threads.get_state(bob_thread)
    assert before["values"]["learner_id"] != alice.learner_id

    seen = await everything_seen(as_bob, bob_thread, "kag", command={"resume": resume})

    assert seen.status in (None, 400, 403, 409, 422), seen.text()[:3000]
    no_secret(seen.text(), await thread_dump(as_bob, bob_thread))
    assert (await as_bob.threads.get_state(bob_thread))["values"]["learner_id"] != alice.learner_id
    await alice_unchanged()


async def test_an_input_naming_another_learner_is_refused(
    as_bob, alice, bob, bob_thread, alice_unchanged
) -> None:
    payload = {"learner_id": alice.learner_id, "request": PLANT}
    for thread in (bob_thread, None):  # a thread of bob's, and a stateless run
        seen = await everything_seen(as_bob, thread, "kag", input=payload)
        assert seen.status == 403, seen.text()[:3000]
        no_secret(seen.text())
    with pytest.raises(REFUSED) as err:
        await as_bob.runs.wait(bob_thread, "kag", input=payload)
    assert http_status(err.value) == 403
    with pytest.raises(APIStatusError) as err:
        await as_bob.runs.create_batch([{"assistant_id": "kag", "input": payload}])
    assert err.value.status_code == 403

    for malformed in ("bad id!", "../" + alice.learner_id, "x" * 65, alice.learner_id + " "):
        with pytest.raises(APIStatusError) as err:
            await as_bob.runs.create(
                bob_thread, "kag", input={"learner_id": malformed, "request": ASK_SECRET}
            )
        assert err.value.status_code == 422, (malformed, err.value)

    # Control: bob naming himself is served, from his own memory.
    own = await as_bob.runs.wait(
        bob_thread, "kag", input={"learner_id": bob.learner_id, "request": ASK_SECRET}
    )
    assert BOB_VALUE in own["response"]
    no_secret(own, await thread_dump(as_bob, bob_thread))
    await alice_unchanged()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"context": {"learner_id": "ALICE"}},
        {"config": {"configurable": {"learner_id": "ALICE"}}},
        {"config": {"configurable": {"learner_id": "ALICE", "langgraph_auth_user_id": "ALICE"}}},
        {"context": {"learner_id": "ALICE"}, "config": {"configurable": {"learner_id": "ALICE"}}},
    ],
    ids=["context", "configurable", "configurable+auth_user", "both"],
)
async def test_context_or_configurable_naming_a_learner_is_refused(
    as_bob, alice, bob_thread, alice_unchanged, kwargs
) -> None:
    kwargs = _with_alice(kwargs, alice.learner_id)
    seen = await everything_seen(as_bob, bob_thread, "kag", input={"request": ASK_SECRET}, **kwargs)
    # 400: the server itself refuses context and configurable together, before auth.
    assert seen.status == (400 if len(kwargs) == 2 else 403), seen.text()[:3000]
    no_secret(seen.text(), await thread_dump(as_bob, bob_thread))
    await alice_unchanged()


@pytest.mark.parametrize(
    "configurable",
    [
        {"langgraph_auth_user_id": "ALICE"},
        {"langgraph_auth_user": {"identity": "ALICE", "is_authenticated": True}},
        {"langgraph_auth_user_id": "ALICE", "thread_id": "ALICE_THREAD"},
    ],
    ids=["auth_user_id", "auth_user", "auth_user_id+thread_id"],
)
async def test_a_forged_auth_user_in_the_config_is_overwritten(
    as_bob, alice, bob, bob_thread, alice_thread, alice_unchanged, configurable
) -> None:
    configurable = _with_alice(configurable, alice.learner_id, alice_thread)

    seen = await everything_seen(
        as_bob, bob_thread, "kag", input={"request": ASK_SECRET}, config={"configurable": configurable}
    )

    no_secret(seen.text(), await thread_dump(as_bob, bob_thread))
    if seen.status is None:  # accepted: the server's own identity wins, so bob finds his own code
        assert seen.errors == [], seen.errors
        assert BOB_VALUE in seen.of("values")[-1]["response"]
        state = await as_bob.threads.get_state(bob_thread)
        assert state["values"]["learner_id"] == bob.learner_id
    else:
        assert seen.status in (403, 422), seen.text()[:3000]
    await alice_unchanged()


async def test_an_assistant_cannot_carry_another_learners_identity(
    as_bob, alice, bob, bob_thread, alice_unchanged
) -> None:
    configurable = {"learner_id": alice.learner_id, "langgraph_auth_user_id": alice.learner_id}
    try:
        assistant = await as_bob.assistants.create(
            "kag", config={"configurable": configurable}, name="forged"
        )
    except APIStatusError as err:
        assert err.status_code in (403, 422)
        return
    try:
        seen = await everything_seen(
            as_bob, bob_thread, assistant["assistant_id"], input={"request": ASK_SECRET}
        )
        no_secret(seen.text(), await thread_dump(as_bob, bob_thread))
        if seen.status is None and not seen.errors:
            assert BOB_VALUE in seen.of("values")[-1]["response"], "served, so for bob"
            assert (await as_bob.threads.get_state(bob_thread))["values"]["learner_id"] == bob.learner_id
        elif seen.errors:
            assert seen.errors[0]["error"] == "LearnerMismatchError", seen.errors
        else:
            assert seen.status == 403, seen.text()[:3000]
    finally:
        await as_bob.assistants.delete(assistant["assistant_id"])
    await alice_unchanged()


async def test_naming_alices_thread_as_the_session_searches_only_bobs_messages(
    as_bob, alice_thread, bob_thread, alice_unchanged
) -> None:
    """``context.session_id`` groups recall messages; naming alice's thread must not reach hers."""
    thread_id = (await as_bob.threads.create())["thread_id"]
    # A statement only bob made, so the control cannot be crowded out by other tests' questions.
    await everything_seen(as_bob, thread_id, "kag", input={"request": "My bike lock combination is 5150."})
    payload = {
        "request": "What did I say about my bike lock combination?",
        "context": {"session_id": alice_thread, "end_session": True},
    }

    seen = await everything_seen(as_bob, thread_id, "kag", input=payload)

    assert seen.status is None and seen.errors == [], seen.text()[:3000]
    tools = [t for e in seen.of("custom") if e.get("phase") == "act" for t in e["tools"]]
    assert tools == ["conversation_search"], tools
    assert "5150" in seen.text(), "control: the verbatim search ran over bob's messages"
    no_secret(seen.text(), await thread_dump(as_bob, thread_id))
    await alice_unchanged()


async def test_the_shared_graph_assistants_cannot_be_changed_by_a_learner(as_bob, as_alice, alice) -> None:
    """A system assistant is every learner's: bob may not re-point its config or context."""
    assistants = await as_bob.assistants.search(limit=100)
    system = [
        a
        for a in assistants
        if a["graph_id"] in ("kag", "zettelkasten") and a["metadata"].get("created_by") == "system"
    ]
    assert {a["graph_id"] for a in system} == {"kag", "zettelkasten"}, assistants
    for assistant in system:
        forged = {"configurable": {"learner_id": alice.learner_id}}
        for attempt in (
            as_bob.assistants.update(assistant["assistant_id"], config=forged),
            as_bob.assistants.update(assistant["assistant_id"], context={"zettelkasten": False}),
            as_bob.assistants.delete(assistant["assistant_id"]),
            as_bob.assistants.set_latest(assistant["assistant_id"], 1),
        ):
            with pytest.raises(APIStatusError) as err:
                await attempt
            assert err.value.status_code in (403, 404), err.value
        unchanged = await as_alice.assistants.get(assistant["assistant_id"])
        assert unchanged["config"] == assistant["config"] and unchanged["version"] == assistant["version"]


async def test_crons_are_refused(as_bob, alice, bob_thread) -> None:
    payload = {"learner_id": alice.learner_id, "request": ASK_SECRET}
    for attempt in (
        as_bob.crons.create_for_thread(bob_thread, "kag", schedule="* * * * *", input=payload),
        as_bob.crons.create("kag", schedule="* * * * *", input=payload),
        as_bob.crons.create("kag", schedule="* * * * *", input={"request": ASK_SECRET}),
    ):
        with pytest.raises(APIStatusError) as err:
            await attempt
        assert err.value.status_code in (403, 404)


def _with_alice(value, alice_id: str, alice_thread: str | None = None):
    """Replace the placeholders ``ALICE``/``ALICE_THREAD`` inside a parametrized value."""
    if isinstance(value, dict):
        return {k: _with_alice(v, alice_id, alice_thread) for k, v in value.items()}
    if value == "ALICE":
        return alice_id
    if value == "ALICE_THREAD":
        return alice_thread
    return value
