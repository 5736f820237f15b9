"""Two heartbeat phases run as one graph step: the second sees the first's update applied.

The design's heartbeat has the steps receive → monitor → (archive) → compile → think →
act. Appraisal belongs to receiving a request and reporting belongs to the answering
think step, so each runs as a phase inside that step rather than as a step of its own.
Every step costs a checkpoint and the runtime's bookkeeping, and ``bench.heartbeat``
measures that cost per turn (docs/evaluation/heartbeat.md, "Where the budget goes").

``then(schema, first, second, when)`` builds the step. ``second`` sees the state with
``first``'s update applied through the schema's reducers, as a separate step would. The
two updates are merged into the one the graph applies, so the result is the same as two
steps: list channels with a reducer (messages, slots) concatenate, other reducer channels
(counters, core memory sections) combine with their reducer, and a plain channel takes
the later value.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, get_type_hints

from langchain_core.runnables import RunnableConfig
from langgraph.runtime import Runtime

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


def then(
    schema: type,
    first: Phase,
    second: Phase,
    when: Callable[[Mapping[str, Any]], bool] | None = None,
) -> Phase:
    """A node running ``first``, then ``second`` on the updated state (only if ``when`` says so)."""
    merge = reducers(schema)
    call_first, call_second = caller(first), caller(second)

    async def step(state: dict, config: RunnableConfig, runtime: Runtime) -> dict:
        update = await call_first(state, config, runtime)
        view = apply_update(state, update, merge)
        if when is not None and not when(view):
            return update
        return merge_updates(update, await call_second(view, config, runtime), merge)

    step.__name__ = getattr(first, "__name__", "step")
    step.__doc__ = f"{first.__doc__ or ''}\n\nThen: {second.__doc__ or ''}".strip()
    return step
