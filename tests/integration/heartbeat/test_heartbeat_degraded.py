"""Neo4j goes down mid-run: the heartbeat continues on Redis, then replays. Nothing is lost.

The Neo4j that goes down is the session's private one (``tests/integration/private_neo4j.py``,
shared with the other outage tests: one JVM instead of one more); the shared Neo4j is never touched.
"""

from __future__ import annotations

import uuid

import neo4j
from langchain_core.messages import ToolMessage

from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.memory.stores import MemoryStores
from agent.models.offline_policy import OfflinePolicyModel, is_policy_reply
from agent.resources import NEO4J_POOL_SIZE, Resources
from graphs.heartbeat import make_builder
from tests.integration.private_neo4j import CurrentPassword, PrivateNeo4j


async def test_neo4j_outage_loses_nothing(private_neo4j: PrivateNeo4j, resources: Resources, redis_saver):
    learner = f"degraded-{uuid.uuid4().hex[:10]}"
    settings = resources.settings.with_overrides(neo4j_uri=private_neo4j.uri)
    driver = neo4j.AsyncGraphDatabase.driver(  # as Resources builds it, with the rotating password
        private_neo4j.uri,
        auth=CurrentPassword(private_neo4j),
        max_connection_pool_size=NEO4J_POOL_SIZE,
        connection_timeout=5.0,
        connection_acquisition_timeout=10.0,
        notifications_min_severity="OFF",
    )
    bundle = Resources(
        settings,
        chat_model=OfflinePolicyModel(),
        embeddings=resources.embeddings,
        neo4j_driver=driver,
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

        private_neo4j.down()
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

        private_neo4j.up()
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
        await driver.close()
