"""A thread id claimed again after the server lost its thread records.

A second ``langgraph dev`` starts with a fresh working directory (a new ops file: it
knows no threads) but the same checkpoint prefix, so alice's checkpoints are still in
Redis. Bob creates a thread with the id of alice's thread: the checkpoints know their
owner (``agent.checkpoint.owners``), so he must see nothing, and every write he
attempts (runs, state updates, copies, deletes) must leave alice's checkpoints as they
were. Control: alice, on the same second server, reads her history back.

Against the production server the thread records live in PostgreSQL: there the "second
server" is the same one after its ``threads`` and ``runs`` rows of alice's threads are
deleted (a database restored from before they existed), with the checkpoints still in Redis.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import httpx
import pytest
from langgraph_sdk.errors import APIStatusError

from agent.checkpoint import AsyncRedisSaver
from agent.resources import Resources
from tests.integration.langgraph_server import DevServer
from tests.integration.prod_server import psql
from tests.security.attack import (
    ASK_SECRET,
    MARKER,
    PLANT,
    dump,
    everything_seen,
    has_secret,
    human,
    no_secret,
)

pytestmark = [pytest.mark.integration, pytest.mark.server]


@pytest.fixture(scope="module")
async def victims(as_alice, alice_thread) -> dict[str, str]:
    """Two threads of alice on the first server whose checkpoints hold her secret."""
    threads = {}
    for name in ("attacked", "control"):
        thread_id = (await as_alice.threads.create())["thread_id"]
        own = await as_alice.runs.wait(thread_id, "kag", input={"request": ASK_SECRET})
        assert has_secret(own["response"]), "control: the owner reads her secret back"
        threads[name] = thread_id
    return threads


@pytest.fixture(scope="module")
async def second(server: DevServer, tmp_path_factory, victims) -> AsyncIterator[DevServer]:
    """A new server over the same Redis checkpoints, with no thread records."""
    database = getattr(server, "database", None)  # the production server's PostgreSQL database
    if database:
        ids = ", ".join(f"'{thread_id}'" for thread_id in victims.values())
        psql(
            f"DELETE FROM runs WHERE thread_id IN ({ids}); DELETE FROM threads WHERE thread_id IN ({ids})",
            database,
        )
        yield server
        return
    dev = DevServer(tmp_path_factory.mktemp("langgraph-sec-second"), prefix=server.prefix)
    dev.learners = dict(server.learners)
    await asyncio.to_thread(dev.start)
    try:
        yield dev
    finally:
        await asyncio.to_thread(dev.stop)


@pytest.fixture
async def raw_checkpoints(resources: Resources, server: DevServer):
    """Read a thread's checkpoints straight from Redis, as nobody in particular."""

    async def read(thread_id: str) -> list[tuple[str, str]]:
        async with AsyncRedisSaver.from_conn_string(
            resources.settings.redis_url, key_prefix=server.prefix
        ) as saver:
            config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ""}}
            return [
                (tup.config["configurable"]["checkpoint_id"], dump(tup.checkpoint["channel_values"]))
                async for tup in saver.alist(config)
            ]

    return read


@pytest.fixture
async def victim(victims, raw_checkpoints) -> str:
    """The attacked thread, after checking (raw, in Redis) that it holds alice's secret."""
    thread_id = victims["attacked"]
    assert has_secret(dump(await raw_checkpoints(thread_id))), "control: the secret is in Redis"
    return thread_id


@pytest.fixture(scope="module")
async def claimed(second: DevServer, victims) -> str:
    """Bob, on the second server, creates a thread with the id of alice's thread."""
    as_bob = second.learners["bob"].client(second.url)
    # graph_id: the new server must know which graph the thread runs, or it shows no state at all.
    thread = await as_bob.threads.create(thread_id=victims["attacked"], graph_id="kag")
    assert thread["thread_id"] == victims["attacked"], "the new server accepted the id"
    return thread["thread_id"]


async def test_the_owner_reads_her_history_back_on_the_new_server(second: DevServer, victims) -> None:
    """Control: the checkpoints survived, so the attacks below have something to find."""
    as_alice = second.learners["alice"].client(second.url)
    thread_id = victims["control"]
    await as_alice.threads.create(thread_id=thread_id, graph_id="kag")
    history = await as_alice.threads.get_history(thread_id, limit=1000)
    assert history and has_secret(dump(history))
    state = await as_alice.threads.get_state(thread_id)
    assert has_secret(dump(state["values"]))


async def test_a_claimed_thread_shows_nothing_of_its_previous_owner(
    second: DevServer, claimed: str, victim: str, raw_checkpoints
) -> None:
    as_bob = second.learners["bob"].client(second.url)
    alice_ids = [cid for cid, _ in await raw_checkpoints(victim)]

    state = await as_bob.threads.get_state(claimed)
    history = await as_bob.threads.get_history(claimed, limit=1000)

    no_secret(dump(state), dump(history))
    assert not state["values"], state["values"]
    assert history == [], f"bob sees {len(history)} checkpoints of alice's thread"
    for checkpoint_id in alice_ids[:3]:
        try:
            at = await as_bob.threads.get_state(claimed, checkpoint_id=checkpoint_id)
        except APIStatusError as err:
            assert err.status_code in (404, 422), err
        else:
            no_secret(dump(at))
            assert not at["values"]
    search = await as_bob.threads.search(limit=1000)
    no_secret(dump(search))


async def test_a_run_on_a_claimed_thread_fails_and_writes_nothing(
    second: DevServer, claimed: str, victim: str, raw_checkpoints
) -> None:
    as_bob = second.learners["bob"].client(second.url)
    before = await raw_checkpoints(victim)

    seen = await everything_seen(as_bob, claimed, "kag", input={"request": PLANT})

    no_secret(seen.text())
    assert seen.status is None, "the run is accepted by the API; the checkpointer refuses it"
    assert seen.errors, f"the run on another learner's thread did not fail: {seen.text()[:3000]}"
    assert "ThreadOwnedError" in dump(seen.errors) or "another learner" in dump(seen.errors), seen.errors
    with pytest.raises(Exception) as err:  # runs.wait raises the run's error
        await as_bob.runs.wait(claimed, "kag", input={"request": ASK_SECRET})
    assert not has_secret(str(err.value))
    assert await raw_checkpoints(victim) == before, "bob's runs wrote into alice's checkpoints"
    no_secret(dump(await as_bob.threads.get_history(claimed, limit=1000)))


async def test_state_updates_and_copies_of_a_claimed_thread_leak_nothing(
    second: DevServer, claimed: str, victim: str, raw_checkpoints
) -> None:
    bob = second.learners["bob"]
    before = await raw_checkpoints(victim)

    for as_node in ("receive", "think", None):
        as_bob = bob.client(second.url)  # a fresh connection each time: a refusal may drop it
        # Refused by the checkpointer (ThreadOwnedError). The server does not turn that into a
        # 4xx: it answers 500 or drops the connection; either way nothing may be written.
        with pytest.raises((APIStatusError, httpx.HTTPError)) as err:
            await as_bob.threads.update_state(claimed, {"fifo_queue": [human(PLANT)]}, as_node=as_node)
        assert not has_secret(str(err.value))
    as_bob = bob.client(second.url)
    try:
        copy = await as_bob.threads.copy(claimed)
    except (APIStatusError, httpx.HTTPError) as err:
        assert not has_secret(str(err))
        as_bob = bob.client(second.url)
    else:
        no_secret(dump(await as_bob.threads.get_history(copy["thread_id"], limit=1000)))
        no_secret(dump(await as_bob.threads.get_state(copy["thread_id"])))

    after = await raw_checkpoints(victim)
    assert after == before, "bob's state update wrote into alice's checkpoints"
    assert MARKER not in dump(after)
    no_secret(dump(await as_bob.threads.get_history(claimed, limit=1000)))


async def test_deleting_a_claimed_thread_keeps_the_owners_checkpoints(
    second: DevServer, claimed: str, victim: str, raw_checkpoints
) -> None:
    as_bob = second.learners["bob"].client(second.url)
    before = await raw_checkpoints(victim)

    await as_bob.threads.delete(claimed)  # bob's record on this server: his to delete

    after = await raw_checkpoints(victim)
    assert len(after) == len(before) and after == before, (
        f"deleting his own thread record wiped alice's checkpoints: {len(before)} before, {len(after)} after"
    )
    as_alice = second.learners["alice"].client(second.url)
    await as_alice.threads.create(thread_id=victim, graph_id="kag")
    assert has_secret(dump(await as_alice.threads.get_history(victim, limit=1000)))
