"""The heartbeat bench's per-node timer: node runs only, timed, closed on errors too.

The timer reads a fake clock that only the ``slow`` node moves (by ``SLOW_S``), so what a span
holds is exact whatever the machine's load: no wall-clock check.
"""

from __future__ import annotations

import asyncio
from typing import TypedDict

import pytest
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, StateGraph

from bench.kernel import node_timer
from bench.kernel.node_timer import NodeTimer, node_lines

SLOW_S = 1 / 32  # about 30 ms, and exact in binary: spans compare without rounding


class FakeClock:
    """``perf_counter`` for the timer: it moves only when a node moves it."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """The timer's ``time`` module, replaced by a fake clock."""
    fake = FakeClock()
    monkeypatch.setattr(node_timer, "time", fake)
    return fake


class _State(TypedDict, total=False):
    text: str
    loops: int


def _graph(clock: FakeClock, model: FakeListChatModel, *, fail: bool = False):  # noqa: ANN202 - a compiled graph
    async def slow(state: _State) -> _State:
        clock.now += SLOW_S  # time passes inside this node, and only here
        await asyncio.sleep(0)
        return {"loops": state.get("loops", 0) + 1}

    async def ask(state: _State) -> _State:
        if fail:
            raise RuntimeError("node failed")
        reply = await model.ainvoke(state["text"])  # a nested run: not a node of its own
        return {"text": str(reply.content)}

    def again(state: _State) -> str:  # a routing function: runs inside ``ask``'s task
        return "slow" if state["loops"] < 3 else END

    def same(state: _State) -> _State:
        return {}

    builder = StateGraph(_State)
    builder.add_node("slow", slow)
    # a node whose runnable runs as "named" inside the node "named"
    builder.add_node("named", RunnableLambda(same).with_config(run_name="named"))
    builder.add_node("ask", ask)
    builder.add_edge(START, "slow")
    builder.add_edge("slow", "named")
    builder.add_edge("named", "ask")
    builder.add_conditional_edges("ask", again)
    return builder.compile()


async def test_only_node_runs_are_timed_each_time_they_run(clock: FakeClock) -> None:
    timer = NodeTimer()
    model = FakeListChatModel(responses=["a", "b", "c"])
    await _graph(clock, model).ainvoke({"text": "hi"}, {"callbacks": [timer]})
    assert set(timer.seconds) == {"slow", "named", "ask"}  # not the model, the router or the graph
    assert {node: len(runs) for node, runs in timer.seconds.items()} == {"slow": 3, "named": 3, "ask": 3}
    assert min(timer.seconds["slow"]) >= SLOW_S  # the node's own time is inside its span
    assert max(timer.seconds["ask"]) < min(timer.seconds["slow"])
    assert not timer._open  # every span closed


async def test_a_node_that_raises_still_closes_its_span(clock: FakeClock) -> None:
    timer = NodeTimer()
    with pytest.raises(RuntimeError, match="node failed"):
        graph = _graph(clock, FakeListChatModel(responses=["a"]), fail=True)
        await graph.ainvoke({"text": "hi"}, {"callbacks": [timer]})
    assert len(timer.seconds["ask"]) == 1 and len(timer.seconds["slow"]) == 1
    assert not timer._open


def test_the_lines_give_runs_quantiles_and_time_per_turn() -> None:
    timer = NodeTimer()
    timer.seconds["receive"] = [0.001, 0.003]
    timer.seconds["think"] = [0.002, 0.002, 0.002, 0.002]
    lines = node_lines("tool turn", timer, turns=2)
    receive = next(line for line in lines if "receive" in line).split()
    assert receive[1:] == ["2", "3.00", "3.00", "2.00"]  # runs, p50, p95 (nearest rank), ms per turn
    think = next(line for line in lines if "think" in line).split()
    assert think[-1] == "4.00"  # two runs per turn
    assert lines[-1].split()[-1] == "6.00"  # every node, per turn
