"""Two heartbeat phases run as one graph step: the second sees the first's update applied.

The design's heartbeat has the steps receive → monitor → (archive) → compile → think →
act. Appraisal belongs to receiving a request and reporting belongs to the answering
think step, so each runs as a phase inside that step rather than as a step of its own.
Every step costs a checkpoint and the runtime's bookkeeping, and ``bench.heartbeat``
measures that cost per turn (docs/evaluation/heartbeat.md, "Where the budget goes").

A combined step runs its first phase, hands ``after(state, update)`` to its second, and
returns ``combine(update, second_update)``: the second phase sees the first's update applied
through the schema's reducers, and the merged update has the effect of two steps.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

from agent.heartbeat.state import HeartbeatState

Phase = Callable[..., Any]
"""A node function: ``state`` first, then any of ``config`` and ``runtime`` by keyword."""


def reducers(schema: type) -> dict[str, Callable[[Any, Any], Any]]:
    """The reducer of each channel of ``schema`` that has one (``Annotated[type, reducer]``)."""
    out: dict[str, Callable[[Any, Any], Any]] = {}
    for name, hint in get_type_hints(schema, include_extras=True).items():
        extra = [m for m in getattr(hint, "__metadata__", ()) if callable(m) and not isinstance(m, type)]
        if extra:
            out[name] = extra[-1]
    return out


def apply_update(
    state: Mapping[str, Any], update: Mapping[str, Any], merge: Mapping[str, Callable[[Any, Any], Any]]
) -> dict[str, Any]:
    """``state`` as the next step would see it after ``update``."""
    view = dict(state)
    for key, value in update.items():
        view[key] = merge[key](state.get(key), value) if key in merge else value
    return view


def merge_updates(
    first: Mapping[str, Any], second: Mapping[str, Any], merge: Mapping[str, Callable[[Any, Any], Any]]
) -> dict[str, Any]:
    """One update with the effect of ``first`` then ``second``."""
    out = dict(first)
    for key, value in second.items():
        if key not in out or key not in merge:
            out[key] = value
        elif isinstance(out[key], list) and isinstance(value, list):
            out[key] = [*out[key], *value]  # add_messages and merge_slots take a batch in order
        else:
            out[key] = merge[key](out[key], value)
    return out


def caller(phase: Phase) -> Callable[..., Any]:
    """Call ``phase`` with the keyword arguments it declares (read once, when the step is built)."""
    wanted = {name for name in inspect.signature(phase).parameters if name in ("config", "runtime")}

    def call(state: Mapping[str, Any], config: RunnableConfig, runtime: Runtime) -> Any:
        extra = {"config": config, "runtime": runtime}
        return phase(state, **{k: extra[k] for k in wanted})

    return call


@functools.cache
def _heartbeat_reducers() -> dict[str, Callable[[Any, Any], Any]]:
    return reducers(HeartbeatState)


def after(state: Mapping[str, Any], update: Mapping[str, Any]) -> dict[str, Any]:
    """The heartbeat state the second phase of a step sees: ``state`` with ``update`` applied."""
    return apply_update(state, update, _heartbeat_reducers())


def combine(first: Mapping[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """The one heartbeat update with the effect of the phase updates ``first`` then ``second``."""
    return merge_updates(first, second, _heartbeat_reducers())
