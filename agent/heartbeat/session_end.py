"""The heartbeat's ``notes`` step: at session end, the Zettelkasten subgraph writes notes."""

from __future__ import annotations

import logging
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.config import merge_configs
from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import KAGError
from agent.heartbeat.state import HeartbeatState
from agent.heartbeat.summarizer import role_of
from agent.heartbeat.turn import emit, run_context, session_id, split_summary
from agent.heartbeat.wiring import Wiring
from agent.tracing import trace_config
from agent.turns import CALL_MARK

log = logging.getLogger("kag.heartbeat")


async def notes(
    wiring: Wiring,
    zettelkasten: Runnable[dict[str, Any], dict[str, Any]],
    state: HeartbeatState,
    config: RunnableConfig,
    runtime: Runtime[Context],
) -> dict:
    """Turn the session into atomic notes and concept maps with the compiled Zettelkasten subgraph.

    Its ``ARTIFACT_READY`` events reach the client's custom stream.
    """
    stores = wiring().stores
    try:
        # Recall storage holds the whole session, including turns evicted into summaries.
        logged = await stores.recall.session_transcript(state["learner_id"], session_id(state, config))
    except KAGError as exc:
        log.error("session transcript unavailable, using the queue: %s", exc)
        logged = [{"role": role_of(m), "content": m.text} for m in split_summary(state["fifo_queue"])[1]]
    transcript = [
        t
        for t in logged
        if t["role"] in {"user", "assistant"}
        and t["content"].strip() not in {"", "(empty)"}
        and not t["content"].startswith(CALL_MARK)  # a tool call, not something the tutor said
    ]
    result = await zettelkasten.ainvoke(
        {
            "learner_id": state["learner_id"],
            "transcript": transcript,
            "current_concept": state.get("context", {}).get("current_concept"),
            "session_id": session_id(state, config),
        },
        merge_configs(config, trace_config(state["learner_id"], "notes", run_name="zettelkasten")),
        context=run_context(runtime),
    )
    artifacts = list(result.get("artifacts", []))
    failures = list(result.get("failures", []))
    if failures:
        log.warning("%d note(s) failed to extract: %s", len(failures), failures[:3])
    emit(runtime, "notes", artifacts=[a["note_id"] for a in artifacts], failures=len(failures))
    return {"artifacts": artifacts, "counters": {"notes_written": len(artifacts)}}
