"""The cognitive memory tools as the model sees them: schemas, injected arguments, errors.

The stores here are small in-memory stand-ins that record their calls; the real stores
run in ``tests/integration/tools/test_cognitive_tools.py``.
"""

import json
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.utils.function_calling import convert_to_openai_tool

from agent.errors import InvalidInputError
from agent.heartbeat.tool_runner import run_tool_calls
from agent.memory.fact_records import FactRecord
from agent.memory.reminders import ReminderRecord
from agent.search.results import SearchHit, SearchPage
from tools.cognitive_tools import episode_of, make_cognitive_tools

NAMES = [
    "remember_fact",
    "search_facts",
    "save_procedure",
    "recall_procedure",
    "set_reminder",
    "resolve_reminder",
]


class Recorder:
    """Records each store call; ``fail`` makes every call raise ``InvalidInputError``."""

    def __init__(self, result=None, fail=None):
        self.calls: list[tuple[str, tuple, dict]] = []
        self.result, self.fail = result, fail

    def __getattr__(self, name):
        async def method(*args, **kwargs):
            self.calls.append((name, args, kwargs))
            if self.fail:
                raise InvalidInputError(self.fail)
            return self.result

        return method


FACT = FactRecord(
    id="fact-1",
    subject="learner",
    predicate="residence",
    content="I moved to Hanoi.",
    concept=None,
    confidence=1.0,
    source="learner",
    valid_from="2026-02-01T00:00:00+00:00",
    valid_to=None,
    recorded_at="2026-02-01T00:00:00+00:00",
    superseded=["fact-0"],
)


def _tools(**stores):
    return {t.name: t for t in make_cognitive_tools(SimpleNamespace(**stores))}


def test_the_six_tools_hide_the_learner_id_and_the_graph_state():
    tools = _tools()
    assert list(tools) == NAMES
    for tool in tools.values():
        schema = convert_to_openai_tool(tool)["function"]["parameters"]
        assert "learner_id" not in schema["properties"] and "state" not in schema["properties"]
        assert tool.description.strip()
    steps = convert_to_openai_tool(tools["save_procedure"])["function"]["parameters"]["properties"]["steps"]
    assert steps == {"items": {"type": "string"}, "type": "array"}


def test_episode_is_the_injected_episode_id_else_the_last_learner_message():
    queue = [HumanMessage("a", id="m1"), AIMessage("b", id="m2"), HumanMessage("c", id="m3"), AIMessage("d")]
    assert episode_of({"fifo_queue": queue}) == "m3"
    assert episode_of({"fifo_queue": queue, "episode_id": "e9"}) == "e9"
    assert episode_of({"fifo_queue": [{"role": "user", "id": "d1"}]}) == "d1"
    assert episode_of(None) is None and episode_of({}) is None


async def test_remember_fact_passes_the_episode_and_returns_compact_json():
    facts = Recorder(FACT)
    tools = _tools(facts=facts)
    state = {"fifo_queue": [HumanMessage("Actually, I moved to Hanoi.", id="msg-7")], "session_id": "s1"}
    run = await run_tool_calls(
        [
            {
                "name": "remember_fact",
                "args": {"content": "I moved to Hanoi.", "learner_id": "evil"},
                "id": "c1",
            }
        ],
        tools,
        {"learner_id": "ana", "state": state},
    )
    [(name, args, kwargs)] = facts.calls
    assert name == "remember" and args == ("ana", "I moved to Hanoi.")  # the model's learner_id is dropped
    assert kwargs["episode_id"] == "msg-7" and kwargs["subject"] is None
    assert json.loads(run.messages[0].content) == {
        "ok": True,
        "id": "fact-1",
        "subject": "learner",
        "predicate": "residence",
        "content": "I moved to Hanoi.",
        "valid_from": "2026-02-01T00:00:00+00:00",
        "superseded": ["fact-0"],
        "degraded": False,
    }


async def test_search_facts_shows_validity_and_drops_score_breakdowns():
    hit = SearchHit(
        id="fact-1",
        text="I moved to Hanoi.",
        score=0.123456,
        created_at="2026-02-01",
        kind="fact",
        scores={"vector": 0.9, "rrf": 0.1},
        metadata={"predicate": "residence", "valid_from": "2026-02-01", "valid_to": None, "current": True},
    )
    facts = Recorder(SearchPage([hit], 0, 5, "cognitive"))
    run = await run_tool_calls(
        [{"name": "search_facts", "args": {"query": "live", "as_of": "2026-01-20"}, "id": "c1"}],
        _tools(facts=facts),
        {"learner_id": "ana", "state": {}},
    )
    assert facts.calls == [("search", ("ana", "live"), {"as_of": "2026-01-20", "k": 5})]
    [row] = json.loads(run.messages[0].content)["results"]
    assert row == {
        "id": "fact-1",
        "text": "I moved to Hanoi.",
        "score": 0.1235,
        "created_at": "2026-02-01",
        "kind": "fact",
        "predicate": "residence",
        "valid_from": "2026-02-01",
        "current": True,
    }


async def test_set_reminder_takes_lists_and_the_session_from_state():
    record = ReminderRecord(id="rem-1", description="review GROUP BY", action=None, trigger_kind="keywords")
    reminders = Recorder(record)
    run = await run_tool_calls(
        [
            {
                "name": "set_reminder",
                "args": {"description": "review GROUP BY", "keywords": ["HAVING"]},
                "id": "c",
            }
        ],
        _tools(reminders=reminders),
        {"learner_id": "ana", "state": {"session_id": "s1"}},
    )
    [(_, _, kwargs)] = reminders.calls
    assert kwargs["keywords"] == ("HAVING",) and kwargs["session_id"] == "s1" and kwargs["priority"] == 2
    assert json.loads(run.messages[0].content)["id"] == "rem-1"


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("remember_fact", {"content": ""}),
        ("search_facts", {"query": "x", "as_of": "yesterday"}),
        ("save_procedure", {"name": "x", "steps": []}),
        ("recall_procedure", {"query": "x"}),
        ("set_reminder", {"description": "x", "priority": 9}),
        ("resolve_reminder", {"reminder_id": "nope"}),
    ],
)
async def test_store_refusals_come_back_as_tool_errors(name, args):
    store = Recorder(fail="bad argument: explained")
    tools = _tools(facts=store, procedures=store, reminders=store)
    run = await run_tool_calls([{"name": name, "args": args, "id": "c"}], tools, {"learner_id": "ana"})
    [message] = run.messages
    assert message.status == "error" and run.errors == 1
    assert message.content == f"ERROR: {name} failed: bad argument: explained"


@pytest.mark.parametrize(
    ("name", "args", "field"),
    [
        ("save_procedure", {"name": "x", "steps": "first a, then b"}, "steps"),
        ("set_reminder", {"description": "x", "keywords": "HAVING"}, "keywords"),
        ("search_facts", {"query": "x", "k": "many"}, "k"),
        ("resolve_reminder", {}, "reminder_id"),
    ],
)
async def test_wrong_types_are_schema_errors_before_any_store_call(name, args, field):
    store = Recorder()
    tools = _tools(procedures=store, reminders=store, facts=store)
    run = await run_tool_calls(
        [{"name": name, "args": args, "id": "c"}], tools, {"learner_id": "ana", "state": {}}
    )
    assert run.messages[0].status == "error"
    assert run.messages[0].content.startswith(f"ERROR: malformed arguments for {name}: {field}")
    assert store.calls == []
