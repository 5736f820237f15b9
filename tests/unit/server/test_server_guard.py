"""The server guard in front of every route, driven as a plain ASGI app."""

import json

import pytest

from agent.server.body_policy import writes_identity
from agent.server.guard import ServerGuard
from agent.server.tokens import TokenTable

TABLE = TokenTable.from_env({"KAG_AUTH_TOKENS": "token-ada-123:learner-ada"})


async def inner(scope, receive, send):
    message = await receive()
    body = json.dumps({"reached": scope["path"], "body": message.get("body", b"").decode()}).encode()
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": body})


async def request(path: str, method: str = "GET", body: bytes = b"", token: str | None = None):
    headers = [(b"authorization", f"Bearer {token}".encode())] if token else []
    scope = {"type": "http", "path": path, "method": method, "headers": headers, "root_path": ""}
    sent, chunks = [], [{"type": "http.request", "body": body[:3], "more_body": True},
                        {"type": "http.request", "body": body[3:], "more_body": False}]  # fmt: skip

    async def receive():
        return chunks.pop(0) if chunks else {"type": "http.disconnect"}

    async def send(message):
        sent.append(message)

    await ServerGuard(inner, tokens=lambda: TABLE)(scope, receive, send)
    return sent[0]["status"], json.loads(sent[1]["body"])


@pytest.mark.parametrize(
    ("path", "method"),
    [
        ("/internal/debug/thread/abc", "GET"),
        ("/internal/truncate", "POST"),
        ("/deploy", "GET"),
        ("/deploy", "POST"),
        ("/deploy/op-1/stream", "GET"),
    ],
)
async def test_internal_routes_are_closed_even_with_a_token(path, method):
    assert (await request(path, method))[0] == 404
    assert (await request(path, method, token="token-ada-123"))[0] == 404


async def test_metrics_need_a_valid_token_and_public_routes_stay_public():
    assert (await request("/metrics"))[0] == 401
    assert (await request("/metrics", token="wrong-token-000"))[0] == 401
    assert await request("/metrics", token="token-ada-123") == (200, {"reached": "/metrics", "body": ""})
    for path in ("/ok", "/info", "/openapi.json", "/deploy-notes-are-not-deploy"):
        assert (await request(path))[0] == 200


async def test_state_updates_writing_learner_id_are_refused_and_others_pass_intact():
    bad = json.dumps({"values": {"learner_id": "learner-bob"}, "as_node": "think"}).encode()
    assert (await request("/threads/t1/state", "POST", bad))[0] == 403
    nested = json.dumps({"values": [{"fifo_queue": []}, {"learner_id": "x"}]}).encode()
    assert (await request("/threads/t1/state/", "POST", nested))[0] == 403
    good = json.dumps({"values": {"request": "hi"}, "as_node": "receive"}).encode()
    status, seen = await request("/threads/t1/state", "POST", good)
    assert status == 200 and seen["body"] == good.decode(), "the body reaches the server unchanged"


def test_identity_writes_are_detected_in_every_shape():
    assert writes_identity({"learner_id": "x"})
    assert writes_identity([{"a": 1}, {"learner_id": "x"}])
    assert not writes_identity({"fifo_queue": [{"learner_id": "not a state key"}]})
    assert not writes_identity(None) and not writes_identity("learner_id")
