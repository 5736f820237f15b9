"""``X-Api-Key: <token>`` works wherever ``Authorization: Bearer <token>`` does, with the same refusals.

Agent Chat UI (and LangGraph's own servers) send the token as ``X-Api-Key``. Every
route that reads a token accepts it: the LangGraph API (threads, runs), the guard's
``/metrics``, the dashboard and the kernel routes. A bad key is a 401 like a bad
bearer token; two different tokens in the two headers are a 401 (which learner is
meant is ambiguous), even when each token alone is valid.
"""

from __future__ import annotations

import httpx
import pytest
from langgraph_sdk import get_client

from agent.server.credentials import CONFLICT
from tests.security.attack import dump

pytestmark = [pytest.mark.integration, pytest.mark.server]

ROUTES = [
    ("POST", "/threads/search", {}),
    ("GET", "/metrics", None),
    ("GET", "/dashboard/api/me", None),
    ("GET", "/kernel/health", None),
    ("GET", "/kernel/stats", None),
]
"""One route of each kind that reads a token: the API, the guard, the dashboard, the kernel."""


@pytest.fixture
async def http(server):
    """A plain HTTP client on the server (every status as it is)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=300) as client:
        yield client


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_an_api_key_is_accepted_where_a_bearer_token_is(http, server, method, path, body) -> None:
    alice = server.learners["alice"]
    bearer = await http.request(method, path, headers={"Authorization": f"Bearer {alice.token}"}, json=body)
    assert bearer.status_code == 200, ("control: the bearer token works", path, bearer.text[:300])
    keyed = await http.request(method, path, headers={"X-Api-Key": alice.token}, json=body)
    assert keyed.status_code == 200, (path, keyed.status_code, keyed.text[:300])
    if path == "/dashboard/api/me":
        assert keyed.json() == {"learner_id": alice.learner_id}
    both = await http.request(
        method, path, headers={"Authorization": f"Bearer {alice.token}", "X-Api-Key": alice.token}, json=body
    )
    assert both.status_code == 200, ("the same token twice is one credential", path, both.text[:300])


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
async def test_bad_or_contradictory_api_keys_are_refused(http, server, method, path, body) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    refused = [
        {"X-Api-Key": "not-a-known-token"},
        {"X-Api-Key": ""},
        {"X-Api-Key": f"Bearer {alice.token}"},
        {"Authorization": f"Bearer {alice.token}", "X-Api-Key": bob.token},
        {"Authorization": f"Bearer {bob.token}", "X-Api-Key": alice.token},
        {"Authorization": alice.token, "X-Api-Key": alice.token},  # a malformed header is never skipped
        {"Authorization": "Bearer not-a-known-token", "X-Api-Key": alice.token},
    ]
    for headers in refused:
        response = await http.request(method, path, headers=headers, json=body)
        assert response.status_code == 401, (path, headers, response.status_code, response.text[:300])
        assert alice.learner_id not in response.text and bob.learner_id not in response.text
    conflict = await http.request(
        "POST",
        "/threads/search",
        headers={"Authorization": f"Bearer {alice.token}", "X-Api-Key": bob.token},
        json={},
    )
    assert conflict.json()["detail"] == CONFLICT


async def test_an_api_key_client_runs_as_its_learner_and_the_key_is_not_stored(server, alice_thread) -> None:
    bob = server.learners["bob"]
    as_bob = get_client(url=server.url, api_key=bob.token)  # the SDK sends X-Api-Key
    assert alice_thread not in [t["thread_id"] for t in await as_bob.threads.search(limit=1000)]
    thread_id = (await as_bob.threads.create())["thread_id"]
    run = await as_bob.runs.create(thread_id, "kag", input={"request": "Hello, what can you do?"})
    await as_bob.runs.join(thread_id, run["run_id"])
    state = await as_bob.threads.get_state(thread_id)
    assert state["values"]["learner_id"] == bob.learner_id
    records = [await as_bob.runs.get(thread_id, run["run_id"]), await as_bob.threads.get(thread_id), state]
    stored = dump(records)
    assert bob.token not in stored, "the API key must not be copied into the run's config or the thread"
