"""The heartbeat graph: appraise, then monitor → (archive) → compile → think → act, looping.

```
receive → appraise → monitor ─(pressure > threshold)→ archive → compile → think ─(tool call)→ act ─┐
                        ↑                                                    └─(answer)→ finish   │
                        └──────────────────────────────────────────────────────────────────────────┘
finish ─(context.end_session)→ notes (the Zettelkasten subgraph) → END
```
``appraise`` (``agent.heartbeat.cognition``) classifies the request's intent, sets its
step budget and, for complex intents, runs plan → search → evaluate sufficiency into
working memory slots before the first think step. ``monitor`` fires reminders into the
slots, ``act`` turns search results into slots, ``finish`` reports the effort, clears the
slots and consolidates episodes. The tools are the MemGPT memory tools, the note tools
and the cognitive memory tools (facts, procedures, reminders).
``graph`` is what ``langgraph.json`` serves as ``kag``; tests build their own
with ``make_builder(Resources(..., chat_model=fake))``.
"""

from __future__ import annotations

from typing import Literal

from langgraph.graph import END, START, StateGraph
from langgraph.runtime import Runtime

from agent.context import Context
from agent.heartbeat.archiving import make_archive_node
from agent.heartbeat.cognition import make_cognitive_nodes
from agent.heartbeat.nodes import make_nodes, run_context, split_summary
from agent.heartbeat.session_end import make_notes_node
from agent.heartbeat.state import HeartbeatInput, HeartbeatOutput, HeartbeatState
from agent.heartbeat.wiring import Wiring
from agent.heartbeat.working_memory import eviction_cut
from agent.identity import add_bound_nodes
from agent.resources import Resources, default_resources
from graphs.zettelkasten import make_builder as make_zettelkasten_builder
from tools.cognitive_tools import make_cognitive_tools
from tools.consult_tools import make_consult_tools
from tools.memory_tools import make_memory_tools
from tools.note_tools import make_note_tools


def route_after_monitor(state: HeartbeatState, runtime: Runtime[Context]) -> Literal["archive", "compile"]:
    """Archive when pressure is over the threshold and something can be evicted."""
    ctx = run_context(runtime)
    if not ctx.auto_archive or state.get("pressure", 0.0) <= ctx.pressure_threshold:
        return "compile"
    _, queue = split_summary(state.get("fifo_queue", []))
    return "archive" if eviction_cut(queue, ctx.evict_fraction) > 0 else "compile"


def route_after_think(state: HeartbeatState) -> Literal["act", "finish"]:
    """Act on tool calls; anything else is the final answer."""
    last = state["fifo_queue"][-1]
    return "act" if getattr(last, "tool_calls", None) else "finish"


def route_after_finish(state: HeartbeatState, runtime: Runtime[Context]) -> Literal["notes", "__end__"]:
    """Write Zettelkasten notes when the request closes the session."""
    wants = bool(state.get("context", {}).get("end_session"))
    return "notes" if wants and run_context(runtime).zettelkasten else END


def make_builder(resources: Resources | None = None) -> StateGraph:
    """Wire the heartbeat over ``resources`` (default: per-loop bundle from the environment)."""
    provide = (lambda: resources) if resources is not None else default_resources
    # Stores and tools, built once per bundle: MemGPT memory, cognitive memory and note tools.
    wiring = Wiring(
        provide,
        lambda stores: [
            *make_memory_tools(stores),
            *make_cognitive_tools(stores),
            *make_note_tools(provide),
            *make_consult_tools(stores, provide),
        ],
    )
    nodes = make_nodes(wiring)
    nodes["archive"] = make_archive_node(wiring)
    nodes.update(make_cognitive_nodes(wiring, nodes))
    nodes["notes"] = make_notes_node(
        make_zettelkasten_builder(resources).compile(name="zettelkasten"), wiring
    )
    builder = StateGraph(
        HeartbeatState,
        context_schema=Context,
        input_schema=HeartbeatInput,
        output_schema=HeartbeatOutput,
    )
    add_bound_nodes(builder, nodes)  # every node acts for the authenticated learner only
    builder.add_edge(START, "receive")
    builder.add_edge("receive", "appraise")
    builder.add_edge("appraise", "monitor")
    builder.add_conditional_edges("monitor", route_after_monitor, ["archive", "compile"])
    builder.add_edge("archive", "compile")
    builder.add_edge("compile", "think")
    builder.add_conditional_edges("think", route_after_think, ["act", "finish"])
    builder.add_edge("act", "monitor")
    builder.add_conditional_edges("finish", route_after_finish, ["notes", END])
    builder.add_edge("notes", END)
    return builder


# Wiring only, no I/O: stores and tracing are set up when the graph first runs
# (``Resources``/``default_resources``; the server's checkpointer factory).
builder = make_builder()
graph = builder.compile(name="kag")
