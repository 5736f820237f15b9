import json
from typing import Annotated

from langchain_core.tools import tool
from langgraph.prebuilt import InjectedState

from agent.tool_runner import run_tool_calls

seen = []


@tool
async def echo(text: str, learner_id: Annotated[str, InjectedState("learner_id")]) -> str:
    """Echo."""
    seen.append(learner_id)
    return json.dumps({"text": text, "learner": learner_id})


@tool
async def boom(x: int) -> str:
    """Fail."""
    raise RuntimeError("kaput")


def _call(name, args, i=0):
    return {"name": name, "args": args, "id": f"id{i}", "type": "tool_call"}


async def test_guardrails_continue_after_each_failure():
    registry = {"echo": echo, "boom": boom}
    calls = [
        _call("nope", {}, 0),
        _call("boom", {"x": 1}, 1),
        _call("echo", {}, 2),  # missing argument
        _call("echo", {"text": "hi", "learner_id": "victim"}, 3),  # model tries to pick a learner
    ]
    result = await run_tool_calls(calls, registry, {"learner_id": "owner"})
    texts = [m.content for m in result.messages]
    assert "no tool named 'nope'" in texts[0]
    assert "kaput" in texts[1]
    assert "malformed arguments for echo" in texts[2]
    assert json.loads(texts[3]) == {"text": "hi", "learner": "owner"}
    assert [m.status for m in result.messages] == ["error", "error", "error", "success"]
    assert result.errors == 3 and result.unknown == 1
    assert seen == ["owner"]


def test_injected_learner_id_is_hidden_from_the_model_schema():
    schema = echo.tool_call_schema.model_json_schema()
    assert "learner_id" not in schema["properties"]
