"""State of the baseline graphs (fixed window, sliding window, RAG-only).

They take the heartbeat's input and give its output (``HeartbeatInput`` /
``HeartbeatOutput``), so one runner and one recorder serve every variant.
"""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages

from agent.heartbeat.state import MemoryState, RequestContext


class BaselineState(TypedDict):
    """Everything a baseline keeps for one thread (checkpointed)."""

    learner_id: str
    """Owner of the thread."""
    request: str
    """The request being served."""
    context: RequestContext
    """Request context (session id, end_session, …)."""
    history: list[AnyMessage]
    """The retained dialogue: a window keeps at most ``max_tokens`` of it; RAG-only keeps none."""
    turn: Annotated[list[AnyMessage], add_messages]
    """Messages of the current request: the learner's, tool calls and results, the answer."""
    step: int
    """Model calls for the current request."""
    pressure: float
    """Tokens of the latest prompt over ``max_tokens``."""
    response: str
    """The final answer of the current request."""
    artifacts: list[dict[str, Any]]
    """Always empty: baselines write no notes."""
    memory_state: MemoryState
    """The output's memory block."""
    degraded: bool
    """True when recall storage ran in Redis-only mode (RAG-only)."""
