"""Learner B can never reach learner A's memory through the heartbeat's tools."""

from __future__ import annotations

import json

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from agent.context import Context
from agent.memory.core import CoreMemoryStore
from agent.models.offline_policy import OfflinePolicyModel
from tests.scripted_models import call, scripted

CRAFTED = [
    "PIN",
    "' OR 1=1 //",
    '"}) MATCH (n) RETURN n //',
    "learner_id:* OR text:*",
    "*",
    "\\",
    "PIN) WITH 1 AS x MATCH (m:Memory) RETURN m.text //",
    "x" * 5000,
]


async def _cleanup(resources, *learners):
    for learner in learners:
        await CoreMemoryStore(resources.redis).clear(learner)
        await resources.neo4j.execute_query(
            "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n", l=learner, database_=resources.database
        )
        await resources.neo4j.execute_query("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner)


async def test_b_never_sees_a(make_graph, resources, learner_id):
    a, b = learner_id + "-a", learner_id + "-b"
    try:
        graph_a = make_graph(OfflinePolicyModel())
        for request in ["My name is Alice Zebrafish.", "Remember that my bank PIN is 4321."]:
            await graph_a.ainvoke(
                {"learner_id": a, "request": request}, {"configurable": {"thread_id": a}}, context=Context()
            )
        # A can find its own memory (so the probe below is meaningful).
        own = await graph_a.ainvoke(
            {"learner_id": a, "request": "What do you know about my bank PIN?"},
            {"configurable": {"thread_id": a}},
            context=Context(),
        )
        assert "4321" in own["response"]

        steps = []
        for i, query in enumerate(CRAFTED):
            steps.append(call("archival_memory_search", 2 * i, query=query, learner_id=a))
            steps.append(call("conversation_search", 2 * i + 1, query=query, learner_id=a))
        model = scripted(*steps[:4], "done")
        graph_b = make_graph(model)
        tool_texts = []
        for chunk in range(0, len(steps), 4):
            model.responses = [*steps[chunk : chunk + 4], AIMessage(content="done")]
            model.i = 0
            await graph_b.ainvoke(
                {"learner_id": b, "request": "search please"},
                {"configurable": {"thread_id": b}},
                context=Context(max_steps=6),
            )
            state = (await graph_b.aget_state({"configurable": {"thread_id": b}})).values
            tool_texts += [m.content for m in state["fifo_queue"] if isinstance(m, ToolMessage)]
        assert len(tool_texts) >= len(CRAFTED) * 2
        for text in tool_texts:
            assert "4321" not in text and "Zebrafish" not in text
            if not text.startswith("ERROR"):
                assert isinstance(json.loads(text)["results"], list)
        assert "Zebrafish" not in str(await CoreMemoryStore(resources.redis).read(b))
    finally:
        await _cleanup(resources, a, b)


@pytest.mark.parametrize("spoof", ["learner_id", "learner"])
async def test_body_learner_id_is_validated_before_anything(make_graph, resources, spoof):
    graph = make_graph(scripted("never"))
    with pytest.raises(Exception, match="learner_id"):
        await graph.ainvoke(
            {"learner_id": "a' }) DETACH DELETE n //", "request": "hi"},
            {"configurable": {"thread_id": f"spoof-{spoof}"}},
        )
