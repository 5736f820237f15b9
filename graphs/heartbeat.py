"""The heartbeat graph: receive → monitor → (archive) → compile → think → act, looping.

```
receive → monitor ─(pressure > threshold)→ archive → compile → think ─(tool call)→ act ─┐
             ↑                                                  └─(answer)→ END        │
             └─────────────────────────────────────────────────────────────────────────┘
think ─(answer and context.end_session)→ notes (the Zettelkasten subgraph) → END
```
Each step is one function in its own module of ``agent.heartbeat``, read top to bottom;
``receive`` also appraises the request and a ``think`` step that answers also finishes it
(``agent.heartbeat.phases``). Input is ``request`` or the chat convention's ``messages``
(``agent.heartbeat.chat_input``); a client's ``messages`` stream carries the learner's
message and the answer only (``agent.heartbeat.chat_stream``).
``graph`` is what ``langgraph.json`` serves as ``kag``; tests build their own
with ``make_builder(Resources(..., chat_model=fake))``.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

from langgraph.graph import END, START, StateGraph

from agent.context import Context
from agent.heartbeat.act import act
from agent.heartbeat.archiving import archive
from agent.heartbeat.chat_stream import display_only
from agent.heartbeat.monitor import monitor
from agent.heartbeat.receive import receive
from agent.heartbeat.session_end import notes
from agent.heartbeat.state import HeartbeatInput, HeartbeatOutput, HeartbeatState
from agent.heartbeat.think import calls_tools, compile_, think
from agent.heartbeat.wiring import Wiring
from agent.identity import add_bound_nodes
from agent.resources import Resources, default_resources
from graphs.zettelkasten import make_builder as make_zettelkasten_builder
from tools.cognitive_tools import make_cognitive_tools
from tools.consult_tools import make_consult_tools
from tools.memory_tools import make_memory_tools
from tools.note_tools import make_note_tools


def route_after_monitor(state: HeartbeatState) -> Literal["archive", "compile"]:
    """Archive when the monitor raised its interrupt (``archive_due``).

    State alone decides, so a client's ``update_state(..., as_node="monitor")`` (no run,
    no ``Context``) routes too.
    """
    return "archive" if state.get("archive_due") else "compile"


def route_after_think(state: HeartbeatState) -> Literal["act", "notes", "__end__"]:
    """Act on tool calls; after an answer, go to ``notes`` when the request closes the session.

    State alone decides, so a client's ``update_state(..., as_node="think")`` (no run, no
    ``Context``) routes too; the Zettelkasten subgraph honours ``Context.zettelkasten``.
    """
    if calls_tools(state):
        return "act"
    return "notes" if state.get("context", {}).get("end_session") else END


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
    zettelkasten = make_zettelkasten_builder(resources).compile(name="zettelkasten")
    # One function per step, each given the wiring once, here (agent.heartbeat.<step>).
    nodes = {
        "receive": partial(receive, wiring),  # then appraise: one checkpoint
        "monitor": partial(monitor, wiring),  # fire reminders, measure pressure
        "archive": partial(archive, wiring),
        "compile": compile_,
        "think": partial(think, wiring),  # an answer then finishes the request: one checkpoint
        "act": partial(act, wiring),  # search results become slots
        "notes": partial(notes, wiring, zettelkasten),
    }
    builder = StateGraph(
        HeartbeatState,
        context_schema=Context,
        input_schema=HeartbeatInput,
        output_schema=HeartbeatOutput,
    )
    # A chat client's message stream shows the display channel only, never the queue or the prompt.
    nodes = {name: display_only(node) for name, node in nodes.items()}
    add_bound_nodes(builder, nodes)  # every node acts for the authenticated learner only
    builder.add_edge(START, "receive")
    builder.add_edge("receive", "monitor")
    builder.add_conditional_edges("monitor", route_after_monitor, ["archive", "compile"])
    builder.add_edge("archive", "compile")
    builder.add_edge("compile", "think")
    builder.add_conditional_edges("think", route_after_think, ["act", "notes", END])
    builder.add_edge("act", "monitor")
    builder.add_edge("notes", END)
    return builder


# Wiring only, no I/O: stores and tracing are set up when the graph first runs
# (``Resources``/``default_resources``; the server's checkpointer factory).
builder = make_builder()
graph = builder.compile(name="kag")
