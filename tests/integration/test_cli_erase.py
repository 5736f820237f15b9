"""``kag erase`` as a user runs it: confirmation, per-store output, a store down, a rerun that finishes."""

from __future__ import annotations

import socket
import uuid

import pytest

from agent.checkpoint.base import DEFAULT_PREFIX
from agent.memory.erasure import erase_learner
from agent.resources import Resources
from tests.integration.erasure_scan import neo4j_hits, redis_hits
from tests.integration.test_cli import kag

pytestmark = pytest.mark.integration

WORD = "pangolinade"
"""A word that cannot occur in ids, hashes or timestamps."""


@pytest.fixture
async def learner(resources: Resources):
    learner_id = f"cli-erase-{uuid.uuid4().hex[:10]}"
    yield learner_id
    await erase_learner(resources, learner_id)


async def test_kag_erase_confirms_reports_per_store_and_finishes_after_an_outage(
    resources: Resources, learner: str
) -> None:
    chat = kag("chat", "--learner", learner, stdin=f"My favourite word is {WORD}.\n/end\n")
    assert chat.returncode == 0, chat.stdout + chat.stderr
    prefix = resources.settings.checkpoint_prefix or DEFAULT_PREFIX
    assert await resources.redis.scard(f"{prefix}:owned:{learner}") == 1, "the CLI thread is the learner's"

    refused = kag("erase", learner, stdin="someone-else\n")
    assert refused.returncode == 2 and "nothing was erased" in refused.stderr
    assert (await redis_hits(resources.settings.redis_url, [WORD]))[WORD], "nothing went without confirmation"

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    down = kag("erase", learner, "--yes", env={"KAG_REDIS_URL": f"redis://127.0.0.1:{port}/0"})
    assert down.returncode == 2 and "Traceback" not in down.stderr
    (line,) = [x for x in down.stderr.splitlines() if x.startswith("error:")]
    assert line.startswith(f"error: erasure of {learner} is incomplete") and "redis: checkpoints" in line
    assert "neo4j: removed" in down.stdout and "erased" not in down.stdout.replace("erasure", "")

    done = kag("erase", learner, stdin=f"{learner}\n")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "redis: removed 1 threads" in done.stdout and f"erased {learner}" in done.stdout
    assert await redis_hits(resources.settings.redis_url, [WORD, learner]) == {WORD: [], learner: []}
    assert await neo4j_hits(resources, [WORD, learner]) == {WORD: [], learner: []}


def test_kag_erase_refuses_a_malformed_id_in_one_line() -> None:
    done = kag("erase", "not a learner id!", "--yes")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and done.stderr.startswith("error: ")
