"""Working memory arithmetic: compile the prompt, measure pressure, pick evictions.

The prompt is ``[SYSTEM + CORE MEMORY + WORKING MEMORY SLOTS] + [FIFO QUEUE]``;
compiling costs O(queue size + slots). The task slots (``agent.heartbeat.slots``, at
most 20) render right after core memory, and only when there are any. Evictions take
the oldest share of the queue but never separate an assistant tool call from its tool
results; slots are never evicted by archiving (they are bounded on their own).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from agent.heartbeat.prompts import core_memory_block, system_instructions
from agent.heartbeat.slots import Slot, render_slots
from agent.heartbeat.tokens import count_messages


def compile_prompt(
    core_memory: Mapping[str, str],
    queue: Sequence[AnyMessage],
    *,
    text_protocol: bool = False,
    slots: Sequence[Slot] = (),
) -> list[BaseMessage]:
    """Build ``[SYSTEM] + [CORE MEMORY] + [SLOTS] + [FIFO QUEUE]``: one system message and the queue.

    One system message keeps providers that accept a single system turn happy.
    """
    system = system_instructions(core_memory, text_protocol=text_protocol)
    parts = [system, core_memory_block(core_memory), render_slots(slots)]
    head = SystemMessage(content="\n\n".join(p for p in parts if p))
    return [head, *queue]


def pressure(prompt: Sequence[BaseMessage], max_tokens: int, model: BaseChatModel | None = None) -> float:
    """Tokens of ``prompt`` over ``max_tokens``."""
    return count_messages(prompt, model) / max_tokens


def eviction_cut(queue: Sequence[AnyMessage], fraction: float) -> int:
    """Index that splits off the oldest ``fraction`` of ``queue`` (0 means nothing to evict).

    The cut moves forward past tool results so a tool call and its results
    leave together, and it never reaches the current turn (from the latest
    learner message on), which the model is still answering.
    """
    current = max((i for i, m in enumerate(queue) if isinstance(m, HumanMessage)), default=len(queue))
    if len(queue) < 2 or current == 0:
        return 0
    start = min(max(1, math.ceil(len(queue) * fraction)), current)
    cut = start
    while cut < len(queue) and isinstance(queue[cut], ToolMessage):
        cut += 1
    if cut >= len(queue):
        # Moving forward would evict everything: move back before the tool call instead.
        cut = start
        while cut > 0 and isinstance(queue[cut], ToolMessage):
            cut -= 1
    # An assistant tool call at the edge stays with its (kept) results.
    if 0 < cut < len(queue) and isinstance(queue[cut - 1], AIMessage) and queue[cut - 1].tool_calls:
        cut -= 1
    return min(cut, current)
