"""The display channel keeps the latest ``Context.display_window`` messages."""

from __future__ import annotations

from langchain_core.messages import AIMessage, HumanMessage
from langgraph.graph.message import add_messages

from agent.heartbeat.finish import display_update


def _exchange(n: int) -> list:
    return [HumanMessage(content=f"q{n}", id=f"q{n}"), AIMessage(content=f"a{n}", id=f"a{n}")]


def test_the_window_drops_the_oldest_and_keeps_the_answer() -> None:
    shown: list = []
    for n in range(6):
        shown = add_messages(shown, [HumanMessage(content=f"q{n}", id=f"q{n}")])  # receive
        shown = add_messages(shown, display_update(shown, AIMessage(content=f"a{n}", id=f"a{n}"), 4))
        assert len(shown) == min(4, 2 * (n + 1))
    assert [m.text for m in shown] == ["q4", "a4", "q5", "a5"]


def test_under_the_window_nothing_is_removed() -> None:
    shown = _exchange(0)
    update = display_update(shown, AIMessage(content="a1", id="a1"), 10)
    assert [m.type for m in update] == ["ai"]


def test_a_window_shrunk_between_runs_trims_everything_past_it() -> None:
    shown = [m for n in range(5) for m in _exchange(n)]  # 10 shown, window now 3
    update = display_update(shown, AIMessage(content="a5", id="a5"), 3)
    assert [m.text for m in add_messages(shown, update)] == ["q4", "a4", "a5"]
