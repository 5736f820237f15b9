"""What reaches a chat client's message stream: the learner's message and the tutor's answer.

LangGraph's ``stream_mode="messages"`` (the server's ``messages-tuple``, which Agent Chat UI
and Studio render as the conversation) is fed by ``StreamMessagesHandler``
(``langgraph/pregel/_messages.py``) from two sources:

1. the tokens of every chat model call not tagged ``TAG_NOSTREAM`` (``nostream``);
2. every message a node returns, in any state key, unless the node's input held its id
   (no key filter: langgraph#6798).

The heartbeat's model calls are internal (appraisal, summaries, notes, think steps that call
tools): ``agent.tracing.trace_config`` tags them ``TAG_NOSTREAM``. Its internal channels
(``fifo_queue``, ``prompt``) hold the system prompt with core memory and working memory, tool
calls and tool results: ``display_only`` wraps every node so that only what it writes to the
display channel ``messages`` can reach the stream. The think step's answer goes out through
``AnswerRelay`` as it arrives (``langgraph.graph.message.push_message``): chunks under one id,
the id the answer is then stored under in ``fifo_queue`` and ``messages``. Tool activity stays
in ``custom`` events and ``updates``, which this module does not touch.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping
from functools import partial
from typing import Any

from langchain_core.callbacks import BaseCallbackManager
from langchain_core.language_models import LanguageModelInput
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, message_chunk_to_message
from langchain_core.runnables import Runnable, RunnableConfig
from langgraph.graph.message import push_message
from langgraph.pregel._messages import StreamMessagesHandler  # as push_message finds it
from langgraph.runtime import Runtime

from agent.heartbeat.phases import caller

DISPLAY_KEY = "messages"
"""The state key whose messages a chat client sees."""
_MARKERS = ("[FUNCTION]", "[FINAL_ANSWER]")


def message_handlers(config: RunnableConfig) -> list[StreamMessagesHandler]:
    """The run's ``messages`` stream handlers (none when nobody streams messages)."""
    callbacks = config.get("callbacks")
    handlers = callbacks.handlers if isinstance(callbacks, BaseCallbackManager) else callbacks
    return [h for h in handlers or [] if isinstance(h, StreamMessagesHandler)]


def internal_messages(update: Mapping[str, Any], key: str = DISPLAY_KEY) -> list[BaseMessage]:
    """Messages ``update`` writes outside ``key``, less those it also writes to ``key``."""
    shown = {m.id for m in _messages(update.get(key))}
    return [
        m for k, v in update.items() if k != key for m in _messages(v) if m.id is None or m.id not in shown
    ]


def _messages(value: Any) -> list[BaseMessage]:
    if isinstance(value, BaseMessage):
        return [value]
    if isinstance(value, list | tuple):
        return [m for m in value if isinstance(m, BaseMessage)]
    return []


def keep_off_stream(config: RunnableConfig, messages: Iterable[BaseMessage]) -> None:
    """Tell the run's ``messages`` handlers these were delivered already, so they never stream.

    The handler skips a node's output message whose id it has seen; a message without an id
    gets one here (the queue's reducer would give it one anyway).
    """
    handlers = message_handlers(config)
    if not handlers:
        return
    ids = set()
    for message in messages:
        if message.id is None:
            message.id = str(uuid.uuid4())
        ids.add(message.id)
    for handler in handlers:
        handler.seen.update(ids)


def display_only(node: Callable[..., Any], key: str = DISPLAY_KEY) -> Callable[..., Any]:
    """Wrap a node so only the messages it writes to ``key`` can reach the ``messages`` stream."""
    call = caller(node)

    async def step(state: dict, config: RunnableConfig, runtime: Runtime) -> Any:
        update = await call(state, config, runtime)
        if isinstance(update, Mapping):
            keep_off_stream(config, internal_messages(update, key))
        return update

    # A step given its dependencies with functools.partial is named by the function it binds.
    named = getattr(node, "func", node)
    step.__name__, step.__qualname__, step.__doc__ = named.__name__, named.__qualname__, named.__doc__
    return step


class AnswerRelay:
    """Forwards one think step's answer to the client's ``messages`` stream as the model writes it.

    ``offer`` gets the reply so far after each chunk and pushes the new text, as
    ``AIMessageChunk`` under ``id``. Nothing more is pushed once a tool call begins, and under
    the text protocol nothing until the reply cannot be a ``[FUNCTION]`` call. Trailing
    whitespace waits for what follows it. ``finish`` pushes what the stream has not shown of
    the final answer and returns the id to store it under; if the answer does not continue what
    was shown (a retry, a fallback, a forced final answer) it goes out whole under a new id.
    Text a model wrote before a tool call in the same reply was shown under an id no stored
    message has: a client drops it at the next ``values`` event.
    """

    def __init__(
        self,
        config: RunnableConfig,
        *,
        text_protocol: bool,
        push: Callable[[AIMessageChunk], Any] | None = None,
    ) -> None:
        """Relay for the step running under ``config``; ``push`` defaults to the run's stream."""
        live = bool(message_handlers(config))
        self.push = push or (partial(push_message, state_key=None) if live else None)
        self.text_protocol = text_protocol
        self.id = str(uuid.uuid4())
        self.sent = ""
        self.closed = False

    def visible(self, text: str) -> str | None:
        """What the learner may see of the reply so far; None while it may be a text-protocol call."""
        if not self.text_protocol:
            return text
        head = text.lstrip()
        if head.startswith("[FINAL_ANSWER]"):
            return head.removeprefix("[FINAL_ANSWER]").lstrip()
        if head.startswith("[FUNCTION]") or any(marker.startswith(head) for marker in _MARKERS):
            return None
        return head

    def offer(self, text: str, calling: bool) -> None:
        """The reply so far (``text``); ``calling``: it has begun a tool call."""
        if self.closed or calling:
            self.closed = True
            return
        shown = self.visible(text)
        if shown is None:
            return
        shown = shown.rstrip()
        if len(shown) > len(self.sent) and shown.startswith(self.sent):
            self._push(shown[len(self.sent) :])
            self.sent = shown

    def finish(self, answer: str) -> str:
        """Show the rest of ``answer``; the id it is stored under."""
        if not answer.startswith(self.sent):
            self.id, self.sent = str(uuid.uuid4()), ""
        if len(answer) > len(self.sent):
            self._push(answer[len(self.sent) :])
        self.sent, self.closed = answer, True
        return self.id

    def _push(self, text: str) -> None:
        if self.push is not None:  # nobody streams messages: nothing to send
            self.push(AIMessageChunk(content=text, id=self.id))


async def stream_reply(
    model: Runnable[LanguageModelInput, BaseMessage],
    prompt: LanguageModelInput,
    config: RunnableConfig,
    relay: AnswerRelay,
) -> AIMessage:
    """Call ``model`` streaming (``config`` tags it ``nostream``), offering each step to ``relay``.

    A model that cannot stream yields its whole reply once; the result is the same message.
    """
    reply: BaseMessage | None = None
    async for chunk in model.astream(prompt, config):
        reply = chunk if reply is None else reply + chunk  # type: ignore[operator]
        calling = bool(getattr(reply, "tool_call_chunks", None) or getattr(reply, "tool_calls", None))
        relay.offer(reply.text, calling)
    if reply is None:
        return AIMessage(content="")
    return message_chunk_to_message(reply) if isinstance(reply, AIMessageChunk) else reply  # type: ignore[return-value]
