"""The kernel routes (``/kernel/*``) under attack: bob after alice's memory, and hostile bodies.

Alice's facts hold her code, Bob's his (distinctive words). Bob (or nobody) tries every
kernel route with the ways a request could name alice (query, body, nested body, headers,
path), with oversized, chunked, malformed, deeply nested and non-UTF-8 bodies, with
wrong types, and with injection strings (Cypher, Lucene, template placeholders, NUL).
Every attempt gets a clear 4xx or Bob's own view, never a byte of Alice's; the
server keeps serving and Alice's control consultation still finds her code.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest

from agent.memory.facts import FactStore
from agent.resources import Resources
from agent.server.kernel_routes import MAX_KERNEL_BODY, kernel_routes
from tests.security.attack import BOB_VALUE, SECRET_VALUE, has_secret

pytestmark = [pytest.mark.integration, pytest.mark.server]

KERNEL_ROUTES = {("POST", "/kernel/consult"), ("GET", "/kernel/stats"), ("POST", "/kernel/reflect")}
KERNEL_ROUTES |= {("GET", "/kernel/health")}
INJECTIONS = [
    "locker code' }) MATCH (n) WHERE n.learner_id <> '' RETURN n.text //",
    'locker code" OR 1=1 --',
    "learner_id:* OR locker~ AND code* OR text:[* TO *]",
    "$learner_id {learner_id} {{learner_id}} %(learner_id)s ${learner_id}",
    "locker code) CALL db.index.fulltext.queryNodes('kag_memory_fulltext', '*') YIELD node RETURN node //",
    "<script>alert(1)</script> locker code",
    "\x00locker code",
]


@pytest.fixture(scope="session")
async def kernel_seeded(server, resources: Resources) -> dict[str, str]:  # noqa: F811
    """Alice's and Bob's codes in their facts (the suite's server fixture erases both afterwards)."""
    alice, bob = server.learners["alice"], server.learners["bob"]
    facts = FactStore(resources.neo4j, resources.embeddings, database=resources.database)
    await facts.remember(alice.learner_id, f"My bike lock code is {SECRET_VALUE}")
    await facts.remember(bob.learner_id, f"My bike lock code is {BOB_VALUE}")
    return {"alice": alice.learner_id, "bob": bob.learner_id}


@pytest.fixture
async def http(server) -> AsyncIterator[httpx.AsyncClient]:
    """A plain HTTP client on the suite's server (the first consultation loads the embedder)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=300) as client:
        yield client


def bearer(learner) -> dict[str, str]:
    """The Authorization header of a learner."""
    return {"Authorization": f"Bearer {learner.token}"}


def assert_clean(response: httpx.Response, alice_id: str) -> None:
    """Nothing of alice's in a response to bob."""
    assert not has_secret(response.text), response.text[:300]
    assert alice_id not in response.text, response.text[:300]


def test_every_kernel_route_is_attacked_here() -> None:
    routes = {(method, route.path) for route in kernel_routes() for method in route.methods - {"HEAD"}}
    assert routes == KERNEL_ROUTES


async def test_alice_consults_her_own_code(http, server, kernel_seeded) -> None:
    """Control: the consultation does find alice's code for alice, and bob's for bob."""
    query = {"query": "What is my bike lock code?"}
    own = await http.post("/kernel/consult", json=query, headers=bearer(server.learners["alice"]))
    assert own.status_code == 200 and has_secret(own.text), own.text[:300]
    bobs = await http.post("/kernel/consult", json=query, headers=bearer(server.learners["bob"]))
    assert bobs.status_code == 200 and BOB_VALUE in bobs.text and not has_secret(bobs.text)


@pytest.mark.parametrize("query", INJECTIONS)
async def test_injection_strings_reach_only_bobs_memory(http, server, kernel_seeded, query) -> None:
    bob = server.learners["bob"]
    body = {"query": query, "context": query, "topic_filters": [query[:200]], "max_results": 50}
    response = await http.post("/kernel/consult", json=body, headers=bearer(bob))
    assert response.status_code in (200, 422), response.text[:300]
    assert_clean(response, kernel_seeded["alice"])
    plain = await http.post("/kernel/consult", json={"query": query}, headers=bearer(bob))
    assert plain.status_code in (200, 422) and not has_secret(plain.text)


@pytest.mark.parametrize(
    ("method", "path", "params", "body", "headers", "status"),
    [
        ("GET", "/kernel/stats", {}, None, {"X-Forwarded-User": "ALICE"}, 200),
        ("GET", "/kernel/stats", {"learner": "ALICE", "user": "ALICE"}, None, {}, 200),
        ("POST", "/kernel/consult", {"learner": "ALICE"}, {"query": "bike lock"}, {"X-User": "ALICE"}, 200),
        ("GET", "/kernel/stats", {}, None, {"X-Learner-Id": "ALICE"}, 403),
        ("POST", "/kernel/reflect", {"user": "ALICE"}, {}, {"X-Learner-Id": "ALICE"}, 403),
        ("POST", "/kernel/consult", {}, {"query": "bike lock code"}, {"Learner-Id": "ALICE"}, 403),
    ],
)
async def test_other_ways_of_naming_alice_get_bobs_own_view_or_a_403(
    http, server, kernel_seeded, method, path, params, body, headers, status
) -> None:
    """A header that names a learner is refused like ``learner_id``; other names are ignored."""
    alice_id = kernel_seeded["alice"]
    params = {k: alice_id for k in params}
    headers = {**bearer(server.learners["bob"]), **{k: alice_id for k in headers}}
    response = await http.request(method, path, params=params, json=body, headers=headers)
    assert response.status_code == status, response.text[:300]
    assert_clean(response, alice_id)
    if status == 200 and path != "/kernel/consult":
        assert kernel_seeded["bob"] in response.text, "bob gets his own view"


async def test_paths_below_the_routes_do_not_exist(http, server, kernel_seeded) -> None:
    bob = bearer(server.learners["bob"])
    for path in (f"/kernel/stats/{kernel_seeded['alice']}", f"/kernel/consult/{kernel_seeded['alice']}"):
        response = await http.get(path, headers=bob)
        assert response.status_code in (404, 405) and not has_secret(response.text)
    wrong_method = await http.get("/kernel/consult", headers=bob)  # the server's own routes answer 404
    assert wrong_method.status_code in (404, 405) and not has_secret(wrong_method.text)


@pytest.mark.parametrize("path", ["/kernel/consult", "/kernel/reflect"])
@pytest.mark.parametrize(
    ("body", "status"),
    [
        (b"{not json", 422),
        (b"[1, 2, 3]", 422),
        (b'"a string"', 422),
        (b"\xff\xfe\x00garbage", 422),
        (b"[" * 30_000 + b"]" * 30_000, 422),  # nested past the parser's recursion limit, under 64 KB
        (b'{"query": "' + b"x" * (MAX_KERNEL_BODY + 10) + b'"}', 413),
        (b'{"query": "' + b"x" * (2 * 1024 * 1024) + b'"}', 413),  # past the server's own 1 MiB limit
    ],
)
async def test_hostile_bodies_get_a_clear_4xx(http, server, kernel_seeded, path, body, status) -> None:
    headers = {**bearer(server.learners["bob"]), "Content-Type": "application/json"}
    response = await http.post(path, content=body, headers=headers)
    assert response.status_code == status, response.text[:300]
    assert "detail" in response.json()
    assert_clean(response, kernel_seeded["alice"])


async def test_a_chunked_body_is_cut_off_at_the_limit(http, server, kernel_seeded) -> None:
    async def chunks():
        yield b'{"query": "'
        for _ in range(20):
            yield b"x" * 8192
        yield b'"}'

    headers = {**bearer(server.learners["bob"]), "Content-Type": "application/json"}
    response = await http.post("/kernel/consult", content=chunks(), headers=headers)
    assert response.status_code == 413, response.text[:300]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/kernel/consult", {"query": "code", "max_results": "10"}),
        ("/kernel/consult", {"query": "code", "max_results": 10_000}),
        ("/kernel/consult", {"query": "code", "include_insights": "yes"}),
        ("/kernel/consult", {"query": "code", "topic_filters": "sql"}),
        ("/kernel/consult", {"query": "code", "topic_filters": ["t"] * 11}),
        ("/kernel/consult", {"query": ""}),
        ("/kernel/consult", {"query": "x" * 5000}),
        ("/kernel/consult", {"query": "code", "owner": "someone"}),
        ("/kernel/consult", {}),
        ("/kernel/reflect", {"limit": "50"}),
        ("/kernel/reflect", {"limit": 1000}),
        ("/kernel/reflect", {"limit": 5}),
        ("/kernel/reflect", {"limit": True}),
        ("/kernel/reflect", {"learners": ["everyone"]}),
    ],
)
async def test_wrong_fields_and_types_are_422(http, server, kernel_seeded, path, body) -> None:
    response = await http.post(path, json=body, headers=bearer(server.learners["bob"]))
    assert response.status_code == 422, response.text[:300]
    assert_clean(response, kernel_seeded["alice"])


async def test_the_server_keeps_serving_after_the_attacks(http, server, kernel_seeded) -> None:
    bob = bearer(server.learners["bob"])
    hostile = [http.post("/kernel/consult", content=b"{" * 1000, headers=bob) for _ in range(10)]
    hostile += [http.post("/kernel/reflect", json={"limit": 9}, headers=bob) for _ in range(10)]
    statuses = {r.status_code for r in await asyncio.gather(*hostile)}
    assert statuses <= {422}, statuses
    health = await http.get("/kernel/health", headers=bob)
    assert health.status_code == 200 and health.json()["redis"]["ok"] and health.json()["neo4j"]["ok"]
    own = await http.post(
        "/kernel/consult",
        json={"query": "What is my bike lock code?"},
        headers=bearer(server.learners["alice"]),
    )
    assert own.status_code == 200 and has_secret(own.text)
    assert json.loads(own.text)["request_id"]
