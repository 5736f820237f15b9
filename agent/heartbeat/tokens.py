"""Token counting for memory pressure.

The model's own count is used when it has one (``get_num_tokens_from_messages``
on a real chat model). Otherwise the design's documented fallback applies:
``ceil(chars / 4)`` per message plus a small per-message overhead.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role and separators, as chat templates add them


def count_text(text: str) -> int:
    """Tokens in ``text`` by the chars/4 fallback."""
    return math.ceil(len(text) / CHARS_PER_TOKEN)


def _message_text(message: BaseMessage) -> str:
    text = message.text if isinstance(message.content, list) else str(message.content)
    calls = getattr(message, "tool_calls", None) or []
    return text + "".join(f"{c['name']}{c['args']}" for c in calls)


def count_messages(messages: Iterable[BaseMessage], model: BaseChatModel | None = None) -> int:
    """Tokens in ``messages``, by ``model``'s tokenizer when it exposes a real one."""
    messages = list(messages)
    if model is not None and getattr(model, "has_native_token_count", False):
        return int(model.get_num_tokens_from_messages(messages))
    return sum(count_text(_message_text(m)) + MESSAGE_OVERHEAD for m in messages)
