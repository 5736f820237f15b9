"""Bad input through the real server: a clear answer naming what is wrong, and nothing written.

Bob sends each bad run on a fresh thread of his own; his Neo4j and Redis footprint
(recall messages, archival memories, core memory) must be the same afterwards,
and the server must still serve a good run. Bodies over the guard's limit get 413
whether they declare their size or stream it.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest

from agent.server.guard import MAX_BODY_BYTES
from tests.security.attack import everything_seen, footprint

pytestmark = [pytest.mark.integration, pytest.mark.server]

BAD_CONTEXTS = [
    ({"search_recipe": "nope"}, "search_recipe"),
    ({"search_page_size": 1000}, "search_page_size"),
    ({"core_section_limit": -1}, "core_section_limit"),
    ({"core_ttl_seconds": -5}, "core_ttl_seconds"),
    ({"max_tokens": "big"}, "max_tokens"),
    ("nope", "context"),
    ([1, 2], "context"),
    (5, "context"),
]
REQUEST = "My name is Bob and my goal is to learn Go."


def _clear_answer(seen, field: str) -> str:
    """The refusal or the run's error, which must name ``field``; returns its text."""
    if seen.status is not None:
        assert 400 <= seen.status < 500, seen.text()[:2000]
        text = str(seen.refused.body)
    else:
        assert seen.errors, f"the bad run was accepted and did not fail: {seen.text()[:2000]}"
        text = json.dumps(seen.errors)
    assert field in text, f"the answer does not name {field!r}: {text[:2000]}"
    return text


async def _unchanged(resources, learner_id: str, before: dict[str, Any]) -> None:
    after = await footprint(resources, learner_id)
    added = {k: v for k, v in after["nodes"].items() if k not in before["nodes"]}
    assert added == {}, f"nodes written by a refused run: {added}"
    assert after == before, "memory changed during a refused run"


@pytest.mark.parametrize(("context", "field"), BAD_CONTEXTS, ids=[f for _, f in BAD_CONTEXTS])
async def test_an_invalid_run_context_names_the_field_and_writes_nothing(
    as_bob, bob, resources, context, field
) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    before = await footprint(resources, bob.learner_id)

    seen = await everything_seen(as_bob, thread_id, "kag", input={"request": REQUEST}, context=context)

    _clear_answer(seen, field)
    await _unchanged(resources, bob.learner_id, before)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"request": None}, "request"),
        ({"request": {"text": "hi"}}, "request"),
        ({"request": ["hi"]}, "request"),
        ({"request": "   "}, "request"),
        ({"request": "x" * (33 * 1024)}, "request"),
        ({"request": REQUEST, "context": "nope"}, "context"),
        ({"request": REQUEST, "context": {"session_id": {"$ne": 1}}}, "session_id"),
    ],
    ids=["none", "dict", "list", "blank", "33KB", "state-context-string", "session-id-dict"],
)
async def test_a_bad_request_names_the_field_and_writes_nothing(
    as_bob, bob, resources, payload, field
) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    before = await footprint(resources, bob.learner_id)

    seen = await everything_seen(as_bob, thread_id, "kag", input=payload)

    _clear_answer(seen, field)
    await _unchanged(resources, bob.learner_id, before)


def _raw(server, learner, path: str, body: bytes | Any, **headers: str) -> httpx.Response:
    hdrs = {"Authorization": f"Bearer {learner.token}", "Content-Type": "application/json", **headers}
    return httpx.post(f"{server.url}{path}", content=body, headers=hdrs, timeout=60)


@pytest.mark.parametrize("text", ["\\ud800", "a\\udfffb", "\\udbff"], ids=["high", "low", "lone-high-end"])
async def test_a_lone_surrogate_in_the_request_is_refused_by_name(
    server, as_bob, bob, resources, text
) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    before = await footprint(resources, bob.learner_id)
    # JSON may spell a lone surrogate as an escape; the SDK cannot even encode one, so the body is raw.
    body = f'{{"assistant_id": "kag", "input": {{"request": "hello {text}"}}}}'.encode()

    response = _raw(server, bob, f"/threads/{thread_id}/runs/wait", body)

    # The server guard's JSON check refuses it by name before any run exists (422); were it ever
    # to let one through, the heartbeat's validate_request names the field instead.
    answer = response.text
    assert "UnicodeEncodeError" not in answer, answer[:2000]
    if 400 <= response.status_code < 500:
        assert response.status_code == 422 and "unpaired surrogate" in answer, answer[:2000]
    else:
        assert "request" in answer and "not valid Unicode" in answer, answer[:2000]
    await _unchanged(resources, bob.learner_id, before)


async def test_a_body_over_the_limit_is_refused_before_it_is_read(server, as_bob, bob) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    big = json.dumps({"assistant_id": "kag", "input": {"request": "x" * (8 * 1024 * 1024)}}).encode()

    response = _raw(server, bob, f"/threads/{thread_id}/runs/wait", big)

    assert response.status_code == 413, response.text[:500]
    assert "1 MiB" in response.json()["detail"] and "32 KB" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/threads/{t}/runs/wait", "/threads/{t}/state", "/threads", "/runs/wait"])
async def test_a_streamed_body_over_the_limit_is_cut_off_with_413(server, as_bob, bob, path) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    sent = 0

    def chunks():  # no content-length: the guard has to count
        nonlocal sent
        yield b'{"assistant_id": "kag", "input": {"request": "'
        for _ in range(64):
            sent += 128 * 1024
            yield b"x" * (128 * 1024)
        yield b'"}}'

    try:
        response = _raw(server, bob, path.format(t=thread_id), chunks())
    except httpx.HTTPError as exc:  # the server may close the upload early: also a refusal
        pytest.fail(f"no 413 answer, the connection broke instead: {exc!r}")
    assert response.status_code == 413, response.text[:500]
    assert "1 MiB" in response.json()["detail"]


async def test_bodies_under_the_limit_still_work_after_the_refusals(as_bob, bob) -> None:
    thread_id = (await as_bob.threads.create())["thread_id"]
    result = await as_bob.runs.wait(thread_id, "kag", input={"request": "What is 2 + 2?"})
    assert isinstance(result, dict) and result.get("response"), result
    assert MAX_BODY_BYTES == 1024 * 1024
