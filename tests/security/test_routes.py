"""The server's own routes: internal and deploy closed, metrics behind a token, meta routes public.

``/internal/debug/thread/{id}`` dumps a thread's raw record and ``/internal/truncate``
wipes every tenant's threads; ``/deploy`` runs the deploy CLI. They must be 404 for
everybody; alice's thread must survive every attempt.
"""

from __future__ import annotations

import httpx
import pytest

from tests.security.attack import dump, has_secret

pytestmark = [pytest.mark.integration, pytest.mark.server]

CALLERS = ["anonymous", "bad-token", "bob", "alice", "studio"]


def headers_of(caller: str, server) -> dict[str, str]:
    """Request headers of each kind of caller."""
    return {
        "anonymous": {},
        "bad-token": {"Authorization": "Bearer not-a-known-token"},
        "bob": {"Authorization": f"Bearer {server.learners['bob'].token}"},
        "alice": {"Authorization": f"Bearer {server.learners['alice'].token}"},
        "studio": {"x-auth-scheme": "langsmith"},
    }[caller]


@pytest.fixture
async def http(server):
    """A plain HTTP client on the server (no SDK: we want every status as it is)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as client:
        yield client


async def alice_reads_her_thread(http: httpx.AsyncClient, server, alice_thread: str) -> None:
    """Control: alice's thread and its state are still there."""
    auth = headers_of("alice", server)
    assert (await http.get(f"/threads/{alice_thread}", headers=auth)).status_code == 200
    state = await http.get(f"/threads/{alice_thread}/state", headers=auth)
    assert state.status_code == 200 and has_secret(state.text)


@pytest.mark.parametrize("caller", CALLERS)
async def test_internal_and_deploy_routes_are_404_for_everybody(http, server, alice_thread, caller) -> None:
    await alice_reads_her_thread(http, server, alice_thread)
    headers = headers_of(caller, server)
    routes = [
        ("GET", f"/internal/debug/thread/{alice_thread}"),
        ("POST", "/internal/truncate"),
        ("GET", "/deploy"),
        ("POST", "/deploy"),
        ("GET", "/deploy/some-operation/stream"),
    ]
    spellings = [  # the same paths as a prefix check could miss them: no route, or a refusal
        ("GET", f"/internal/debug/thread/{alice_thread}/"),
        ("POST", "/internal/truncate/"),
        ("POST", "/internal//truncate"),
        ("POST", "/%69nternal/truncate"),
        ("POST", "/deploy/"),
        ("POST", "//internal/truncate"),
        ("GET", f"//internal/debug/thread/{alice_thread}"),
        ("POST", "/./internal/truncate"),
    ]
    body = {"checkpoints": True, "runs": True, "threads": True, "store": True}
    for method, path in routes + spellings:
        response = await http.request(method, path, headers=headers, json=body)
        expected = {404} if (method, path) in routes else {401, 404}
        assert response.status_code in expected, (
            caller,
            method,
            path,
            response.status_code,
            response.text[:500],
        )
        assert not has_secret(response.text)
    await alice_reads_her_thread(http, server, alice_thread)


async def test_metrics_need_a_valid_token(http, server) -> None:
    for caller in ("anonymous", "bad-token", "studio"):
        response = await http.get("/metrics", headers=headers_of(caller, server))
        assert response.status_code == 401, (caller, response.status_code, response.text[:300])
        response = await http.get("/metrics/", headers=headers_of(caller, server))
        assert response.status_code in (401, 404), (caller, response.status_code)
    for caller in ("alice", "bob"):
        response = await http.get("/metrics", headers=headers_of(caller, server))
        assert response.status_code == 200, (caller, response.status_code, response.text[:300])


@pytest.mark.parametrize("path", ["/ok", "/info", "/openapi.json", "/docs"])
async def test_meta_routes_are_public_and_carry_no_tenant_data(
    http, server, alice_thread, bob_thread, path
) -> None:
    response = await http.get(path)
    assert response.status_code == 200, (path, response.status_code)
    body = response.text
    for private in (
        alice_thread,
        bob_thread,
        server.learners["alice"].learner_id,
        server.learners["bob"].learner_id,
        server.learners["alice"].token,
        server.learners["bob"].token,
    ):
        assert private not in body, (path, private)
    assert not has_secret(body), path
    assert dump(response.headers).find(server.learners["alice"].learner_id) < 0
