"""What a recall message is: something someone said, or tool bookkeeping.

Recall storage keeps every message of a session. A tool call is rendered as
``[calls name(args)]`` on the assistant's message and a tool's output is a ``tool``
message: they record how memory was used, not what the learner or the tutor said.
The heartbeat writes that rendering; search, the kernel's derivations and the offline
policy read it back through this module (the mark itself, ``CALL_MARK``, is defined in
``agent.turns``, below every concern, so the offline policy needs no memory import).
"""

from __future__ import annotations

from agent.turns import CALL_MARK

TOOL_ROLE = "tool"
"""Recall's role of a tool's output."""


def is_bookkeeping(role: str | None, content: str | None) -> bool:
    """A tool result or a rendered tool call (never a turn, never embedded by recall)."""
    return role == TOOL_ROLE or (content or "").lstrip().startswith(CALL_MARK)
