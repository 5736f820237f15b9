"""The guard's Studio gate, storage route and WebSocket frame filter, driven as a plain ASGI app."""

from __future__ import annotations

import json

import pytest

from agent.server.guard import STUDIO_NEEDS_TOKEN, ServerGuard
from agent.server.tokens import TokenTable
from agent.settings import Settings

TABLE = TokenTable.from_env({"KAG_AUTH_TOKENS": "token-ada-123:learner-ada"})
STUDIO = (b"x-auth-scheme", b"langsmith")


async def echo_headers(scope, receive, send):
    """Answers with the headers it was handed."""
    await receive()
    body = json.dumps(sorted(name.decode() for name, _ in scope["headers"])).encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


async def call(headers, *, anonymous: bool, path: str = "/threads/search", method: str = "POST"):
    scope = {"type": "http", "path": path, "method": method, "headers": headers, "root_path": ""}
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"{}", "more_body": False}

    async def send(message):
        sent.append(message)

    await ServerGuard(echo_headers, tokens=lambda: TABLE, studio_anonymous=lambda: anonymous)(
        scope, receive, send
    )
    return sent[0]["status"], json.loads(sent[1]["body"])


async def test_studio_without_a_token_is_refused_unless_anonymous_studio_is_allowed() -> None:
    assert await call([STUDIO], anonymous=False) == (401, {"detail": STUDIO_NEEDS_TOKEN})
    assert await call([STUDIO], anonymous=True) == (200, ["x-auth-scheme"])


async def test_studio_with_a_token_loses_the_header_so_the_token_decides() -> None:
    status, seen = await call([STUDIO, (b"authorization", b"Bearer token-ada-123")], anonymous=False)
    assert status == 200 and seen == ["authorization"]
    status, seen = await call([STUDIO, (b"x-api-key", b"token-ada-123")], anonymous=False)
    assert status == 200 and seen == ["x-api-key"]


async def test_thread_storage_is_404_and_metrics_take_an_api_key() -> None:
    assert (await call([], anonymous=False, path="/threads/t1/storage", method="GET"))[0] == 404
    assert (await call([(b"x-api-key", b"token-ada-123")], anonymous=False, path="/metrics", method="GET"))[
        0
    ] == 200
    assert (await call([(b"x-api-key", b"token-bad-000")], anonymous=False, path="/metrics", method="GET"))[
        0
    ] == 401
    conflict = [(b"x-api-key", b"token-ada-123"), (b"authorization", b"Bearer token-other-1")]
    assert (await call(conflict, anonymous=False, path="/metrics", method="GET"))[0] == 401


@pytest.mark.parametrize(
    ("url", "allowed"),
    [
        ("http://127.0.0.1:2024", True),
        ("http://localhost:2024", True),
        ("http://[::1]:2024", True),
        ("http://0.0.0.0:2024", False),
        ("https://example.trycloudflare.com", False),
        ("", False),
    ],
)
def test_anonymous_studio_needs_the_setting_and_a_loopback_bind(url, allowed) -> None:
    env = {"LANGGRAPH_API_URL": url}
    assert Settings.from_env({**env, "KAG_STUDIO_ANONYMOUS": "true"}).studio_anonymous_allowed is allowed
    assert Settings.from_env(env).studio_anonymous_allowed is False


async def test_refused_protocol_frames_get_an_error_frame_and_the_rest_pass() -> None:
    frames = [
        {"id": 1, "method": "run.start", "params": {"assistant_id": "kag", "context": {"a": 1}}},
        {"id": 2, "method": "run.start", "params": {"assistant_id": "kag", "input": {"request": "hi"}}},
    ]
    incoming = [{"type": "websocket.connect"}] + [
        {"type": "websocket.receive", "text": json.dumps(f)} for f in frames
    ]
    incoming.append({"type": "websocket.receive", "text": "[" * 5000})
    incoming.append({"type": "websocket.disconnect", "code": 1000})
    passed, sent = [], []

    async def app(scope, receive, send):
        while True:
            message = await receive()
            passed.append(message)
            if message["type"] == "websocket.disconnect":
                return

    async def receive():
        return incoming.pop(0)

    async def send(message):
        sent.append(json.loads(message["text"]))

    scope = {"type": "websocket", "path": "/threads/t1/stream/events", "headers": [], "root_path": ""}
    await ServerGuard(app, tokens=lambda: TABLE)(scope, receive, send)
    assert [m["type"] for m in passed] == ["websocket.connect", "websocket.receive", "websocket.disconnect"]
    assert json.loads(passed[1]["text"])["id"] == 2
    assert [(f["id"], f["status"]) for f in sent] == [(1, 403), (None, 422)]
