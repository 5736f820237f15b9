import json
from typing import Annotated

from langchain_core.tools import tool
from langgraph.prebuilt import InjectedState

from agent.heartbeat.tool_runner import run_tool_calls

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
    assert "internal error (RuntimeError)" in texts[1], "a bug is not dressed up as a tool result"
    assert "malformed arguments for echo" in texts[2]
    assert json.loads(texts[3]) == {"text": "hi", "learner": "owner"}
    assert [m.status for m in result.messages] == ["error", "error", "error", "success"]
    assert result.errors == 3 and result.unknown == 1
    assert seen == ["owner"]


def test_injected_learner_id_is_hidden_from_the_model_schema():
    schema = echo.tool_call_schema.model_json_schema()
    assert "learner_id" not in schema["properties"]


async def test_a_bug_is_logged_with_its_traceback_and_an_expected_error_without(caplog):
    from agent.errors import StoreUnavailableError

    @tool
    async def down(x: int) -> str:
        """Neo4j is down."""
        raise StoreUnavailableError("Neo4j", "connection refused")

    result = await run_tool_calls(
        [_call("boom", {"x": 1}), _call("down", {"x": 1}, 1)], {"boom": boom, "down": down}, {}
    )
    assert "Neo4j is unreachable" in result.messages[1].content
    bug, expected = [r for r in caplog.records if r.name == "agent.heartbeat.tool_runner"]
    assert bug.exc_info is not None and "kaput" in str(bug.exc_info[1])
    assert expected.exc_info is None


async def test_a_tool_gets_only_the_injected_arguments_it_declares():
    from langchain_core.callbacks import AsyncCallbackHandler

    class ToolInputs(AsyncCallbackHandler):
        def __init__(self) -> None:
            self.texts: list[str] = []

        async def on_tool_start(self, serialized, input_str, **kwargs):  # noqa: ANN001, ANN201
            self.texts.append(input_str)

    inputs = ToolInputs()
    injected = {"learner_id": "owner", "knobs": {}, "state": {"fifo_queue": ["QUEUED-MESSAGE-TEXT"]}}
    config = {"callbacks": [inputs]}
    result = await run_tool_calls([_call("echo", {"text": "hi"})], {"echo": echo}, injected, config)
    assert json.loads(result.messages[0].content) == {"text": "hi", "learner": "owner"}
    # echo declares no state: the queue is not handed to it, so not rendered into the callback text
    assert len(inputs.texts) == 1 and "hi" in inputs.texts[0]
    assert "QUEUED-MESSAGE-TEXT" not in inputs.texts[0]
