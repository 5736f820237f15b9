"""Neo4j goes down mid-run: the heartbeat continues on Redis, then replays. Nothing is lost."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import pytest
from langchain_core.messages import ToolMessage

from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.memory.stores import MemoryStores
from agent.models.offline_policy import OfflinePolicyModel, is_policy_reply
from agent.resources import Resources
from graphs.heartbeat import make_builder

ROOT = Path(__file__).resolve().parents[3]
PORT = 7698


def _services(action: str, tmp: Path) -> None:
    env = {**os.environ, "KAG_NEO4J_PORT": str(PORT), "KAG_SERVICES_DIR": str(tmp)}
    subprocess.run(
        ["bash", str(ROOT / "scripts/services.sh"), action, "neo4j"],
        env=env,
        check=True,
        capture_output=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def private_neo4j(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("neo4j-degraded")
    _services("up", tmp)
    yield tmp
    _services("down", tmp)


async def test_neo4j_outage_loses_nothing(private_neo4j, resources, redis_saver):
    learner = f"degraded-{uuid.uuid4().hex[:10]}"
    settings = resources.settings.with_overrides(neo4j_uri=f"bolt://127.0.0.1:{PORT}")
    bundle = Resources(
        settings,
        chat_model=OfflinePolicyModel(),
        embeddings=resources.embeddings,
        redis_client=resources.redis,
    )
    graph = make_builder(bundle).compile(checkpointer=redis_saver)
    config = {"configurable": {"thread_id": learner}}
    ctx = Context(max_tokens=200_000)  # no archiving: the final queue holds every message

    async def ask(text: str) -> dict:
        return await graph.ainvoke({"learner_id": learner, "request": text}, config, context=ctx)

    try:
        before = [
            "My name is Dana.",
            "Remember that a primary key uniquely identifies a row.",
        ]
        for text in before:
            assert not (await ask(text))["memory_state"]["degraded"]

        _services("down", private_neo4j)
        during = [
            "Remember that a foreign key references a primary key in another table.",
            "Remember that an index speeds up lookups at the cost of writes.",
            "What do you know about foreign keys?",
        ]
        outputs = [await ask(text) for text in during]
        assert all(o["memory_state"]["degraded"] for o in outputs)
        # Reads were served from Redis while Neo4j was down.
        assert "foreign key references a primary key" in outputs[-1]["response"]
        # The bundle's own stream: its prefix belongs to the private Neo4j (Settings.kernel_prefix).
        stores = MemoryStores.wire(bundle)
        backlog = stores.backlog
        assert backlog.kernel.prefix != "kag" and await backlog.pending(learner) > 0

        _services("up", private_neo4j)
        after = await ask("I am preparing for a database exam.")
        await backlog.replay(stores.archival, stores.recall, learner_id=learner)
        await backlog.wait_idle()
        assert await backlog.pending(learner) == 0

        state = (await graph.aget_state(config)).values
        # The offline policy's own replies are boilerplate and are not logged (is_policy_reply).
        expected = {str(m.id) for m in state["fifo_queue"] if not is_policy_reply(m)}
        records, _, _ = await bundle.neo4j.execute_query(
            "MATCH (m:Message {learner_id: $l}) RETURN collect(m.id) AS ids", l=learner
        )
        stored = set(records[0]["ids"])
        assert stored == expected, f"missing {expected - stored}, extra {stored - expected}"
        memories, _, _ = await bundle.neo4j.execute_query(
            # Derived by the kernel from the messages (turn contexts, consolidations): not counted.
            "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(m:Memory) "
            "WHERE coalesce(m.kind, '') <> 'turn_context' AND NOT m:ConsolidatedEpisode "
            "RETURN count(m) AS n, count(CASE WHEN m:Fact THEN 1 END) AS facts",
            l=learner,
        )
        assert memories[0]["n"] - memories[0]["facts"] == 3  # one insert before, two during the outage
        assert memories[0]["facts"] == 2  # the offline policy's remember_fact: the name, the exam
        # Replaying again is a no-op.
        assert await backlog.replay(stores.archival, stores.recall, learner_id=learner) == 0
        records, _, _ = await bundle.neo4j.execute_query(
            "MATCH (m:Message {learner_id: $l}) RETURN count(m) AS n", l=learner
        )
        assert records[0]["n"] == len(expected)
        assert not after["memory_state"]["degraded"] or after["response"]
        tool_errors = [m for m in state["fifo_queue"] if isinstance(m, ToolMessage) and m.status == "error"]
        assert tool_errors == []
    finally:
        await CoreMemoryStore(resources.redis).clear(learner)
        await bundle.aclose()
