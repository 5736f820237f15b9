"""Thread ownership: the learner is recorded at a thread's first write (no I/O here).

Key: ``P:{T}:owner`` (a string), in the thread's hash slot, so deleting the
thread deletes it too. The *principal* is who is asking: by default the
``langgraph_auth_user_id`` in the config; the server factory also reads the
request's auth context (``agent.server.checkpointer``). With no principal (plain
Python, tests, the server's own housekeeping) nothing is checked.

- A write claims an unowned thread and is refused with ``ThreadOwnedError`` when another
  learner owns it. ``put`` and ``put_writes`` do it inside their Lua scripts (the claim
  and the write are one atomic round trip); ``copy_thread`` with ``claim`` (``SET NX`` +
  ``GET`` in one MULTI/EXEC) before its copy.
- A read of a thread another learner owns sees nothing: no checkpoint, an empty
  history. So a thread id reused after the server lost its own records (a wipe,
  a new ops file) never shows the old owner's checkpoints.

Threads written before owners were recorded have none; the first learner who
writes to one claims it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig

from agent.checkpoint.requests import Batch, Op
from agent.errors import ThreadOwnedError

AUTH_USER_KEY = "langgraph_auth_user_id"
Principal = Callable[[RunnableConfig | None], str | None]


def config_principal(config: RunnableConfig | None) -> str | None:
    """The authenticated learner a LangGraph run carries in its config, if any."""
    configurable = (config or {}).get("configurable")
    value = configurable.get(AUTH_USER_KEY) if isinstance(configurable, Mapping) else None
    return str(value) if value not in (None, "") else None


def owner_key(saver: Any, thread_id: str) -> str:
    """Where the owner of ``thread_id`` is recorded."""
    return f"{saver.thread_base(thread_id)}:owner"


def claim(saver: Any, thread_id: str, config: RunnableConfig | None) -> Op:
    """Before a write: record the principal as owner, or refuse another learner's thread."""
    principal = saver.principal(config)
    if principal is None:
        return
    key = owner_key(saver, thread_id)
    # SET NX then GET in one MULTI/EXEC: whoever holds the key after it is the owner.
    _, owner = yield Batch([("SET", key, principal, "NX"), ("GET", key)], transaction=True)
    if owner is not None and _text(owner) != principal:
        raise_owned(thread_id)


def raise_owned(thread_id: str) -> None:
    """Refuse a write to a thread another learner owns."""
    raise ThreadOwnedError(
        f"thread {thread_id!r} already holds another learner's checkpoints; "
        "create a new thread (omit thread_id) instead of reusing this id"
    )


def visible(saver: Any, thread_ids: list[str], config: RunnableConfig | None) -> Op:
    """Before a read: the subset of ``thread_ids`` the principal may see."""
    principal = saver.principal(config)
    if principal is None or not thread_ids:
        return thread_ids
    owners = yield Batch([("GET", owner_key(saver, t)) for t in thread_ids])
    return [
        t for t, owner in zip(thread_ids, owners, strict=True) if owner is None or _text(owner) == principal
    ]


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
