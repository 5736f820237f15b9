"""Erasure reaches the production server's own records in PostgreSQL.

The production server (``agent.server.production`` on ``langgraph-runtime-pg``) keeps each
thread, each run (with its input: the learner's words) and each Store item in PostgreSQL,
not in the Redis checkpoints that ``erase_learner`` scans. A learner plants a word through
a run, a background run and the dashboard's core-memory edit, then uses the dashboard's
"Delete my data": a scan of every row of every table of the server's database (cast to
text) finds neither the word nor the learner's id, while the other learner's word is
still there.
"""

from __future__ import annotations

import httpx
import pytest

from tests.integration.langgraph_server import DevServer, Learner
from tests.integration.prod_server import postgres_hits
from tests.service_fixtures import ServerView

pytestmark = [pytest.mark.integration, pytest.mark.server]

MARKERS = {"a": "wombatcarousel", "b": "narwhalbiscuit"}
"""Words that cannot occur in ids, hashes or timestamps."""


@pytest.fixture(scope="module")
def server(prod_kag_server: DevServer) -> ServerView:
    """The session's production server (``tests.service_fixtures.prod_kag_server``) with a and b."""
    return ServerView(prod_kag_server, "e2e")


def http(server: DevServer, learner: Learner) -> httpx.AsyncClient:
    """The server's custom routes as ``learner``."""
    headers = {"Authorization": f"Bearer {learner.token}"}
    return httpx.AsyncClient(base_url=server.url, headers=headers, timeout=300)


async def plant(server: DevServer, learner: Learner, word: str) -> None:
    """``word`` in a run's input, a background run's input and a Store item, as ``learner``."""
    client = learner.client(server.url)
    thread = (await client.threads.create())["thread_id"]
    request = f"Please remember that my cat is called {word}."
    await client.runs.wait(thread, "kag", input={"request": request}, raise_error=True)
    other = (await client.threads.create())["thread_id"]
    run = await client.runs.create(other, "kag", input={"request": f"I like {word} puzzles."})
    await client.runs.join(other, run["run_id"])
    async with http(server, learner) as api:
        edited = await api.post("/dashboard/api/memory/user_profile", json={"old": "", "new": f"Pet: {word}"})
        assert edited.status_code == 200, edited.text


async def test_dashboard_erasure_leaves_nothing_in_the_production_database(server: DevServer) -> None:
    a, b = server.learners["a"], server.learners["b"]
    for name, learner in (("a", a), ("b", b)):
        await plant(server, learner, MARKERS[name])
    needles = [MARKERS["a"], a.learner_id, MARKERS["b"], b.learner_id]
    before = postgres_hits(server.database, needles)
    # control: the runtime keeps the learner's words and id in its own tables
    assert "runs" in before[MARKERS["a"]] and "threads" in before[a.learner_id], before

    async with http(server, a) as api:
        erased = await api.post("/dashboard/api/erase", json={"confirm": "DELETE"})
    assert erased.status_code == 200, erased.text
    assert erased.json()["erased"] is True, erased.text

    after = postgres_hits(server.database, needles)
    assert after[MARKERS["a"]] == [] and after[a.learner_id] == [], after
    # the other learner keeps everything
    assert after[MARKERS["b"]] == before[MARKERS["b"]] and after[b.learner_id] == before[b.learner_id], after
