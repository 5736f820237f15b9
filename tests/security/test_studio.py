"""LangGraph Studio under ``langgraph dev``: ``x-auth-scheme: langsmith``, no token.

The dev server lets Studio in as ``langgraph-studio-user``, and answered any web
origin (``access-control-allow-origin: *``): a page open in the developer's browser
could run graphs and write the Studio learner's memory. Now a token is required
unless ``KAG_STUDIO_ANONYMOUS=true`` on a loopback bind (the suite's server does not
set it), Studio with a token is the token's learner, and cross-origin access is
limited to Studio's origin. If anonymous Studio can run the graphs, it must be one
more tenant: its own threads and memory, never alice's.
"""

from __future__ import annotations

import httpx
import pytest
from langgraph_sdk import get_client
from langgraph_sdk.errors import APIStatusError

from agent.server.guard import STUDIO_NEEDS_TOKEN
from tests.security.attack import (
    ASK_SECRET,
    PLANT,
    REFUSED,
    STUDIO_USER,
    dump,
    everything_seen,
    has_secret,
    http_status,
    human,
    no_secret,
    thread_dump,
)

pytestmark = [pytest.mark.integration, pytest.mark.server]

STUDIO_ORIGIN = "https://smith.langchain.com"


@pytest.fixture
async def http_client(server):
    """A plain HTTP client on the server (every status and header as it is)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=120) as client:
        yield client


async def test_studio_never_sees_alices_threads(studio, as_alice, alice_thread) -> None:
    assert alice_thread in [t["thread_id"] for t in await as_alice.threads.search(limit=1000)], "control"
    try:
        listed = await studio.threads.search(limit=1000)
    except APIStatusError as err:
        assert err.status_code in (401, 403)
    else:
        assert alice_thread not in [t["thread_id"] for t in listed]
        no_secret(dump(listed))
    for probe in (
        studio.threads.get(alice_thread),
        studio.threads.get_state(alice_thread),
        studio.threads.get_history(alice_thread),
        studio.threads.update_state(alice_thread, {"fifo_queue": [human(PLANT)]}, as_node="receive"),
        studio.runs.create(alice_thread, "kag", input={"request": ASK_SECRET}),
        studio.runs.list(alice_thread),
        studio.threads.delete(alice_thread),
    ):
        with pytest.raises(APIStatusError) as err:
            await probe
        assert err.value.status_code in (401, 403, 404), err.value
    assert has_secret(await thread_dump(as_alice, alice_thread)), "control: alice's thread is intact"


async def test_studio_runs_as_its_own_tenant_and_cannot_name_alice(studio, alice, alice_unchanged) -> None:
    try:
        thread_id = (await studio.threads.create())["thread_id"]
    except APIStatusError as err:  # Studio cannot even create a thread: then it cannot run either
        assert err.status_code in (401, 403)
        with pytest.raises(REFUSED) as refused:
            await studio.runs.wait(None, "kag", input={"request": ASK_SECRET})
        assert http_status(refused.value) in (401, 403)
        return

    seen = await everything_seen(studio, thread_id, "kag", input={"request": ASK_SECRET})
    assert seen.status is None and seen.errors == [], seen.text()[:3000]
    acts = [e for e in seen.of("custom") if e.get("phase") == "act"]
    assert acts and "archival_memory_search" in acts[0]["tools"], "control: Studio's search ran"
    no_secret(seen.text(), await thread_dump(studio, thread_id))
    assert (await studio.threads.get_state(thread_id))["values"]["learner_id"] == STUDIO_USER

    attacks = [
        {"input": {"learner_id": alice.learner_id, "request": ASK_SECRET}},
        {"command": {"update": {"learner_id": alice.learner_id}, "goto": "monitor"}},
        {"input": {"request": ASK_SECRET}, "context": {"learner_id": alice.learner_id}},
        {"input": {"request": ASK_SECRET}, "config": {"configurable": {"learner_id": alice.learner_id}}},
    ]
    for kwargs in attacks:
        refused = await everything_seen(studio, thread_id, "kag", **kwargs)
        assert refused.status == 403, (kwargs, refused.text()[:3000])
        no_secret(refused.text())
    zettel = await everything_seen(
        studio,
        None,
        "zettelkasten",
        input={"learner_id": alice.learner_id, "transcript": [{"role": "user", "content": "x"}]},
    )
    assert zettel.status == 403, zettel.text()[:3000]
    with pytest.raises(APIStatusError) as err:
        await studio.threads.update_state(thread_id, {"learner_id": alice.learner_id}, as_node="receive")
    assert err.value.status_code == 403
    no_secret(await thread_dump(studio, thread_id))
    await alice_unchanged()


async def test_studio_without_a_token_is_refused_by_default(http_client, server) -> None:
    for path in ("/threads/search", "/assistants/search", "/runs/wait", "/store/items/search"):
        response = await http_client.post(path, headers={"x-auth-scheme": "langsmith"}, json={})
        assert response.status_code == 401, (path, response.status_code, response.text[:300])
        assert response.json()["detail"] == STUDIO_NEEDS_TOKEN
    with pytest.raises(APIStatusError) as err:
        await get_client(url=server.url, headers={"x-auth-scheme": "langsmith"}).threads.search()
    assert err.value.status_code == 401


async def test_studio_with_a_token_is_the_tokens_learner(http_client, server, bob_thread) -> None:
    bob = server.learners["bob"]
    for credential in ({"Authorization": f"Bearer {bob.token}"}, {"X-Api-Key": bob.token}):
        headers = {"x-auth-scheme": "langsmith", **credential}
        me = await http_client.get("/dashboard/api/me", headers=headers)
        assert me.json() == {"learner_id": bob.learner_id}, me.text
        listed = await http_client.post("/threads/search", headers=headers, json={"limit": 1000})
        assert bob_thread in listed.text and STUDIO_USER not in listed.text


async def test_cross_origin_access_is_limited_to_studios_origin(http_client, server) -> None:
    bob = server.learners["bob"]
    preflight = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization"}
    for origin in ("https://evil.example", "http://localhost:3000", "null"):
        answer = await http_client.options("/threads/search", headers={"Origin": origin, **preflight})
        allowed = answer.headers.get("access-control-allow-origin")
        assert allowed not in ("*", origin), (origin, answer.headers)
        simple = await http_client.get("/ok", headers={"Origin": origin})
        assert simple.headers.get("access-control-allow-origin") not in ("*", origin), simple.headers
        page = await http_client.post(
            "/threads/search", headers={"Origin": origin, "x-auth-scheme": "langsmith"}, json={}
        )
        assert page.status_code == 401 and "access-control-allow-origin" not in page.headers
    answer = await http_client.options("/threads/search", headers={"Origin": STUDIO_ORIGIN, **preflight})
    assert answer.status_code == 200 and answer.headers["access-control-allow-origin"] == STUDIO_ORIGIN
    studio = await http_client.post(
        "/threads/search",
        headers={"Origin": STUDIO_ORIGIN, "Authorization": f"Bearer {bob.token}"},
        json={"limit": 1},
    )
    assert studio.status_code == 200 and studio.headers["access-control-allow-origin"] == STUDIO_ORIGIN
