"""One model call for a turn that needs no tool (design § 10), with a provider-like model.

The bench's scripted model supports tools and structured output as a real provider does
(``agent.heartbeat.effort.has_structured_output`` is true for it), so anything in the turn
that would ask the model (an intent classifier, a summariser) is counted here.
"""

from __future__ import annotations

import uuid

import pytest

from agent.context import Context
from bench.kernel.turn_baseline import ScriptedModel

CTX = Context(zettelkasten=False)


@pytest.mark.parametrize(
    "request_text",
    [
        "What did we say about joins?",  # simple recall
        "How do I write a left join, step by step?",  # procedural: appraisal searches first
        "Summarise everything I have learned about SQL so far.",  # synthesis: two rounds at most
    ],
)
async def test_a_no_tool_turn_asks_the_model_once(make_graph, learner_id, request_text):
    model = ScriptedModel(direct=True)
    graph = make_graph(model)
    cfg = {"configurable": {"thread_id": f"calls-{uuid.uuid4().hex[:8]}"}}
    out = await graph.ainvoke({"learner_id": learner_id, "request": request_text}, cfg, context=CTX)
    assert out["response"].startswith("Answer")
    assert model.calls == 1
    assert out["memory_state"]["effort"]["method"] == "local"


async def test_a_tool_turn_asks_the_model_twice_as_react_does(make_graph, learner_id):
    model = ScriptedModel()  # a search call, then an answer from its result
    graph = make_graph(model)
    cfg = {"configurable": {"thread_id": f"calls-{uuid.uuid4().hex[:8]}"}}
    out = await graph.ainvoke({"learner_id": learner_id, "request": "What is a join?"}, cfg, context=CTX)
    assert out["response"].startswith("Answer")
    assert model.calls == 2
