"""The consultation graph: check_cache → search → enrich → synthesise → boost.

```
START → check_cache ─(hit)→ END
             └─(miss)→ search → enrich → synthesise → boost → END
```
Each node is one step of ``agent.kernel.consult.service`` (its docstring says what each
does); this module only wires them. Under the server the learner is the authenticated user
(every node is bound with ``agent.identity.add_bound_nodes``). ``consult`` is the same
pipeline as one call (the HTTP route and the tool use it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, Literal, NotRequired

from langgraph.graph import END, START, StateGraph
from typing_extensions import TypedDict

from agent.context import Context
from agent.identity import LocalLearnerId, add_bound_nodes
from agent.kernel.consult.models import ConsultRequest, parse_request
from agent.kernel.consult.service import (
    ConsultDeps,
    boost,
    check_cache,
    consult,
    enrich,
    new_request_id,
    payload_of,
    respond,
    search,
    write_brief,
)
from agent.resources import Resources, default_resources
from graphs.reducers import last

__all__ = ["ConsultInput", "ConsultOutput", "ConsultState", "consult", "graph", "make_builder"]


class ConsultInput(TypedDict):
    """What a caller passes."""

    learner_id: NotRequired[LocalLearnerId]
    """The learner of a local run; under the server, the authenticated user (a different id is refused)."""
    request: dict[str, Any]
    """``{query, context?, max_results?, include_insights?, topic_filters?}``; no ``learner_id``."""


class ConsultOutput(TypedDict):
    """What the graph returns."""

    response: dict[str, Any]
    """``ConsultResponse.model_dump()``: request_id, synthesized_brief, relevant_facts, insights,
    patterns, proactive_alerts, confidence, brief_method, evidence, cached."""


class ConsultState(TypedDict):
    """Working state of one consultation (JSON-ready values only, so any checkpointer holds it)."""

    learner_id: Annotated[str, last]
    """The acting learner (bound by ``agent.identity``)."""
    request: Annotated[dict[str, Any], last]
    """The validated request (``ConsultRequest.model_dump()``)."""
    request_id: Annotated[str, last]
    """This consultation's id."""
    cache_slot: Annotated[dict[str, Any] | None, last]
    """Where the payload is cached: ``{"key", "generation"}`` read before searching (None: no caching)."""
    cached: Annotated[dict[str, Any] | None, last]
    """The cached payload on a hit, else None."""
    found: Annotated[dict[str, Any], last]
    """What ``search`` read: hits, the reflective layer, pending reminders, degraded reads."""
    evidence: Annotated[dict[str, Any], last]
    """What ``enrich`` kept: facts, core, insights, patterns, alerts, confidence and its basis."""
    brief: Annotated[str, last]
    """The synthesised brief."""
    brief_method: Annotated[str, last]
    """``model`` or ``template``."""
    response: Annotated[dict[str, Any], last]
    """The answer (``ConsultOutput.response``)."""


def route_after_cache(state: ConsultState) -> Literal["search", "__end__"]:
    """A hit ends the run (its response is set); a miss searches."""
    return END if state.get("cached") is not None else "search"


def make_builder(resources: Resources | None = None) -> StateGraph:
    """Wire the graph; with ``resources`` the stores are built now, else once per loop's bundle."""
    if resources is not None:
        built = ConsultDeps.wire(resources)
        provide: Callable[[], ConsultDeps] = lambda: built  # noqa: E731
    else:
        provide = lambda: ConsultDeps.wire(default_resources())  # noqa: E731

    async def check_cache_node(state: ConsultState) -> dict[str, Any]:
        learner_id = state["learner_id"]  # bound to the authenticated learner (agent.identity)
        request = parse_request(state["request"])
        update = await check_cache(provide(), learner_id, request)
        update |= {"learner_id": learner_id, "request": request.model_dump(), "request_id": new_request_id()}
        if update["cached"] is not None:
            update["response"] = respond(update["request_id"], update["cached"], cached=True).model_dump()
        return update

    async def search_node(state: ConsultState) -> dict[str, Any]:
        return await search(provide(), state["learner_id"], ConsultRequest(**state["request"]))

    async def enrich_node(state: ConsultState) -> dict[str, Any]:
        return enrich(ConsultRequest(**state["request"]), state["found"], provide().clock)

    async def synthesise_node(state: ConsultState) -> dict[str, Any]:
        return await write_brief(
            provide(), state["learner_id"], ConsultRequest(**state["request"]), state["evidence"]
        )

    async def boost_node(state: ConsultState) -> dict[str, Any]:
        payload = payload_of(state["evidence"], state["brief"], state["brief_method"])
        await boost(provide(), state["learner_id"], state.get("cache_slot"), state["evidence"], payload)
        return {"response": respond(state["request_id"], payload, cached=False).model_dump()}

    builder = StateGraph(
        ConsultState, context_schema=Context, input_schema=ConsultInput, output_schema=ConsultOutput
    )
    nodes = {
        "check_cache": check_cache_node,
        "search": search_node,
        "enrich": enrich_node,
        "synthesise": synthesise_node,
        "boost": boost_node,
    }
    add_bound_nodes(builder, nodes)  # every node acts for the authenticated learner only
    builder.add_edge(START, "check_cache")
    builder.add_conditional_edges("check_cache", route_after_cache, ["search", END])
    builder.add_edge("search", "enrich")
    builder.add_edge("enrich", "synthesise")
    builder.add_edge("synthesise", "boost")
    builder.add_edge("boost", END)
    return builder


# Wiring only, no I/O: the stores are wired when the graph first runs on a loop's bundle.
builder = make_builder()
graph = builder.compile(name="consult")
