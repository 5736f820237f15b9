"""The kernel's HTTP face end to end: ``/kernel/*`` on a real ``langgraph dev``, real Neo4j and Redis.

Two learners with bearer tokens. Bob's memory holds his locker code, Alice's hers:
distinctive words that cannot occur in an id, a hash or a timestamp, looked for in the
responses' text fields (``text_fields``), so no random hex id can fail or pass a check.
Through every kernel route Alice's token reaches Alice's data only: her consultation
brief never carries Bob's code, her stats count her nodes, her reflection leaves Bob's
nodes exactly as they were. A ``learner_id`` in the body or the query is refused (403),
no token is a 401. The server runs the kernel worker (``KAG_KERNEL_IN_SERVER`` default)
and its reflection cron is pushed to midnight (``KAG_REFLECTION_INTERVAL_SECONDS=86400``)
so it cannot touch Bob mid-test
(``test_kernel_routes_cron.py`` proves the cron itself).
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest
from langgraph_sdk.errors import APIStatusError

from agent.memory.facts import FactStore
from agent.resources import Resources
from agent.server.kernel_service import kernel_stores
from agent.server.kernel_status import memory_counts
from tests.integration.langgraph_server import DevServer, Learner, serving
from tests.security.attack import BOB_VALUE, SECRET_VALUE, dump, footprint, text_fields

pytestmark = [pytest.mark.integration, pytest.mark.server]

ALICE_CODE, BOB_CODE = SECRET_VALUE, BOB_VALUE
ALICE_FACTS = [f"My locker code is {ALICE_CODE}.", "I'm confused by recursion in Python."]
BOB_FACTS = [f"My locker code is {BOB_CODE}.", "I'm struggling with SQL joins.", "I get joins wrong."]
ROUTES = [
    ("POST", "/kernel/consult"),
    ("GET", "/kernel/stats"),
    ("POST", "/kernel/reflect"),
    ("GET", "/kernel/health"),
]


@pytest.fixture(scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory, resources: Resources) -> AsyncIterator[DevServer]:
    """The module's server, with Alice's and Bob's facts seeded; everything removed afterwards."""
    run = uuid.uuid4().hex[:10]
    dev = DevServer(
        tmp_path_factory.mktemp("langgraph-kernel"),
        prefix=f"kag-kern-{run}",
        extra_env={"KAG_REFLECTION_INTERVAL_SECONDS": "86400", "KAG_KERNEL_IN_SERVER": "true"},
    )
    dev.learners = {
        "alice": Learner(f"kern-alice-{run}", f"token-alice-{run}"),
        "bob": Learner(f"kern-bob-{run}", f"token-bob-{run}"),
    }
    facts = FactStore(resources.neo4j, resources.embeddings, database=resources.database)
    for name, texts in (("alice", ALICE_FACTS), ("bob", BOB_FACTS)):
        for text in texts:
            await facts.remember(dev.learners[name].learner_id, text)
    async with serving(dev, resources):
        yield dev


@pytest.fixture(autouse=True)
def server_log_on_failure(request: pytest.FixtureRequest, server: DevServer, capsys: pytest.CaptureFixture):
    """Print the server log when a test of this module fails."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        with capsys.disabled():
            print(f"\n----- langgraph dev log ({server.log_path}) -----\n{server.log_tail()}")


@pytest.fixture
async def http(server: DevServer) -> AsyncIterator[httpx.AsyncClient]:
    """A plain HTTP client (the first consultation loads the embedder: generous timeout)."""
    async with httpx.AsyncClient(base_url=server.url, timeout=300) as client:
        yield client


def bearer(learner: Learner) -> dict[str, str]:
    """The learner's Authorization header."""
    return {"Authorization": f"Bearer {learner.token}"}


async def test_consult_brief_comes_from_the_callers_memory_only(server: DevServer) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    as_alice, as_bob = alice.client(server.url), bob.client(server.url)
    query = {"query": "What is my locker code?", "max_results": 10}

    bobs = await as_bob.http.post("/kernel/consult", json=query)
    assert BOB_CODE in text_fields(bobs), "control: Bob's own consultation finds his code"
    alices = await as_alice.http.post("/kernel/consult", json=query)

    assert set(alices) >= {"request_id", "synthesized_brief", "relevant_facts", "insights", "confidence"}
    assert ALICE_CODE in text_fields(alices), "control: Alice's own consultation finds her code"
    assert BOB_CODE not in text_fields(alices) and bob.learner_id not in dump(alices)
    assert ALICE_CODE not in text_fields(bobs) and alice.learner_id not in dump(bobs)
    again = await as_alice.http.post("/kernel/consult", json=query)
    assert again["cached"] is True and BOB_CODE not in text_fields(again), "the cache is per learner too"


async def test_stats_count_the_callers_nodes_and_only_numbers_across_learners(
    server: DevServer, resources: Resources
) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    stats = await alice.client(server.url).http.get("/kernel/stats")

    assert stats["learner_id"] == alice.learner_id
    assert stats["memory"] == await memory_counts(kernel_stores(resources), alice.learner_id)
    assert stats["memory"]["fact"] == len(ALICE_FACTS)
    assert bob.learner_id not in dump(stats)
    backlog = stats["backlog"]
    assert {"total", "learners_waiting", "learner"} <= set(backlog)
    assert all(isinstance(v, int) or v is None for v in backlog.values()), "across learners: counts only"
    worker = stats["worker"]
    assert worker["in_server"] is True and worker["alive"] is True
    assert {"applied", "batches", "throughput_per_s", "last_lag_seconds"} <= set(worker)
    bobs = await bob.client(server.url).http.get("/kernel/stats")
    assert bobs["memory"]["fact"] == len(BOB_FACTS) and alice.learner_id not in dump(bobs)


async def test_reflect_runs_for_the_caller_and_leaves_the_other_learner_untouched(
    server: DevServer, resources: Resources
) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    bob_before = await footprint(resources, bob.learner_id)
    assert BOB_CODE in text_fields(bob_before), "control: Bob's memory holds his code"

    done = await alice.client(server.url).http.post("/kernel/reflect", json={"limit": 20})

    assert done["learner_id"] == alice.learner_id and done["report"]["learner_id"] == alice.learner_id
    assert done["report"]["changed"] is True, "Alice's unscanned facts were reflected"
    assert bob.learner_id not in dump(done) and BOB_CODE not in text_fields(done)
    assert await footprint(resources, bob.learner_id) == bob_before, "Alice's reflection changed Bob's memory"
    again = await alice.client(server.url).http.post("/kernel/reflect", json={})
    assert again["report"]["changed"] is False, "a run with nothing new changes nothing"

    bobs = await bob.client(server.url).http.post("/kernel/reflect", json={})
    assert bobs["report"]["learner_id"] == bob.learner_id and bobs["report"]["changed"] is True


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/kernel/consult", {"query": "locker code", "learner_id": "BOB"}),
        ("POST", "/kernel/consult", {"query": "locker code", "learner_id": "ALICE"}),
        ("POST", "/kernel/consult", {"query": "locker", "topic_filters": [], "extra": {"learner_id": "BOB"}}),
        ("POST", "/kernel/reflect", {"learner_id": "BOB"}),
        ("POST", "/kernel/consult?learner_id=BOB", {"query": "locker code"}),
        ("GET", "/kernel/stats?learner_id=BOB", None),
        ("GET", "/kernel/health?learner_id=BOB", None),
        ("POST", "/kernel/reflect?learner_id=ALICE", {}),
    ],
)
async def test_a_learner_id_in_the_body_or_query_is_refused(
    server: DevServer, http: httpx.AsyncClient, method: str, path: str, body: dict | None
) -> None:
    alice, bob = server.learners["alice"], server.learners["bob"]
    names = {"BOB": bob.learner_id, "ALICE": alice.learner_id}
    path = path.replace("=BOB", f"={bob.learner_id}").replace("=ALICE", f"={alice.learner_id}")
    if body is not None:
        body = {k: names.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    response = await http.request(method, path, json=body, headers=bearer(alice))
    assert response.status_code == 403, response.text
    assert "omit learner_id" in response.json()["detail"]
    assert BOB_CODE not in text_fields(response.json())


BAD_HEADERS = [{}, {"Authorization": "Bearer not-a-token"}, {"Authorization": "Basic abc"}]


@pytest.mark.parametrize(("method", "path"), ROUTES)
@pytest.mark.parametrize("headers", BAD_HEADERS)
async def test_no_or_a_bad_token_is_401(
    http: httpx.AsyncClient, method: str, path: str, headers: dict[str, str]
) -> None:
    body = {"query": "locker code"} if method == "POST" else None
    response = await http.request(method, path, json=body, headers=headers)
    assert response.status_code == 401, response.text
    assert ALICE_CODE not in response.text and BOB_CODE not in response.text


async def test_sdk_raises_for_refusals(server: DevServer) -> None:
    client = server.learners["alice"].client(server.url)
    with pytest.raises(APIStatusError) as err:
        await client.http.post("/kernel/consult", json={"query": "x", "max_results": 0})
    assert err.value.status_code == 422


async def test_health_reports_redis_neo4j_and_the_worker(server: DevServer) -> None:
    health = await server.learners["bob"].client(server.url).http.get("/kernel/health")
    assert health["redis"]["ok"] and health["neo4j"]["ok"]
    assert health["worker"]["in_server"] is True and health["worker"]["alive"] is True
    assert health["status"] == "ok" and health["degraded"] is False and health["reasons"] == []
    assert isinstance(health["backlog"]["total"], int)
