"""Tenant binding for graph nodes: every node acts for the authenticated learner.

Under the LangGraph server a client can reach any node without passing through
``receive``: ``Command(goto=...)``, ``threads.update_state(..., as_node=...)``
followed by a resume, or a subgraph invoked directly. So no node may trust
``state["learner_id"]``. ``bind_learner`` wraps a node function; before the
node runs it resolves the learner with ``acting_learner`` (the authenticated
user, checked against the state's cached id) and hands the node a state whose
``learner_id`` is that learner. A mismatch raises ``LearnerMismatchError``
before the node reads or writes anything. Graphs add every node through
``add_bound_nodes``, so a node added later is bound too.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langgraph.graph import StateGraph
from langgraph.runtime import Runtime
from pydantic.json_schema import SkipJsonSchema

from agent.validation import acting_learner

BOUND_MARK = "__kag_bound_learner__"
LocalLearnerId = SkipJsonSchema[str]
"""Type of a graph input's ``learner_id``: local runs (CLI, notebooks, tests) name the learner
with it, but it stays out of the JSON schemas the server publishes (Studio's input form, the
MCP tool list), since a served run's learner is the token's and another id is refused."""
Node = Callable[..., Awaitable[Any]]


def bind_learner(node: Node) -> Node:
    """Wrap an async node so it only ever sees the authenticated learner's id."""
    params = inspect.signature(node).parameters
    wants_config, wants_runtime = "config" in params, "runtime" in params

    async def bound(state: Mapping[str, Any], config: RunnableConfig, runtime: Runtime) -> Any:
        learner = acting_learner(state, config)
        kwargs: dict[str, Any] = {}
        if wants_config:
            kwargs["config"] = config
        if wants_runtime:
            kwargs["runtime"] = runtime
        return await node({**state, "learner_id": learner}, **kwargs)

    # Not functools.wraps: LangGraph must see this signature (config, runtime), not the inner one.
    bound.__name__, bound.__qualname__, bound.__doc__ = node.__name__, node.__qualname__, node.__doc__
    setattr(bound, BOUND_MARK, True)
    return bound


def add_bound_nodes(builder: StateGraph, nodes: Mapping[str, Node]) -> None:
    """Add every node to ``builder``, each bound to the authenticated learner."""
    for name, fn in nodes.items():
        builder.add_node(name, bind_learner(fn))


def is_bound(node: Any) -> bool:
    """True when ``node`` (a function) was wrapped by ``bind_learner``."""
    return bool(getattr(node, BOUND_MARK, False))
