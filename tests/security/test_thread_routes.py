"""Every thread route, called by bob with the id of alice's thread on the server that owns it.

The thread records are intact here (compare ``test_claimed_thread``): each route must
refuse (403/404/409) and show nothing; afterwards alice's thread is unchanged.
"""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest
from langgraph_sdk.errors import APIStatusError

from tests.security.attack import ASK_SECRET, MARKER, PLANT, dump, has_secret, human, is_production


async def read_stream(
    http: httpx.AsyncClient,
    path: str,
    headers: dict[str, str],
    seconds: float,
    until: asyncio.Event | None = None,
    stop_after: str | None = None,
) -> str:
    """What an SSE endpoint sends, its status line included.

    It reads for ``seconds`` at most, until ``until`` is set, or until the text holds ``stop_after``.
    """
    chunks: list[str] = []

    async def read() -> None:
        async with http.stream("GET", path, headers=headers, timeout=seconds + 30) as response:
            chunks.append(f"HTTP {response.status_code}\n")
            async for text in response.aiter_text():
                chunks.append(text)
                if stop_after is not None and stop_after in "".join(chunks):
                    return

    waits = [asyncio.create_task(read())]
    if until is not None:
        waits.append(asyncio.create_task(until.wait()))
    await asyncio.wait(waits, timeout=seconds, return_when=asyncio.FIRST_COMPLETED)
    for task in waits:
        task.cancel()
    await asyncio.gather(*waits, return_exceptions=True)
    return "".join(chunks)


pytestmark = [pytest.mark.integration, pytest.mark.server]


async def test_bob_reaches_alices_thread_through_no_route(
    server, as_bob, as_alice, alice_thread, bob
) -> None:
    history_before = await as_alice.threads.get_history(alice_thread, limit=1000)
    assert has_secret(dump(history_before)), "control: the owner sees her secret"
    checkpoint_id = history_before[0]["checkpoint"]["checkpoint_id"]

    probes = {
        "get": as_bob.threads.get(alice_thread),
        "get_state": as_bob.threads.get_state(alice_thread),
        "get_state@checkpoint": as_bob.threads.get_state(alice_thread, checkpoint_id=checkpoint_id),
        "get_history": as_bob.threads.get_history(alice_thread),
        "update_state": as_bob.threads.update_state(
            alice_thread, {"fifo_queue": [human(PLANT)]}, as_node="receive"
        ),
        "update": as_bob.threads.update(alice_thread, metadata={"owner": bob.learner_id}),
        "copy": as_bob.threads.copy(alice_thread),
        "runs.list": as_bob.runs.list(alice_thread),
        "runs.create": as_bob.runs.create(alice_thread, "kag", input={"request": ASK_SECRET}),
        "create(raise)": as_bob.threads.create(thread_id=alice_thread),
        "create(do_nothing)": as_bob.threads.create(thread_id=alice_thread, if_exists="do_nothing"),
        "delete": as_bob.threads.delete(alice_thread),
        "prune": as_bob.threads.prune([alice_thread]),
    }
    outcomes = {}
    for name, probe in probes.items():
        try:
            outcomes[name] = await probe
        except APIStatusError as err:
            outcomes[name] = err.status_code
    # The Postgres runtime answers a state read of a thread the caller may not read with the
    # empty snapshot of a thread that does not exist (langgraph_runtime_pg ops.py State.get):
    # nothing of alice's, and no sign that her thread exists.
    unknown = await as_bob.threads.get_state(str(uuid.uuid4())) if is_production(server) else None
    for name, outcome in outcomes.items():
        if name == "prune" and isinstance(outcome, dict):
            assert outcome.get("pruned_count") == 0, outcome  # nothing of alice's pruned
            continue
        if name.startswith("get_state") and unknown is not None and isinstance(outcome, dict):
            assert outcome == unknown and outcome["values"] == {}, outcome
            continue
        assert outcome in (403, 404, 409), f"{name}: bob got {str(outcome)[:1000]}"

    headers = {"Authorization": f"Bearer {bob.token}"}
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        raw = [
            ("POST", f"/threads/{alice_thread}/history", {"limit": 10}),
            (
                "POST",
                f"/threads/{alice_thread}/state/checkpoint",
                {"checkpoint": {"checkpoint_id": checkpoint_id}},
            ),
            ("GET", f"/threads/{alice_thread}/state/{checkpoint_id}", None),
            ("GET", f"/threads/{alice_thread}/storage", None),
        ]
        for method, path, body in raw:
            response = await http.request(method, path, headers=headers, json=body)
            if unknown is not None and "/state" in path and response.status_code == 200:
                assert response.json() == unknown, response.text[:500]  # the unknown thread's snapshot
                continue
            # 501: /storage is not implemented for a custom checkpointer (and says nothing else).
            assert response.status_code in (403, 404, 405, 409, 422, 501), (
                path,
                response.status_code,
                response.text[:500],
            )
            assert not has_secret(response.text)
        # The join is refused inside the event stream (the 200 is already sent): see the test below.
        joined = await read_stream(http, f"/threads/{alice_thread}/stream", headers, seconds=3)
        assert not has_secret(joined)

    history_after = await as_alice.threads.get_history(alice_thread, limit=1000)
    assert [h["checkpoint"]["checkpoint_id"] for h in history_after] == [
        h["checkpoint"]["checkpoint_id"] for h in history_before
    ]
    assert MARKER not in dump(history_after)
    thread = await as_alice.threads.get(alice_thread)
    assert thread["metadata"]["owner"] == server.learners["alice"].learner_id


async def test_joining_alices_thread_stream_shows_bob_nothing_of_her_run(
    server, as_alice, alice, bob, alice_thread
) -> None:
    """Bob joins the live stream of alice's thread (with replay) while she asks for her secret."""
    thread_id = (await as_alice.threads.create())["thread_id"]
    path = f"/threads/{thread_id}/stream?stream_modes=run_modes"
    alice_headers = {"Authorization": f"Bearer {alice.token}", "Last-Event-ID": "-"}
    bob_headers = {"Authorization": f"Bearer {bob.token}", "Last-Event-ID": "-"}
    async with httpx.AsyncClient(base_url=server.url, timeout=60) as http:
        done = asyncio.Event()
        finished = '"response":"[offline'  # the final values event (OFFLINE_BANNER)
        owner = asyncio.create_task(read_stream(http, path, alice_headers, seconds=60, stop_after=finished))
        attacker = asyncio.create_task(read_stream(http, path, bob_headers, seconds=60, until=done))
        await asyncio.sleep(1.0)  # both joined before the run starts
        async for _ in as_alice.runs.stream(
            thread_id, "kag", input={"request": ASK_SECRET}, stream_mode=["values", "custom"]
        ):
            pass
        seen_by_owner = await owner  # the owner's join saw the run finish
        await asyncio.sleep(0.5)
        done.set()
        late = await read_stream(http, path, bob_headers, seconds=3)  # joined after the run: replay only
        seen_by_attacker = await attacker

    assert has_secret(seen_by_owner), f"control: the owner's join carries her run: {seen_by_owner[:1000]}"
    refusal = seen_by_attacker.lower()
    assert "event: error" in refusal and "not found" in refusal, seen_by_attacker[:1000]
    assert not has_secret(seen_by_attacker), f"bob read alice's live stream: {seen_by_attacker[:2000]}"
    assert not has_secret(late), f"bob replayed alice's thread stream: {late[:2000]}"
