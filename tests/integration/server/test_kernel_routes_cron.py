"""The reflection crons on a real ``langgraph dev``: one per learner, only for the server's learners.

``langgraph dev``'s in-memory runtime runs crons (its lifespan starts
``langgraph_api.cron_scheduler``); the custom app registers one reflection cron per
learner of the token table (``agent.server.kernel_cron``). Here the interval is 10 s
(``KAG_REFLECTION_INTERVAL_SECONDS=10`` → ``"* * * * * */10"``). Carol has a token and
unscanned facts: the cron reflects them (synthesis stamps ``reflected_at``) with no
request from anyone. Erin has unscanned facts but no token: nothing reflects her. A
restart finds the crons instead of adding more; a learner leaving the table loses
hers; ``KAG_KERNEL_IN_SERVER=false`` removes them all and stops the worker.
"""

from __future__ import annotations

import asyncio
import re
import time
import uuid
from collections.abc import AsyncIterator

import pytest

from agent.memory.facts import FactStore
from agent.resources import Resources
from tests.integration.langgraph_server import DevServer, Learner, serving

pytestmark = [pytest.mark.integration, pytest.mark.server]

FACTS = ["I'm confused by pointers in C.", "I keep getting pointer arithmetic wrong."]
CRONS_LINE = re.compile(r"reflection crons: (\d+) learner\(s\), (\d+) in the runtime")
UNREFLECTED = """
MATCH (f:Fact {learner_id: $l}) RETURN count(f) AS facts, count(f.reflected_at) AS reflected
"""


@pytest.fixture(scope="module")
async def server(tmp_path_factory: pytest.TempPathFactory, resources: Resources) -> AsyncIterator[DevServer]:
    """A server with a 10 s reflection cron; Carol (token) and Erin (none) both hold unscanned facts."""
    run = uuid.uuid4().hex[:10]
    dev = DevServer(
        tmp_path_factory.mktemp("langgraph-cron"),
        prefix=f"kag-cron-{run}",
        extra_env={"KAG_REFLECTION_INTERVAL_SECONDS": "10", "KAG_KERNEL_IN_SERVER": "true"},
    )
    dev.learners = {
        "carol": Learner(f"cron-carol-{run}", f"token-carol-{run}"),
        "dave": Learner(f"cron-dave-{run}", f"token-dave-{run}"),
    }
    erin = f"cron-erin-{run}"
    facts = FactStore(resources.neo4j, resources.embeddings, database=resources.database)
    for learner_id in (dev.learners["carol"].learner_id, erin):
        for text in FACTS:
            await facts.remember(learner_id, text)
    dev.erin = erin  # type: ignore[attr-defined]
    for learner_id in (dev.learners["carol"].learner_id, erin):  # control, before any server runs
        assert await reflected(resources, learner_id) == (len(FACTS), 0), "facts start unscanned"
    async with serving(dev, resources, also_erase=[erin]):
        yield dev


@pytest.fixture(autouse=True)
def server_log_on_failure(request: pytest.FixtureRequest, server: DevServer, capsys: pytest.CaptureFixture):
    """Print the server log when a test of this module fails."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        with capsys.disabled():
            print(f"\n----- langgraph dev log ({server.log_path}) -----\n{server.log_tail()}")


async def reflected(resources: Resources, learner_id: str) -> tuple[int, int]:
    """(facts, facts stamped ``reflected_at``) of a learner."""
    records, _, _ = await resources.neo4j.execute_query(
        UNREFLECTED, l=learner_id, database_=resources.database
    )
    return records[0]["facts"], records[0]["reflected"]


def cron_lines(server: DevServer) -> list[tuple[int, int]]:
    """Every start's ``(learners, crons in the runtime)`` line from the server log."""
    return [(int(a), int(b)) for a, b in CRONS_LINE.findall(server.log_path.read_text(errors="replace"))]


async def test_the_cron_reflects_the_servers_learners_without_any_request(
    server: DevServer, resources: Resources
) -> None:
    carol, erin = server.learners["carol"].learner_id, server.erin  # type: ignore[attr-defined]
    # The fixture checked both learners' facts unscanned before the server started: the cron
    # (every 10 s from the server's start) may already have run by now.
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (await reflected(resources, carol))[1] < len(FACTS):
        await asyncio.sleep(1)
    assert await reflected(resources, carol) == (len(FACTS), len(FACTS)), "the cron never reflected Carol"
    assert await reflected(resources, erin) == (len(FACTS), 0), "a learner without a token was reflected"
    assert cron_lines(server) == [(2, 2)]


async def test_restarts_find_the_crons_and_follow_the_token_table(server: DevServer) -> None:
    await asyncio.to_thread(server.restart)
    assert cron_lines(server)[-1] == (2, 2), "a restart added crons instead of finding them"

    server.learners.pop("dave")
    await asyncio.to_thread(server.restart)
    assert cron_lines(server)[-1] == (1, 1), "a learner who left the token table kept a cron"

    server.extra_env["KAG_KERNEL_IN_SERVER"] = "false"
    await asyncio.to_thread(server.restart)
    assert cron_lines(server)[-1] == (0, 0)
    health = await server.learners["carol"].client(server.url).http.get("/kernel/health")
    assert health["worker"]["in_server"] is False and health["worker"]["alive"] is False
    assert health["status"] == "ok", "a worker run elsewhere is not a degradation"
