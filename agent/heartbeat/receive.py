"""The ``receive`` step: take the request into the queue, then appraise it (one checkpoint).

The request is the input's ``request``, else the chat client's message already in
``messages`` (``agent.heartbeat.chat_input``), which keeps its id and is not appended
again. Appraisal (``agent.heartbeat.appraisal``) belongs to receiving, so it runs as the
step's second phase on the state with the request applied (``agent.heartbeat.phases``).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Mapping
from typing import Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph.message import REMOVE_ALL_MESSAGES
from langgraph.runtime import Runtime

from agent.context import Context
from agent.errors import StoreUnavailableError
from agent.heartbeat.appraisal import appraise
from agent.heartbeat.chat_input import learner_message
from agent.heartbeat.phases import after, combine
from agent.heartbeat.sensing import sense_request
from agent.heartbeat.turn import emit, recall_message, run_context, session_id
from agent.heartbeat.wiring import Wiring
from agent.memory.recall import LogResult
from agent.memory.stores import MemoryStores
from agent.validation import learner_hash, validate_request_context

log = logging.getLogger("kag.heartbeat")

SEEDED_TURNS = 50
"""At most this many turns of ``context.session_history`` seed a new thread's queue."""


async def receive(wiring: Wiring, state: dict, config: RunnableConfig, runtime: Runtime[Context]) -> dict:
    """Validate input, bind the learner, load core memory, sense and enqueue the request; appraise it."""
    update = await take_request(wiring, state, config, runtime)
    return combine(update, await appraise(wiring, after(state, update), runtime))


async def take_request(
    wiring: Wiring, state: dict, config: RunnableConfig, runtime: Runtime[Context]
) -> dict:
    """The request into the queue, the display and recall storage; core memory read beside it."""
    learner_id = state["learner_id"]  # bound to the authenticated learner (agent.identity)
    message = learner_message(state)
    # The request context is client input too: checked before anything is written.
    state = {**state, "context": validate_request_context(state.get("context"))}
    ctx = run_context(runtime)
    stores = wiring().stores
    seed = seeded_history(state)
    human = message.human()

    async def sense_and_log() -> LogResult:
        attended = await sense_request(stores, learner_id, message.text, state["context"])
        recalled = [*(recall_message(m) for m in seed), recall_message(human, attended)]
        return await stores.recall.log_messages(learner_id, session_id(state, config), recalled)

    # Independent round trips: the core memory read overlaps sensing and logging.
    core, logged = await asyncio.gather(read_core(stores, state, ctx.core_ttl_seconds), sense_and_log())
    emit(
        runtime,
        "receive",
        learner=learner_hash(learner_id),
        queue_size=len(state.get("fifo_queue", [])) + 1,
    )
    # A chat client's message stands before the seeded history: rewrite a new thread's display.
    restart = [RemoveMessage(id=REMOVE_ALL_MESSAGES)] if seed and message.pending else []
    return {
        "request": "",  # consumed: a run failing later leaves no request to serve again
        "context": state["context"],
        "learner_id": learner_id,
        "messages": [*restart, *seed, human],
        "fifo_queue": [*seed, human],
        "core_memory": core,
        "step": 0,
        "response": "",
        "artifacts": [],
        "degraded": logged.degraded,
    }


def seeded_history(state: Mapping[str, Any]) -> list[AnyMessage]:
    """A new thread's queue starts from the request's ``session_history`` (none once it has a queue)."""
    if state.get("fifo_queue"):
        return []
    seed: list[AnyMessage] = []
    for turn in state.get("context", {}).get("session_history", [])[-SEEDED_TURNS:]:
        cls = HumanMessage if turn.get("role") == "user" else AIMessage
        seed.append(cls(content=str(turn.get("content", "")), id=str(uuid.uuid4())))
    return seed


async def read_core(stores: MemoryStores, state: Mapping[str, Any], ttl_seconds: int) -> dict[str, str]:
    """The learner's core memory; the checkpointed mirror when the store is down."""
    try:
        return await stores.core.read(state["learner_id"], ttl_seconds=ttl_seconds)
    except StoreUnavailableError as exc:
        log.error("core memory unavailable, using the checkpointed mirror: %s", exc)
        return dict(state.get("core_memory") or {})
