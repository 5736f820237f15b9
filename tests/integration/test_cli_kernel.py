"""``kag kernel run|stats|backfill`` and ``kag reflect`` against the real services, run as a user runs them.

A subprocess each time (like ``test_cli.py``): messages logged through the kernel
stream wait there until ``kag kernel run --once`` (or the running worker, stopped
with Ctrl-C) commits them to Neo4j; ``kag kernel stats`` counts them; ``kag reflect``
reflects a learner once, and a second run with nothing new changes nothing.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import time
import uuid

import pytest

from agent.memory.erasure import erase_learner
from agent.memory.facts import FactStore
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from tests.integration.test_cli import KAG, REPO, kag

MESSAGES = [
    RecallMessage(id=f"m-{i}", role="user" if i % 2 == 0 else "assistant", content=text)
    for i, text in enumerate(
        [
            "I'm confused by Python decorators.",
            "A decorator wraps a function.",
            "I keep getting decorators wrong.",
        ]
    )
]


@pytest.fixture
async def learner(resources: Resources):
    learner_id = f"cli-kernel-{uuid.uuid4().hex[:10]}"
    yield learner_id
    stores = MemoryStores.wire(resources)
    await erase_learner(resources, learner_id)
    await resources.redis.delete(*stores.kernel.learner_keys(learner_id))
    await resources.redis.srem(stores.kernel.active_key, learner_id)


async def enqueue(resources: Resources, learner_id: str) -> MemoryStores:
    """Log the three messages through the kernel stream (not yet in Neo4j)."""
    stores = MemoryStores.wire(resources)
    messages = [RecallMessage(f"{learner_id}-{m.id}", m.role, m.content) for m in MESSAGES]
    await stores.recall.log_messages(learner_id, "cli-session", messages)
    assert await stores.kernel.depth(learner_id) == 1, "control: one event waits on the stream"
    return stores


def stats_of(learner_id: str) -> dict:
    """``kag kernel stats --learner`` as JSON."""
    done = kag("kernel", "stats", "--learner", learner_id)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


async def test_run_once_drains_the_learner_and_stats_count_it(learner, resources: Resources) -> None:
    stores = await enqueue(resources, learner)
    before = stats_of(learner)
    assert before["backlog"]["learner"] == 1 and before["memory"]["message"] == 0

    done = kag("kernel", "run", "--once", "--learner", learner)

    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("drained 1 event(s)"), done.stdout
    assert "applied=" in done.stdout and "depth=" in done.stdout
    assert await stores.kernel.depth(learner) == 0
    after = stats_of(learner)
    assert after["backlog"]["learner"] == 0 and after["memory"]["message"] == len(MESSAGES)
    assert after["learner_id"] == learner and isinstance(after["backlog"]["total"], int)


async def test_run_until_ctrl_c_commits_then_stops(learner, resources: Resources) -> None:
    stores = await enqueue(resources, learner)
    proc = subprocess.Popen(
        [str(KAG), "kernel", "run", "--every", "0.5"],
        cwd=REPO,
        env={**os.environ, "KAG_KERNEL_FLUSH_SECONDS": "0"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and await stores.kernel.depth(learner):
            await asyncio.sleep(0.5)
        assert await stores.kernel.depth(learner) == 0, "the running worker never drained the learner"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    assert out.startswith("kernel worker running") and out.rstrip().endswith("kernel worker stopped")
    assert "applied=" in out and "Traceback" not in err
    assert stats_of(learner)["memory"]["message"] == len(MESSAGES)


async def test_reflect_one_learner_then_nothing_new(learner, resources: Resources) -> None:
    facts = FactStore(resources.neo4j, resources.embeddings, database=resources.database)
    await facts.remember(learner, "I'm struggling with recursion.")

    first = kag("reflect", "--learner", learner, "--limit", "10")
    assert first.returncode == 0, first.stderr
    out = json.loads(first.stdout)
    assert out["learners"] == 1 and out["reports"][0]["learner_id"] == learner
    assert out["reports"][0]["changed"] is True and out["reports"][0]["limit"] == 10
    assert list(out["reports"][0]["steps"]) == [
        "anticipation",
        "curation",
        "decay",
        "prioritisation",
        "synthesis",
    ]

    second = kag("reflect", "--learner", learner)
    assert second.returncode == 0 and json.loads(second.stdout)["reports"][0]["changed"] is False


UNFLAG = """
MATCH (m:Memory {learner_id: $l}) WHERE m.kind = 'turn_context' REMOVE m.disclosure
RETURN count(m) AS n
"""
FLAGS = """
MATCH (m:Memory {learner_id: $l}) WHERE m.kind = 'turn_context'
RETURN m.id AS id, m.disclosure AS disclosure ORDER BY id
"""


async def cypher(resources: Resources, query: str, learner_id: str) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, {"l": learner_id})).data()


async def test_backfill_flags_turn_contexts_derived_before_the_flag(learner, resources: Resources) -> None:
    other = f"{learner}-other"
    try:
        for who in (learner, other):
            await enqueue(resources, who)
            assert kag("kernel", "run", "--once", "--learner", who).returncode == 0
        written = await cypher(resources, FLAGS, learner)
        # As the worker wrote them: the two first-person turns are disclosures, the reply is not.
        assert [r["disclosure"] for r in written] == [True, False, True]
        for who in (learner, other):  # as a deployment from before the flag has them
            assert (await cypher(resources, UNFLAG, who))[0]["n"] == len(MESSAGES)

        done = kag("kernel", "backfill", "--learner", learner)

        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.splitlines() == [
            f"flagged {len(MESSAGES)} turn context(s)",
            "derived 0 sentence(s) of 0 turn context(s)",  # the worker derived them already
        ]
        assert await cypher(resources, FLAGS, learner) == written  # the flags the worker wrote
        assert {r["disclosure"] for r in await cypher(resources, FLAGS, other)} == {None}  # only --learner
        again = kag("kernel", "backfill", "--learner", learner)
        assert again.returncode == 0 and again.stdout.splitlines()[0] == "flagged 0 turn context(s)"
    finally:
        stores = MemoryStores.wire(resources)
        await erase_learner(resources, other)
        await resources.redis.delete(*stores.kernel.learner_keys(other))
        await resources.redis.srem(stores.kernel.active_key, other)


async def test_backfill_walks_one_learner_in_batches_or_every_learner(learner, resources: Resources) -> None:
    from agent.kernel.derive import backfill_disclosure

    stores = await enqueue(resources, learner)
    assert kag("kernel", "run", "--once", "--learner", learner).returncode == 0
    written = await cypher(resources, FLAGS, learner)
    await cypher(resources, UNFLAG, learner)

    assert await backfill_disclosure(stores, learner, batch=1) == len(MESSAGES)  # one per transaction
    assert await cypher(resources, FLAGS, learner) == written
    assert await backfill_disclosure(stores, learner) == 0

    await cypher(resources, UNFLAG, learner)
    assert await backfill_disclosure(stores) >= len(MESSAGES)  # every learner's (others may be due too)
    assert await cypher(resources, FLAGS, learner) == written
    with pytest.raises(ValueError):
        await backfill_disclosure(stores, learner, batch=0)


@pytest.mark.parametrize(
    "args",
    [
        ("reflect", "--limit", "5"),
        ("reflect", "--limit", "500"),
        ("reflect", "--learner", "not a learner!"),
        ("kernel", "run", "--learner", "someone"),
        ("kernel", "stats", "--learner", "../../etc"),
        ("kernel", "backfill", "--learner", "../../etc"),
    ],
)
def test_bad_arguments_are_one_clear_error(args: tuple[str, ...]) -> None:
    done = kag(*args)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and "rror" in done.stderr
