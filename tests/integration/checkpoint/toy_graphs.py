"""Two small graphs the checkpoint saver tests run: an interrupt to resume, and a counter."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class Notes(TypedDict, total=False):
    log: Annotated[list[str], operator.add]
    doc: str
    n: int


def review_graph() -> StateGraph:
    def prepare(state: Notes) -> Notes:
        return {"log": ["prepared"]}

    def review(state: Notes) -> Notes:
        return {"log": [f"answer:{interrupt({'question': 'approve?'})}"]}

    builder = StateGraph(Notes)
    builder.add_node("prepare", prepare)
    builder.add_node("review", review)
    builder.add_edge(START, "prepare")
    builder.add_edge("prepare", "review")
    builder.add_edge("review", END)
    return builder


def counter_graph() -> StateGraph:
    def bump(state: Notes) -> Notes:
        return {"n": state.get("n", 0) + 1, "log": [f"bump{state.get('n', 0)}"]}

    builder = StateGraph(Notes)
    builder.add_node("bump", bump)
    builder.add_edge(START, "bump")
    builder.add_edge("bump", END)
    return builder
