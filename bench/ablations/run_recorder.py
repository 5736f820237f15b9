"""Record one request of a graph run from its stream into a ``RunRecord``.

Feed it every ``(mode, chunk)`` of ``graph.astream(..., stream_mode=STREAM_MODES)``:

- ``custom`` phase events (the heartbeat's, which the baseline graphs also emit):
  ``monitor`` and ``compile`` pressures, ``think`` steps, ``archive`` outcomes,
  ``notes`` artifacts;
- ``updates`` of the ``act`` node: its tool messages (name, error status, and the
  hits of search tools); of the ``retrieve`` node (RAG-only): the retrieved hits;
- ``values``: the final response and ``memory_state.degraded``.
"""

from __future__ import annotations

import json
from typing import Any

from langchain_core.messages import ToolMessage

from bench.ablations.run_record import RunRecord, ToolResult

STREAM_MODES = ["values", "custom", "updates"]
SEARCH_TOOLS = frozenset({"archival_memory_search", "conversation_search"})
TOOL_NODE = "act"
RETRIEVE_NODE = "retrieve"


def hit_texts(content: Any) -> list[str]:
    """Texts of the hits in a search tool's JSON output (``[]`` when it is not one)."""
    text = content if isinstance(content, str) else json.dumps(content, default=str)
    try:
        data = json.loads(text)
    except ValueError:
        return []
    hits = data.get("results") if isinstance(data, dict) else None
    if not isinstance(hits, list):
        return []
    return [str(h.get("text", "")) if isinstance(h, dict) else str(h) for h in hits]


def _tool_messages(update: Any) -> list[ToolMessage]:
    if not isinstance(update, dict):
        return []
    found: list[ToolMessage] = []
    for value in update.values():
        if isinstance(value, list):
            found.extend(m for m in value if isinstance(m, ToolMessage))
    return found


class TurnRecorder:
    """Accumulates one request's stream; ``record()`` returns its ``RunRecord``."""

    def __init__(
        self,
        *,
        variant: str,
        session: str,
        turn: int,
        request: str,
        max_tokens: int,
        max_steps: int,
        pressure_threshold: float,
        expected: str | None = None,
        fact_turn: int | None = None,
    ) -> None:
        """Describe the request being recorded; the stream fills in the rest."""
        self._fixed = {
            "variant": variant,
            "session": session,
            "turn": turn,
            "request": request,
            "max_tokens": max_tokens,
            "max_steps": max_steps,
            "pressure_threshold": pressure_threshold,
            "expected": expected,
            "fact_turn": fact_turn,
        }
        self.monitor: list[float] = []
        self.prompts: list[float] = []
        self.steps = 0
        self.tools: list[ToolResult] = []
        self.archives: list[bool] = []
        self.retrieved: list[str] = []
        self.notes = 0
        self.response = ""
        self.degraded = False

    def feed(self, mode: str, chunk: Any) -> None:
        """Take one ``(mode, chunk)`` of the stream."""
        if mode == "custom" and isinstance(chunk, dict):
            self._custom(chunk)
        elif mode == "updates" and isinstance(chunk, dict):
            for node, update in chunk.items():
                self._update(node, update)
        elif mode == "values" and isinstance(chunk, dict):
            self.response = str(chunk.get("response") or self.response)
            state = chunk.get("memory_state") or {}
            self.degraded = self.degraded or bool(chunk.get("degraded")) or bool(state.get("degraded"))

    def _custom(self, event: dict[str, Any]) -> None:
        phase = event.get("phase")
        if phase == "monitor" and "pressure" in event:
            self.monitor.append(float(event["pressure"]))
        elif phase == "compile" and "pressure" in event:
            self.prompts.append(float(event["pressure"]))
        elif phase == "think":
            self.steps = max(self.steps, int(event.get("step", 0)))
        elif phase == "archive":
            self.archives.append(bool(event.get("ok")))
        elif phase == "notes":
            self.notes += len(event.get("artifacts") or [])

    def _update(self, node: str, update: Any) -> None:
        if node == TOOL_NODE:
            for message in _tool_messages(update):
                ok = message.status != "error"
                self.tools.append(ToolResult(name=message.name or "", ok=ok))
                if ok and message.name in SEARCH_TOOLS:
                    self.retrieved.extend(hit_texts(message.content))
        elif node == RETRIEVE_NODE:
            for message in _tool_messages(update):
                self.retrieved.extend(hit_texts(message.content))

    def record(self) -> RunRecord:
        """The ``RunRecord`` of what was fed so far."""
        return RunRecord(
            **self._fixed,
            response=self.response,
            monitor_pressures=tuple(self.monitor),
            prompt_pressures=tuple(self.prompts),
            steps=self.steps,
            tool_results=tuple(self.tools),
            archive_events=tuple(self.archives),
            retrieved=tuple(self.retrieved),
            notes_written=self.notes,
            degraded=self.degraded,
        )
