"""Erasure leaves nothing of a learner anywhere: every entry point plants a marker, then one erase.

A real ``langgraph dev`` (its checkpoints under a unique prefix), real Redis and Neo4j,
the offline policy. Each of two learners plants a distinctive word through: ``kag chat``
with ``/end`` (a subprocess, checkpointing under the server's prefix), a server run of
the tutor, the dashboard's core-memory edit, a consultation (``/kernel/consult``),
reflection (``/kernel/reflect``), a heartbeat run and a Zettelkasten run in plain Python
with the Redis checkpointer and no owner in their config (a notebook's way), and a
reminder. The first learner then uses the dashboard's "Delete my data"; a scan of every
Redis key (name and value, every type) and every Neo4j node and relationship property
finds neither their word nor their id, while the second learner's word is still there.
"""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from agent.checkpoint import AsyncRedisSaver
from agent.context import Context
from agent.memory.reminders import ReminderStore
from agent.resources import Resources
from graphs.heartbeat import make_builder as heartbeat_builder
from graphs.zettelkasten import make_builder as zettelkasten_builder
from tests.integration.erasure_scan import neo4j_hits, redis_hits
from tests.integration.langgraph_server import DevServer, Learner
from tests.integration.test_cli import kag
from tests.service_fixtures import ServerView

pytestmark = [pytest.mark.integration, pytest.mark.server]

MARKERS = {"ana": "zebracrumpet", "bob": "quokkafandango"}
"""Words that cannot occur in ids, hashes or timestamps."""


@pytest.fixture(scope="module")
def server(kag_server: DevServer) -> ServerView:
    """The session's shared server (``tests.service_fixtures.kag_server``) with era-ana and era-bob.

    Its configuration is the default one, so the module needs no server of its own (a start
    of ``langgraph dev`` saved); the shared server removes its checkpoints and learners afterwards.
    """
    return ServerView(kag_server, "erasure")


def http(dev: DevServer, learner: Learner) -> httpx.AsyncClient:
    """The server's custom routes as ``learner``."""
    headers = {"Authorization": f"Bearer {learner.token}"}
    return httpx.AsyncClient(base_url=dev.url, headers=headers, timeout=300)


async def plant(dev: DevServer, resources: Resources, learner: Learner, word: str) -> None:
    """``word`` through every entry point, as ``learner``."""
    lid = learner.learner_id
    said = f"My favourite word is {word}.\nA left join keeps every {word} row of the left table.\n/end\n"
    done = await asyncio.to_thread(
        kag, "chat", "--learner", lid, stdin=said, env={"KAG_CHECKPOINT_PREFIX": dev.prefix}
    )
    assert done.returncode == 0, done.stdout + done.stderr

    client = learner.client(dev.url)
    thread = await client.threads.create()
    request = f"Please remember that my cat is called {word}."
    await client.runs.wait(thread["thread_id"], "kag", input={"request": request}, raise_error=True)
    async with http(dev, learner) as api:
        edited = await api.post("/dashboard/api/memory/user_profile", json={"old": "", "new": f"Pet: {word}"})
        assert edited.status_code == 200, edited.text
        consulted = await api.post("/kernel/consult", json={"query": f"What is my cat {word} called?"})
        assert consulted.status_code == 200, consulted.text
        reflected = await api.post("/kernel/reflect", json={})  # patterns and insights from what was said
        assert reflected.status_code == 200, reflected.text

    async with AsyncRedisSaver.from_conn_string(resources.settings.redis_url, key_prefix=dev.prefix) as saver:
        await saver.setup()
        local = {"configurable": {"thread_id": str(uuid.uuid4())}}  # no owner, an id naming nobody
        tutor = heartbeat_builder(resources).compile(checkpointer=saver)
        await tutor.ainvoke(
            {"learner_id": lid, "request": f"I like {word} puzzles."}, local, context=Context()
        )
        notes = zettelkasten_builder(resources).compile(checkpointer=saver)
        transcript = [
            {"role": "user", "content": f"Is a {word} join the same as an inner join?"},
            {"role": "assistant", "content": f"A {word} join keeps only the rows that match in both tables."},
        ]
        session = {"learner_id": lid, "transcript": transcript, "current_concept": "sql.joins"}
        await notes.ainvoke(session, {"configurable": {"thread_id": str(uuid.uuid4())}}, context=Context())

    reminders = ReminderStore(
        resources.neo4j, resources.embeddings, database=resources.database, redis=resources.redis
    )
    await reminders.set(lid, f"review the {word} joins", keywords=["joins"])


async def test_dashboard_erasure_leaves_no_trace_and_spares_the_other_learner(
    server: DevServer, resources: Resources
) -> None:
    ana, bob = server.learners["era-ana"], server.learners["era-bob"]
    for learner, word in ((ana, MARKERS["ana"]), (bob, MARKERS["bob"])):
        await plant(server, resources, learner, word)
    needles = [MARKERS["ana"], ana.learner_id, MARKERS["bob"]]
    before = await redis_hits(resources.settings.redis_url, needles)
    planted = before[MARKERS["ana"]]
    assert any(k.startswith(f"{server.prefix}:{{") for k in planted), "checkpoints hold the word"
    assert any(not k.startswith(server.prefix) for k in planted), "memory keys hold the word"

    async with http(server, ana) as api:
        erased = await api.post("/dashboard/api/erase", json={"confirm": "DELETE"})
    assert erased.status_code == 200, erased.text
    report = erased.json()
    assert report["erased"] is True and report["left"] == {}
    # the CLI thread and the two notebook runs (the server thread went with the server step)
    assert report["removed"]["redis"]["threads"] >= 3, report
    assert report["removed"]["redis"]["keys"] > 0 and report["removed"]["server"]["threads"] >= 1, report
    assert sum(report["removed"]["neo4j"].values()) > 0, report

    after = await redis_hits(resources.settings.redis_url, needles)
    assert after[MARKERS["ana"]] == [] and after[ana.learner_id] == [], after
    graph = await neo4j_hits(resources, needles)
    assert graph[MARKERS["ana"]] == [] and graph[ana.learner_id] == [], graph
    # The other learner is untouched: their word is still in both stores, their threads still listed.
    assert after[MARKERS["bob"]] and graph[MARKERS["bob"]], (after, graph)
    assert await resources.redis.scard(f"{server.prefix}:owned:{bob.learner_id}") >= 2

    # The server's own records: no thread, no Store item left for the learner.
    client = ana.client(server.url)
    assert await client.threads.search(limit=10) == []
    assert (await client.store.search_items(["core_memory"]))["items"] == []
