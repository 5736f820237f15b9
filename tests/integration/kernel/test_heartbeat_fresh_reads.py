"""Read your writes through the heartbeat: a message logged in one step is found in the next.

The kernel worker is not running here: every read below is served before anything
reached Neo4j, from the learner's stream tail.
"""

from __future__ import annotations

import json

from langchain_core.messages import ToolMessage

from agent.context import Context
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from tests.scripted_models import call, scripted


async def _tool_texts(graph, config: dict) -> list[str]:  # noqa: ANN001
    state = (await graph.aget_state(config)).values
    return [m.text for m in state["fifo_queue"] if isinstance(m, ToolMessage)]


async def test_conversation_search_finds_the_last_step_and_the_last_request(
    make_graph, resources: Resources, learner_id: str
) -> None:
    model = scripted(
        # request 1: the learner states something; the model searches for it in the next step
        call("conversation_search", 1, query="Quillibert tortoise"),
        "Noted.",
        # request 2: the model searches for what request 1 said
        call("conversation_search", 2, query="tortoise name"),
        "Your tortoise is Quillibert.",
    )
    graph = make_graph(model)
    config = {"configurable": {"thread_id": learner_id}}
    ctx = Context(max_tokens=200_000, zettelkasten=False)
    stores = MemoryStores.wire(resources)
    # Holding the learner's drain lock keeps any kernel worker (another process's too) away.
    token = await stores.kernel.lock(learner_id)
    assert token
    first = await graph.ainvoke(
        {"learner_id": learner_id, "request": "My tortoise is called Quillibert."}, config, context=ctx
    )
    assert first["response"] == "Noted."
    [found] = await _tool_texts(graph, config)
    hits = json.loads(found)["results"]
    assert any("Quillibert" in h["text"] for h in hits)  # logged by receive, found by act
    assert await stores.recall.count(learner_id) == 0  # and not drained yet
    second = await graph.ainvoke(
        {"learner_id": learner_id, "request": "What is my tortoise called?"}, config, context=ctx
    )
    hits = json.loads((await _tool_texts(graph, config))[-1])["results"]
    assert any("Quillibert" in h["text"] for h in hits)
    assert second["memory_state"].get("degraded") is not True
    await stores.kernel.unlock(learner_id, token)
    applied = await stores.settle(learner_id)
    assert applied >= 4  # receive, act and finish of both requests
    assert await stores.recall.count(learner_id) >= 5
    assert await stores.kernel.tail(learner_id) == []
