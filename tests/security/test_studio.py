"""LangGraph Studio under ``langgraph dev``: ``x-auth-scheme: langsmith``, no token.

The dev server lets Studio in as ``langgraph-studio-user``. If it can run the graphs,
it must be one more tenant: its own threads and memory, never alice's.
"""

from __future__ import annotations

import pytest
from langgraph_sdk.errors import APIStatusError

from tests.security.attack import (
    ASK_SECRET,
    PLANT,
    STUDIO_USER,
    dump,
    everything_seen,
    has_secret,
    human,
    no_secret,
    thread_dump,
)

pytestmark = [pytest.mark.integration, pytest.mark.server]


async def test_studio_never_sees_alices_threads(studio, as_alice, alice_thread) -> None:
    assert alice_thread in [t["thread_id"] for t in await as_alice.threads.search(limit=1000)], "control"
    try:
        listed = await studio.threads.search(limit=1000)
    except APIStatusError as err:
        assert err.status_code in (401, 403)
    else:
        assert alice_thread not in [t["thread_id"] for t in listed]
        no_secret(dump(listed))
    for probe in (
        studio.threads.get(alice_thread),
        studio.threads.get_state(alice_thread),
        studio.threads.get_history(alice_thread),
        studio.threads.update_state(alice_thread, {"fifo_queue": [human(PLANT)]}, as_node="receive"),
        studio.runs.create(alice_thread, "kag", input={"request": ASK_SECRET}),
        studio.runs.list(alice_thread),
        studio.threads.delete(alice_thread),
    ):
        with pytest.raises(APIStatusError) as err:
            await probe
        assert err.value.status_code in (401, 403, 404), err.value
    assert has_secret(await thread_dump(as_alice, alice_thread)), "control: alice's thread is intact"


async def test_studio_runs_as_its_own_tenant_and_cannot_name_alice(studio, alice, alice_unchanged) -> None:
    try:
        thread_id = (await studio.threads.create())["thread_id"]
    except APIStatusError as err:  # Studio cannot even create a thread: then it cannot run either
        assert err.status_code in (401, 403)
        with pytest.raises(APIStatusError) as refused:
            await studio.runs.wait(None, "kag", input={"request": ASK_SECRET})
        assert refused.value.status_code in (401, 403)
        return

    seen = await everything_seen(studio, thread_id, "kag", input={"request": ASK_SECRET})
    assert seen.status is None and seen.errors == [], seen.text()[:3000]
    acts = [e for e in seen.of("custom") if e.get("phase") == "act"]
    assert acts and "archival_memory_search" in acts[0]["tools"], "control: Studio's search ran"
    no_secret(seen.text(), await thread_dump(studio, thread_id))
    assert (await studio.threads.get_state(thread_id))["values"]["learner_id"] == STUDIO_USER

    attacks = [
        {"input": {"learner_id": alice.learner_id, "request": ASK_SECRET}},
        {"command": {"update": {"learner_id": alice.learner_id}, "goto": "monitor"}},
        {"input": {"request": ASK_SECRET}, "context": {"learner_id": alice.learner_id}},
        {"input": {"request": ASK_SECRET}, "config": {"configurable": {"learner_id": alice.learner_id}}},
    ]
    for kwargs in attacks:
        refused = await everything_seen(studio, thread_id, "kag", **kwargs)
        assert refused.status == 403, (kwargs, refused.text()[:3000])
        no_secret(refused.text())
    zettel = await everything_seen(
        studio,
        None,
        "zettelkasten",
        input={"learner_id": alice.learner_id, "transcript": [{"role": "user", "content": "x"}]},
    )
    assert zettel.status == 403, zettel.text()[:3000]
    with pytest.raises(APIStatusError) as err:
        await studio.threads.update_state(thread_id, {"learner_id": alice.learner_id}, as_node="receive")
    assert err.value.status_code == 403
    no_secret(await thread_dump(studio, thread_id))
    await alice_unchanged()
