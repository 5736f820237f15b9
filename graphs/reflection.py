"""The reflection graph: synthesis → anticipation → curation → prioritisation → decay, one learner per run.

```
START → synthesis → anticipation → curation → prioritisation → decay → END
```
Each node is one step of ``agent.kernel.reflection`` and adds its report to ``reports``;
``changed`` says whether any step wrote anything, and a run that did bumps the learner's
kernel generation (``run.invalidate``), so cached consultations expire. Every node acts for
the authenticated learner only (``agent.identity.add_bound_nodes``). ``graph`` is what
``langgraph.json`` serves as ``reflection``; tests build their own with ``make_builder``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, NotRequired

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from agent.context import Context
from agent.identity import LocalLearnerId, add_bound_nodes
from agent.kernel.reflection.reports import DEFAULT_LIMIT, STEPS, check_limit
from agent.kernel.reflection.run import STEP_FUNCTIONS, invalidate
from agent.kernel.reflection.store import ReflectionStore
from agent.resources import Resources, default_resources
from graphs.reducers import last, merge


class ReflectionInput(TypedDict):
    """What a run takes (the learner is the authenticated one)."""

    learner_id: NotRequired[LocalLearnerId]
    """The learner of a local run; under the server, the authenticated one (``agent.identity``)."""
    limit: NotRequired[int]
    """Batch bound per step, 10-100 (default 50)."""


class ReflectionOutput(TypedDict):
    """What a run returns."""

    learner_id: str
    """The learner reflected on."""
    reports: dict[str, dict[str, Any]]
    """One ``StepReport.to_dict()`` per step, by step name."""
    changed: bool
    """True when any step wrote anything."""


class ReflectionState(TypedDict):
    """Working state of one run."""

    learner_id: Annotated[str, last]
    """The learner (each node sees the authenticated one)."""
    limit: Annotated[int, last]
    """Batch bound per step (validated by the first node)."""
    reports: Annotated[dict[str, dict[str, Any]], merge]
    """Step reports merged in by step name."""
    changed: Annotated[bool, last]
    """Whether any step of this run wrote anything (the first step starts it afresh)."""


def make_builder(resources: Resources | None = None) -> StateGraph:
    """Wire the five steps over ``resources`` (default: the running loop's bundle)."""
    provide: Callable[[], Resources] = (lambda: resources) if resources is not None else default_resources

    def node(name: str) -> Callable[..., Any]:
        step = STEP_FUNCTIONS[name]

        async def run_step(state: ReflectionState) -> dict[str, Any]:
            limit = check_limit(state.get("limit") or DEFAULT_LIMIT)
            bundle = provide()
            store = ReflectionStore.for_resources(bundle)
            extra = {"model": bundle.chat_model} if name == "synthesis" else {}  # phrases insights, if it can
            report = await step(store, state["learner_id"], limit=limit, **extra)
            changed = report.changed or (name != STEPS[0] and bool(state.get("changed")))
            if name == STEPS[-1] and changed:
                await invalidate(provide(), state["learner_id"])  # cached consultations expire
            return {
                "learner_id": state["learner_id"],
                "limit": limit,
                "reports": {name: report.to_dict()},
                "changed": changed,
            }

        run_step.__name__ = run_step.__qualname__ = name
        run_step.__doc__ = f"The {name} step of reflection (``agent.kernel.reflection``)."
        return run_step

    builder = StateGraph(
        ReflectionState, context_schema=Context, input_schema=ReflectionInput, output_schema=ReflectionOutput
    )
    add_bound_nodes(builder, {name: node(name) for name in STEPS})  # authenticated learner only
    builder.add_edge(START, STEPS[0])
    for a, b in zip(STEPS, STEPS[1:], strict=False):
        builder.add_edge(a, b)
    builder.add_edge(STEPS[-1], END)
    return builder


# Wiring only, no I/O: the store is built when the graph first runs on a bundle.
builder = make_builder()
graph = builder.compile(name="reflection")
