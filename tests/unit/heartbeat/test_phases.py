"""Two phases in one step give the state two separate steps would."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime

from agent.heartbeat.phases import apply_update, merge_updates, reducers
from agent.heartbeat.slots import clear_slots, make_slot, merge_slots
from agent.heartbeat.state import HeartbeatState, add_counts


class Toy(TypedDict, total=False):
    messages: Annotated[list, add_messages]
    slots: Annotated[list, merge_slots]
    counters: Annotated[dict[str, int], add_counts]
    step: int
    seen: list[str]


async def first(state: Toy) -> dict:
    """Receive: a message, a counter, a slot."""
    return {
        "messages": [HumanMessage(content="hi", id="h1")],
        "counters": {"requests": 1, "steps": 1},
        "slots": [make_slot("question", "hi", id="q")],
        "step": 1,
    }


async def second(state: Toy, config: RunnableConfig, runtime: Runtime) -> dict:
    """Answer: sees the first update, replaces an old message, clears the slots."""
    seen = [m.id for m in state["messages"]]
    return {
        "messages": [RemoveMessage(id="old"), AIMessage(content="hello", id="a1")],
        "counters": {"steps": 1},
        "slots": [clear_slots(), make_slot("plan", "later", id="p")],
        "step": state["step"] + 1,
        "seen": seen,
    }


def both(when: Any = None) -> Any:
    """One step of ``first`` then ``second``, as the heartbeat's combined steps run their phases."""
    merge = reducers(Toy)

    async def step(state: Toy, config: RunnableConfig, runtime: Runtime) -> dict:
        update = await first(state)
        view = apply_update(state, update, merge)
        if when is not None and not when(view):
            return update
        return merge_updates(update, await second(view, config, runtime), merge)

    return step


def _graph(*steps: tuple[str, Any]) -> Any:
    builder = StateGraph(Toy)
    for name, fn in steps:
        builder.add_node(name, fn)
    names = [START, *(n for n, _ in steps), END]
    for a, b in zip(names, names[1:], strict=False):
        builder.add_edge(a, b)
    return builder.compile()


START_STATE: dict[str, Any] = {
    "messages": [AIMessage(content="before", id="old")],
    "counters": {"requests": 4},
    "step": 0,
}


async def test_one_step_of_two_phases_ends_where_two_steps_end():
    two = await _graph(("first", first), ("second", second)).ainvoke(START_STATE)
    one = await _graph(("both", both())).ainvoke(START_STATE)
    assert one == two
    assert [m.id for m in one["messages"]] == ["h1", "a1"]
    assert one["seen"] == ["old", "h1"]  # the second phase saw the first one's message
    assert one["counters"] == {"requests": 5, "steps": 2}
    assert [s["id"] for s in one["slots"]] == ["p"]
    assert one["step"] == 2


async def test_the_second_phase_runs_only_when_asked():
    step = both(when=lambda view: view["step"] > 1)
    out = await _graph(("both", step)).ainvoke(START_STATE)
    assert [m.id for m in out["messages"]] == ["old", "h1"] and "seen" not in out
    assert out["counters"] == {"requests": 5, "steps": 1}


def test_the_heartbeat_reducers_are_read_from_its_state():
    found = reducers(HeartbeatState)
    assert set(found) == {"messages", "fifo_queue", "core_memory", "counters", "slots"}
    assert "prompt" not in found  # an UntrackedValue channel, not a reducer


def test_updates_apply_and_merge_by_channel():
    merge = reducers(Toy)
    state = {"counters": {"a": 1}, "step": 3}
    assert apply_update(state, {"counters": {"a": 2}, "step": 4}, merge) == {"counters": {"a": 3}, "step": 4}
    first_update, second_update = {"counters": {"a": 1}, "step": 1}, {"counters": {"a": 1, "b": 1}, "step": 2}
    merged = merge_updates(first_update, second_update, merge)
    assert merged == {"counters": {"a": 2, "b": 1}, "step": 2}
