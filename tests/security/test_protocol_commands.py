"""LangGraph's streaming protocol: ``run.start`` may not carry what the server would drop.

The runtime serves ``POST /threads/{id}/commands`` and the WebSocket
``/threads/{id}/stream/events``. Their ``run.start`` silently dropped ``context`` and
``command`` (a ``learner_id`` update included) and ran anyway, where the REST run
routes refuse such a run with 403. Both transports now refuse it the same way: a 403
on HTTP, an error frame with ``status: 403`` on the socket (which stays open).
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.security.attack import has_secret

pytestmark = [pytest.mark.integration, pytest.mark.server]


@pytest.fixture
async def http(server):
    """A plain HTTP client on the server (every status as it is)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
        yield client


def run_start(params: dict[str, Any], ident: int = 1) -> dict[str, Any]:
    """A ``run.start`` command of the kag graph."""
    return {"id": ident, "method": "run.start", "params": {"assistant_id": "kag", **params}}


def attacks(alice_id: str) -> list[dict[str, Any]]:
    """``run.start`` params the REST routes refuse, or the protocol would drop."""
    ask = {"request": "What do you know about my locker code?"}
    return [
        {"input": ask, "context": {"search_page_size": 3}},
        {"input": ask, "context": {"learner_id": alice_id}},
        {"input": None, "command": {"update": {"learner_id": alice_id}, "goto": "monitor"}},
        {"input": ask, "command": {"resume": "x"}},
        {"input": {**ask, "learner_id": alice_id}},
    ]


async def test_run_start_over_http_refuses_context_and_command(http, server, as_bob, alice_unchanged) -> None:
    bob, alice = server.learners["bob"], server.learners["alice"]
    headers = {"Authorization": f"Bearer {bob.token}"}
    thread_id = (await as_bob.threads.create())["thread_id"]
    for params in attacks(alice.learner_id):
        response = await http.post(f"/threads/{thread_id}/commands", headers=headers, json=run_start(params))
        assert response.status_code == 403, (params, response.status_code, response.text[:500])
        assert not has_secret(response.text)
    assert await as_bob.runs.list(thread_id) == [], "no refused command may start a run"
    await alice_unchanged()


async def test_the_commands_route_answers_a_plain_run_start(http, server, as_bob) -> None:
    """Control: the route exists and serves a command without the refused fields."""
    bob = server.learners["bob"]
    thread_id = (await as_bob.threads.create())["thread_id"]
    response = await http.post(
        f"/threads/{thread_id}/commands",
        headers={"Authorization": f"Bearer {bob.token}"},
        json=run_start({"input": {"request": "Hello!"}}),
    )
    assert response.status_code == 200, response.text[:500]
    answer = response.json()
    assert answer["type"] in ("success", "error"), answer
    if answer["type"] == "success":
        run = await as_bob.runs.join(thread_id, answer["result"]["run_id"])
        assert run is not None


async def test_run_start_over_the_websocket_is_refused_with_an_error_frame(
    server, as_bob, alice_unchanged
) -> None:
    bob, alice = server.learners["bob"], server.learners["alice"]
    thread_id = (await as_bob.threads.create())["thread_id"]
    uri = f"ws://127.0.0.1:{server.port}/threads/{thread_id}/stream/events"
    async with connect(uri, additional_headers={"Authorization": f"Bearer {bob.token}"}) as socket:
        for ident, params in enumerate(attacks(alice.learner_id), start=1):
            await socket.send(json.dumps(run_start(params, ident)))
            frame = await _reply_to(socket, ident)
            assert frame["type"] == "error" and frame["status"] == 403, (params, frame)
        await socket.send(json.dumps({"id": 99, "method": "no.such.command", "params": {}}))
        frame = await _reply_to(socket, 99)
        assert frame["type"] == "error", "the socket stays open and served the next command"
    assert await as_bob.runs.list(thread_id) == [], "no refused frame may start a run"
    await alice_unchanged()


async def _reply_to(socket, ident: int) -> dict[str, Any]:
    """The next frame answering command ``ident`` (events in between are skipped)."""
    while True:
        frame = json.loads(await socket.recv())
        if frame.get("id") == ident and frame.get("type") in ("error", "success"):
            return frame
