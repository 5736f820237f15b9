"""Fixtures of the attack suite: the session's real ``langgraph dev`` and production server.

Learners: ``alice`` (the victim, who stores her locker code, a distinctive word),
``bob`` (the attacker, with his own locker code so a search that runs is visible) and a
Studio client (``x-auth-scheme: langsmith``, no token). Everything they write in
Neo4j and Redis is removed afterwards.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from langgraph_sdk import get_client
from langgraph_sdk.client import LangGraphClient

from agent.memory.stores import MemoryStores
from agent.resources import Resources
from tests.integration.langgraph_server import DevServer, Learner
from tests.security.attack import (
    ASK_SECRET,
    BOB_SECRET,
    BOB_VALUE,
    SECRET,
    footprint,
    has_secret,
)
from tests.service_fixtures import ServerView


@pytest.fixture(scope="session", autouse=True)
def security_services(services_up: None, sweep_learners: None) -> None:
    """Every attack needs the services, and its learners are erased after the session."""


@pytest.fixture(scope="session", params=["dev", "prod"])
def server(request: pytest.FixtureRequest) -> ServerView:
    """Every attack runs against both servers, with alice and bob.

    ``dev`` is the session's shared ``langgraph dev`` (``kag_server``), ``prod`` the
    production mode (``prod_kag_server``). Each removes its checkpoints, the learners' data
    and Studio's new nodes and keys afterwards.
    """
    fixture = "kag_server" if request.param == "dev" else "prod_kag_server"
    return ServerView(request.getfixturevalue(fixture), "security")


@pytest.fixture(autouse=True)
def server_log_on_failure(request: pytest.FixtureRequest, server: DevServer, capsys: pytest.CaptureFixture):
    """Print the server log when a test of this suite fails."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        with capsys.disabled():
            print(f"\n----- langgraph dev log ({server.log_path}) -----\n{server.log_tail()}")


@pytest.fixture(scope="session")
def alice(server: DevServer) -> Learner:
    """The victim."""
    return server.learners["alice"]


@pytest.fixture(scope="session")
def bob(server: DevServer) -> Learner:
    """The attacker."""
    return server.learners["bob"]


@pytest.fixture(scope="session")
def as_alice(server: DevServer, alice: Learner) -> LangGraphClient:
    """SDK client authenticated as alice."""
    return alice.client(server.url)


@pytest.fixture(scope="session")
def as_bob(server: DevServer, bob: Learner) -> LangGraphClient:
    """SDK client authenticated as bob."""
    return bob.client(server.url)


@pytest.fixture(scope="session")
def studio(server: DevServer) -> LangGraphClient:
    """A LangGraph Studio client under ``langgraph dev``: no token, the langsmith scheme."""
    return get_client(url=server.url, headers={"x-auth-scheme": "langsmith"})


@pytest.fixture(scope="session")
async def alice_thread(as_alice: LangGraphClient, resources: Resources, alice: Learner) -> str:
    """Alice's thread: she stored her locker code and (control) finds it again."""
    thread_id = (await as_alice.threads.create())["thread_id"]
    stored = await as_alice.runs.wait(thread_id, "kag", input={"request": SECRET})
    assert stored.get("response"), stored  # the reply's wording is the policy's; the read-back is the control
    own = await as_alice.runs.wait(thread_id, "kag", input={"request": ASK_SECRET})
    assert has_secret(own["response"]), "control: the owner reads her secret back"
    state = await as_alice.threads.get_state(thread_id)
    assert has_secret(str(state["values"])), "control: her thread state holds the secret"
    # The server's kernel worker writes her messages after the runs: settle before any snapshot.
    await MemoryStores.wire(resources).settle(alice.learner_id)
    return thread_id


@pytest.fixture(scope="session")
async def bob_thread(as_bob: LangGraphClient, alice_thread: str) -> str:
    """Bob's own thread, with his own locker code (so a search that runs shows it)."""
    thread_id = (await as_bob.threads.create())["thread_id"]
    await as_bob.runs.wait(thread_id, "kag", input={"request": BOB_SECRET})
    own = await as_bob.runs.wait(thread_id, "kag", input={"request": ASK_SECRET})
    assert BOB_VALUE in own["response"] and not has_secret(own["response"]), own["response"]
    return thread_id


@pytest.fixture
async def alice_unchanged(
    resources: Resources,
    alice: Learner,
    alice_thread: str,
) -> Callable[[], Awaitable[None]]:
    """Snapshot alice's Neo4j/Redis footprint now; the returned check asserts it is unchanged."""
    before = await footprint(resources, alice.learner_id)
    assert before["nodes"] and has_secret(str(before)), "control: alice's memory holds her secret"

    async def check() -> None:
        after = await footprint(resources, alice.learner_id)
        added = {k: v for k, v in after["nodes"].items() if k not in before["nodes"]}
        assert added == {}, f"nodes written for alice by the attack: {added}"
        assert after == before, "alice's memory changed during the attack"

    return check
