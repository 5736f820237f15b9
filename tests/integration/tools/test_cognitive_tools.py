"""The cognitive memory tools over the real stores (Neo4j and Redis), through the tool runner."""

from __future__ import annotations

import json
import uuid

import pytest

from agent.heartbeat.tool_runner import run_tool_calls
from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryStores
from tools.cognitive_tools import make_cognitive_tools


@pytest.fixture
def registry(resources):
    return {t.name: t for t in make_cognitive_tools(MemoryStores.wire(resources))}


@pytest.fixture
async def other_learner(resources):
    learner = f"test-{uuid.uuid4()}"
    yield learner
    await erase_learner(resources, learner)


@pytest.fixture
async def cleanup(resources, learner_id):
    yield
    await erase_learner(resources, learner_id)


async def _run(registry, learner_id, tool, /, **args):
    run = await run_tool_calls(
        [{"name": tool, "args": args, "id": f"c-{uuid.uuid4().hex[:6]}"}],
        registry,
        {"learner_id": learner_id, "state": {"session_id": "s1"}},
    )
    [message] = run.messages
    return message


async def test_a_fact_update_through_the_tools(registry, learner_id, cleanup):
    first = json.loads(
        (await _run(registry, learner_id, "remember_fact", content="I live in Da Nang.")).content
    )
    second = json.loads(
        (await _run(registry, learner_id, "remember_fact", content="Actually, I moved to Hanoi.")).content
    )
    assert (first["subject"], first["predicate"]) == (second["subject"], second["predicate"])
    assert second["superseded"] == [first["id"]]
    found = json.loads((await _run(registry, learner_id, "search_facts", query="where do I live")).content)
    assert [hit["text"] for hit in found["results"]] == ["Actually, I moved to Hanoi."]
    assert found["results"][0]["current"] is True
    before = json.loads(
        (
            await _run(
                registry, learner_id, "search_facts", query="where do I live", as_of=first["valid_from"]
            )
        ).content
    )
    assert before["results"][0]["text"] == "I live in Da Nang."


async def test_procedure_and_reminder_round_trip(registry, learner_id, cleanup):
    steps = ["pick the table to keep", "LEFT JOIN the other table", "match keys in ON"]
    await _run(registry, learner_id, "save_procedure", name="write a LEFT JOIN", steps=steps)
    recalled = json.loads((await _run(registry, learner_id, "recall_procedure", query="LEFT JOIN")).content)
    assert recalled["results"][0]["steps"] == steps and recalled["results"][0]["usage_count"] == 1
    reminder = json.loads(
        (
            await _run(
                registry, learner_id, "set_reminder", description="review GROUP BY", keywords=["HAVING"]
            )
        ).content
    )
    assert reminder["status"] == "pending" and reminder["keywords"] == ["HAVING"]
    resolved = json.loads(
        (await _run(registry, learner_id, "resolve_reminder", reminder_id=reminder["id"])).content
    )
    assert resolved["status"] == "resolved" and resolved["description"] == "review GROUP BY"


@pytest.mark.parametrize(
    ("name", "args", "says"),
    [
        ("remember_fact", {"content": "  "}, "content"),
        ("remember_fact", {"content": "I live in Hue.", "confidence": 7}, "confidence"),
        ("search_facts", {"query": "x", "as_of": "yesterday"}, "as_of must be ISO-8601"),
        ("search_facts", {"query": "x", "k": 0}, "k must be"),
        ("save_procedure", {"name": "x", "steps": []}, "steps"),
        ("recall_procedure", {"query": "x", "k": 999}, "k"),
        ("set_reminder", {"description": "x", "priority": 9}, "priority"),
        ("set_reminder", {"description": "x", "due_at": "soon"}, "due_at"),
        ("resolve_reminder", {"reminder_id": "rem-does-not-exist"}, "no reminder"),
    ],
)
async def test_bad_arguments_are_clear_tool_errors(registry, learner_id, cleanup, name, args, says):
    message = await _run(registry, learner_id, name, **args)
    assert message.status == "error"
    assert message.content.startswith(f"ERROR: {name} failed: ")
    assert says in message.content


async def test_a_learner_cannot_resolve_another_learners_reminder(
    registry, learner_id, other_learner, cleanup
):
    reminder = json.loads(
        (
            await _run(
                registry, learner_id, "set_reminder", description="review GROUP BY", keywords=["HAVING"]
            )
        ).content
    )
    message = await _run(registry, other_learner, "resolve_reminder", reminder_id=reminder["id"])
    assert message.status == "error" and "no reminder" in message.content
    found = json.loads((await _run(registry, other_learner, "search_facts", query="anything")).content)
    assert found["results"] == []
