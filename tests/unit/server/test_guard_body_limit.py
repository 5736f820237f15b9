"""The guard's body limit: 413 on a declared or a streamed body over 1 MiB, never buffering past it."""

from __future__ import annotations

import json

import pytest

from agent.server.guard import MAX_BODY_BYTES, ServerGuard
from agent.server.tokens import TokenTable

TABLE = TokenTable.from_env({"KAG_AUTH_TOKENS": "token-ada-123:learner-ada"})
CHUNK = 64 * 1024


async def reading_app(scope, receive, send):
    """Reads the whole body (like a JSON route), then answers with its size."""
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            await send({"type": "http.response.start", "status": 499, "headers": []})
            await send({"type": "http.response.body", "body": b'{"detail": "client went away"}'})
            return
        size += len(message.get("body", b""))
        if not message.get("more_body"):
            break
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": json.dumps({"size": size}).encode()})


async def call(path, total, *, declare: bool, method="POST"):
    """Send ``total`` bytes in 64 KB chunks; returns (responses, bytes the client was asked for)."""
    headers = [(b"content-type", b"application/json")]
    if declare:
        headers.append((b"content-length", str(total).encode()))
    scope = {"type": "http", "path": path, "method": method, "headers": headers, "root_path": ""}
    pulled = 0
    sent = []

    async def receive():
        nonlocal pulled
        if pulled >= total:
            return {"type": "http.disconnect"}
        size = min(CHUNK, total - pulled)
        pulled += size
        return {"type": "http.request", "body": b"x" * size, "more_body": pulled < total}

    async def send(message):
        sent.append(message)

    await ServerGuard(reading_app, tokens=lambda: TABLE)(scope, receive, send)
    return sent, pulled


def _status_and_detail(sent):
    starts = [m for m in sent if m["type"] == "http.response.start"]
    assert len(starts) == 1, f"exactly one response, got {sent}"
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return starts[0]["status"], json.loads(body)


@pytest.mark.parametrize("path", ["/threads/t1/runs/wait", "/runs/stream", "/threads", "/threads/t1/state"])
async def test_a_declared_body_over_the_limit_is_refused_unread(path):
    sent, pulled = await call(path, 8 * 1024 * 1024, declare=True)
    status, body = _status_and_detail(sent)
    assert status == 413 and pulled == 0
    assert "1 MiB" in body["detail"] and "32 KB" in body["detail"]


@pytest.mark.parametrize("path", ["/threads/t1/runs/wait", "/runs/stream", "/threads", "/threads/t1/state"])
async def test_a_streamed_body_over_the_limit_is_cut_off_at_the_limit(path):
    sent, pulled = await call(path, 8 * 1024 * 1024, declare=False)
    status, body = _status_and_detail(sent)
    assert status == 413, body
    assert pulled <= MAX_BODY_BYTES + CHUNK, f"read {pulled} bytes, past the limit"
    assert "1 MiB" in body["detail"]


@pytest.mark.parametrize("declare", [True, False])
@pytest.mark.parametrize("path", ["/threads/t1/runs/wait", "/threads/t1/state"])
async def test_a_body_at_the_limit_goes_through_whole(path, declare):
    sent, pulled = await call(path, MAX_BODY_BYTES, declare=declare)
    assert _status_and_detail(sent) == (200, {"size": MAX_BODY_BYTES})


async def test_a_malformed_content_length_is_left_to_the_server():
    scope = {
        "type": "http",
        "path": "/threads",
        "method": "GET",
        "headers": [(b"content-length", b"lots")],
        "root_path": "",
    }
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    await ServerGuard(reading_app, tokens=lambda: TABLE)(scope, receive, send)
    assert _status_and_detail(sent) == (200, {"size": 0})
