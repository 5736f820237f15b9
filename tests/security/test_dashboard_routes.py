"""The dashboard's routes under attack: no token, a bad token, and bob after alice's data.

Alice owns a note, a core memory section and an ``ARTIFACT_READY`` event that all
carry her locker code. Every dashboard endpoint is tried anonymously (401), with a
bad token (401) and as bob, also with every way a request could try to name alice
(query, header, body, path): a request that names a learner is refused (403), any
other gets bob his own (empty) view or a 404, never a byte of hers. The page shell
is public and carries a strict Content-Security-Policy.
"""

from __future__ import annotations

import asyncio
import io
import time
import zipfile

import httpx
import pytest

from agent.memory.core import CoreMemoryStore
from agent.resources import Resources
from agent.server.dashboard.learner import IDENTITY_REFUSED
from agent.server.dashboard.routes import dashboard_routes
from tests.integration.dashboard.seed import seed_note
from tests.security.attack import SECRET_VALUE, has_secret

pytestmark = [pytest.mark.integration, pytest.mark.server]

ALICE_NOTE_TEXT = f"Alice's locker code is {SECRET_VALUE}; only she may read this note."


@pytest.fixture(scope="session")
async def alice_dashboard(server, resources: Resources) -> dict[str, str]:  # noqa: F811
    """Alice's note (published on her stream) and her core memory, both holding her secret."""
    alice = server.learners["alice"]
    note_id = await seed_note(resources, alice.learner_id, "locker code", ALICE_NOTE_TEXT)
    core = await CoreMemoryStore(resources.redis).read(alice.learner_id)
    if not has_secret(core.get("current_goals", "")):
        await CoreMemoryStore(resources.redis).append(
            alice.learner_id, "current_goals", f"Keep locker {SECRET_VALUE} private"
        )
    from agent.memory.facts import FactStore

    facts = FactStore(resources.neo4j, resources.embeddings, database=resources.database)
    await facts.remember(alice.learner_id, f"My bike lock code is {SECRET_VALUE}")
    return {"note_id": note_id}


@pytest.fixture
async def http(server):
    """A plain HTTP client on the server."""
    async with httpx.AsyncClient(
        base_url=server.url, timeout=300
    ) as client:  # the first search loads the embedder
        yield client


def bearer(learner) -> dict[str, str]:
    """The Authorization header of a learner."""
    return {"Authorization": f"Bearer {learner.token}"}


def endpoints(note_id: str) -> list[tuple[str, str, dict | None]]:
    """Every dashboard API endpoint, with a body for the POSTs."""
    return [
        ("GET", "/dashboard/api/me", None),
        ("GET", "/dashboard/api/notes", None),
        ("GET", "/dashboard/api/notes?q=locker+code", None),
        ("GET", f"/dashboard/api/notes/{note_id}", None),
        ("GET", "/dashboard/api/graph", None),
        ("GET", "/dashboard/api/memory", None),
        ("POST", "/dashboard/api/memory/current_goals", {"old": "", "new": "bob was here"}),
        ("GET", "/dashboard/api/pressure", None),
        ("GET", "/dashboard/api/activity", None),
        ("GET", "/dashboard/api/summaries", None),
        ("GET", "/dashboard/api/facts", None),
        ("GET", "/dashboard/api/reminders", None),
        ("GET", "/dashboard/api/export", None),
        ("POST", "/dashboard/api/erase", {"confirm": "DELETE"}),
        ("GET", "/dashboard/api/live", None),
    ]


def test_every_dashboard_route_is_listed_here() -> None:
    listed = {path.split("?")[0].replace("/note_x", "/{note_id}") for _, path, _ in endpoints("note_x")}
    listed = {p.replace("/current_goals", "/{section}") for p in listed}
    assert {route.path for route in dashboard_routes()} == listed


@pytest.mark.parametrize("caller", ["anonymous", "bad-token", "malformed"])
async def test_dashboard_api_refuses_requests_without_a_valid_token(
    http, server, alice_dashboard, resources: Resources, caller
) -> None:  # noqa: F811
    headers = {
        "anonymous": {},
        "bad-token": {"Authorization": "Bearer not-a-known-token"},
        "malformed": {"Authorization": server.learners["alice"].token},
    }[caller]
    before = await CoreMemoryStore(resources.redis).read(server.learners["alice"].learner_id)
    for method, path, body in endpoints(alice_dashboard["note_id"]):
        response = await http.request(method, path, headers=headers, json=body)
        assert response.status_code == 401, (caller, method, path, response.status_code, response.text[:300])
        assert not has_secret(response.text)
    assert await CoreMemoryStore(resources.redis).read(server.learners["alice"].learner_id) == before


async def test_alice_sees_her_own_data(http, server, alice_dashboard) -> None:
    """Control: the endpoints do return alice's data to alice."""
    auth = bearer(server.learners["alice"])
    note = await http.get(f"/dashboard/api/notes/{alice_dashboard['note_id']}", headers=auth)
    assert note.status_code == 200 and has_secret(note.text)
    listed = await http.get("/dashboard/api/notes", headers=auth)
    assert alice_dashboard["note_id"] in listed.text
    found = await http.get("/dashboard/api/notes", params={"q": "locker code"}, headers=auth)
    assert alice_dashboard["note_id"] in found.text
    assert has_secret((await http.get("/dashboard/api/memory", headers=auth)).text)
    assert alice_dashboard["note_id"] in (await http.get("/dashboard/api/graph", headers=auth)).text
    export = await http.get("/dashboard/api/export", headers=auth)
    with zipfile.ZipFile(io.BytesIO(export.content)) as files:
        assert any(has_secret(files.read(n).decode()) for n in files.namelist())
    assert has_secret((await http.get("/dashboard/api/facts", headers=auth)).text)
    events = await read_live(http, auth, "0-0")
    assert alice_dashboard["note_id"] in events


IMPERSONATION = [
    ({}, {}),
    ({"learner_id": "ALICE"}, {}),
    ({"learner": "ALICE", "user": "ALICE"}, {"X-Forwarded-User": "ALICE"}),
    ({}, {"X-Learner-Id": "ALICE"}),
    ({}, {"Learner-Id": "ALICE"}),
]
"""Query parameters and headers naming alice; ``learner_id`` and ``*Learner-Id`` are refused (403)."""


@pytest.mark.parametrize("params, extra_headers", IMPERSONATION)
async def test_bob_sees_none_of_alices_data_on_any_endpoint(
    http, server, alice_dashboard, params, extra_headers
) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    params = {k: alice.learner_id for k in params}
    headers = {**bearer(bob), **{k: alice.learner_id for k in extra_headers}}
    names_alice = "learner_id" in params or any(h.endswith("Learner-Id") for h in extra_headers)
    for method, path, _ in endpoints(alice_dashboard["note_id"]):
        if method == "POST" or path.endswith("/live"):
            continue
        response = await http.get(path, params=params or None, headers=headers)
        expected = 404 if path.endswith(alice_dashboard["note_id"]) else 200
        expected = 403 if names_alice else expected
        assert response.status_code == expected, (path, response.status_code, response.text[:300])
        body = response.text
        if path.endswith("/export") and response.status_code == 200:
            with zipfile.ZipFile(io.BytesIO(response.content)) as files:
                body = "\n".join(files.read(n).decode() for n in files.namelist())
        assert not has_secret(body), (path, body[:300])
        assert alice_dashboard["note_id"] not in body and alice.learner_id not in body, (path, body[:300])
    me = await http.get("/dashboard/api/me", params=params or None, headers=headers)
    assert me.json() == ({"detail": IDENTITY_REFUSED} if names_alice else {"learner_id": bob.learner_id})


async def read_live(
    http: httpx.AsyncClient, headers: dict[str, str], last_id: str, seconds: float = 4.0
) -> str:
    """What the live stream sends within ``seconds`` when resumed from ``last_id``."""
    chunks: list[str] = []
    deadline = time.monotonic() + seconds
    async with http.stream(
        "GET", "/dashboard/api/live", headers={**headers, "Last-Event-ID": last_id}
    ) as response:
        assert response.status_code == 200, response.status_code
        assert response.headers["content-type"].startswith("text/event-stream")
        try:
            async with asyncio.timeout(seconds):
                async for chunk in response.aiter_text():
                    chunks.append(chunk)
                    if time.monotonic() > deadline:
                        break
        except TimeoutError:
            pass
    return "".join(chunks)


async def test_bobs_live_stream_never_carries_alices_events(http, server, alice_dashboard) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    events = await read_live(http, bearer(bob), "0-0")
    assert "event: ready" in events
    assert alice_dashboard["note_id"] not in events and not has_secret(events)
    assert alice.learner_id not in events
    bad = await http.get("/dashboard/api/live", headers={**bearer(bob), "Last-Event-ID": "kag:artifacts:x"})
    assert bad.status_code == 422


async def test_bob_cannot_write_or_erase_alices_memory(
    http, server, alice_dashboard, resources: Resources
) -> None:  # noqa: F811
    alice, bob = server.learners["alice"], server.learners["bob"]
    before = await CoreMemoryStore(resources.redis).read(alice.learner_id)
    goals = before["current_goals"]
    edit = await http.post(
        "/dashboard/api/memory/current_goals",
        params={"learner_id": alice.learner_id},
        headers=bearer(bob),
        json={"old": goals, "new": "bob was here", "learner_id": alice.learner_id},
    )
    assert edit.status_code == 403 and "omit learner_id" in edit.json()["detail"], edit.text
    edit = await http.post(
        "/dashboard/api/memory/current_goals", headers=bearer(bob), json={"old": goals, "new": "bob was here"}
    )
    assert edit.status_code == 422 and "not found" in edit.json()["detail"], edit.text  # bob's own section
    refused = await http.post(
        "/dashboard/api/erase", headers=bearer(bob), json={"learner_id": alice.learner_id}
    )
    assert refused.status_code == 403 and "omit learner_id" in refused.json()["detail"]
    assert await CoreMemoryStore(resources.redis).read(alice.learner_id) == before
    note = await http.get(f"/dashboard/api/notes/{alice_dashboard['note_id']}", headers=bearer(alice))
    assert note.status_code == 200


async def test_bobs_pressure_chart_never_shows_alices_sessions(http, server, alice_thread) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    own = await http.get("/dashboard/api/pressure", headers=bearer(alice))
    assert alice_thread in own.text, "control: alice's session is charted for alice"
    other = await http.get("/dashboard/api/pressure", headers=bearer(bob))
    assert other.status_code == 200 and alice_thread not in other.text


async def test_dashboard_page_is_public_and_locked_down(http) -> None:
    page = await http.get("/dashboard")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    csp = page.headers["content-security-policy"]
    script_src = next(p for p in csp.split(";") if p.strip().startswith("script-src"))
    assert script_src.strip() == "script-src 'self'", csp
    assert "default-src 'none'" in csp and "frame-ancestors 'none'" in csp
    assert "<script>" not in page.text, "no inline script"
    assert page.headers["x-content-type-options"] == "nosniff"
    script = await http.get("/dashboard/static/app.js")
    assert script.status_code == 200 and ".innerHTML" not in script.text
    for name in ("mermaid.min.js", "cytoscape.min.js", "chart.umd.min.js", "purify.min.js"):
        vendor = await http.head(f"/dashboard/vendor/{name}")
        assert vendor.status_code == 200, (name, vendor.status_code)
    for path in (
        "/dashboard/static/../../auth.py",
        "/dashboard/static/%2e%2e/app.py",
        "/dashboard/vendor/x.js",
    ):
        assert (await http.get(path)).status_code in {401, 404}, path
    assert (await http.post("/dashboard", json={})).status_code in {401, 404, 405}
