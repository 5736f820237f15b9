"""The ``archive`` step: MemGPT's eviction of the oldest queue share into a recursive summary.

``monitor`` routes here when memory pressure passes ``Context.pressure_threshold``. The
evicted messages are summarised (with the model, or as a raw excerpt when that fails),
folded into the previous summary and written to Neo4j as a ``SessionSummary``; the queue
is rewritten with the new summary at its head. A failed write keeps the queue intact.
"""

from __future__ import annotations

import logging

from langchain_core.messages import RemoveMessage, SystemMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import KAGError
from agent.heartbeat.state import HeartbeatState
from agent.heartbeat.summarizer import SummaryFailedError, render_excerpt, summarise
from agent.heartbeat.turn import SUMMARY_NAME, emit, run_context, session_id, split_summary
from agent.heartbeat.wiring import Wiring
from agent.heartbeat.working_memory import eviction_cut
from agent.models.offline_policy import is_policy_reply
from agent.tracing import trace_config

log = logging.getLogger("kag.heartbeat")


async def archive(
    wiring: Wiring, state: HeartbeatState, config: RunnableConfig, runtime: Runtime[Context]
) -> dict:
    """Evict the oldest share of the queue into a recursive summary in Neo4j."""
    ctx = run_context(runtime)
    previous, queue = split_summary(state.get("fifo_queue", []))
    cut = eviction_cut(queue, ctx.evict_fraction)
    evicted, kept = queue[:cut], queue[cut:]
    counters = {"archive_attempts": 1}
    if not evicted:
        return {"counters": counters}
    wired = wiring()
    stores = wired.stores
    raw = False
    try:
        text = await summarise(
            wired.resources.chat_model,
            previous,
            evicted,
            config=trace_config(state["learner_id"], "archive", state.get("step", 0)),
        )
    except SummaryFailedError as exc:
        log.warning("summarisation failed, archiving raw text: %s", exc)
        text, raw = (previous + "\n" + render_excerpt(evicted)).strip(), True
    try:
        # No drain first: evicted messages still on the kernel stream are linked
        # (SUMMARIZES) by the worker when it commits them (pending_message_ids).
        written = await stores.archival.write_summary(
            state["learner_id"],
            text,
            # Link only what recall storage holds: the offline policy's replies are not logged.
            message_ids=[str(m.id) for m in evicted if not is_policy_reply(m)],
            previous_summary_id=state.get("summary_id"),
            session_id=session_id(state, config),
            raw=raw,
        )
    except KAGError as exc:
        log.error("archive write failed; queue kept intact: %s", exc)
        emit(runtime, "archive", ok=False, error=str(exc))
        return {"counters": counters}
    summary_id = written.id
    head = SystemMessage(content=text, name=SUMMARY_NAME, id=f"summary-{summary_id}")
    emit(
        runtime,
        "archive",
        ok=True,
        evicted=len(evicted),
        kept=len(kept),
        summary_id=summary_id,
        raw=raw,
    )
    return {
        "fifo_queue": [RemoveMessage(id=REMOVE_ALL_MESSAGES), head, *kept],
        "summary_id": summary_id,
        "counters": {**counters, "archive_successes": 1, "archived_messages": len(evicted)},
    }
