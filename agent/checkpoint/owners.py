"""Thread ownership: the learner is recorded at a thread's first write (no I/O here).

Key: ``P:{T}:owner`` (a string), in the thread's hash slot, so deleting the
thread deletes it too. The *principal* is who is asking: by default the
``langgraph_auth_user_id`` in the config; the server factory also reads the
request's auth context (``agent.server.checkpointer``). With no principal (plain
Python, tests, the server's own housekeeping) nothing is checked.

- A write claims an unowned thread and is refused with ``ThreadOwnedError`` when another
  learner owns it, atomically with the write (inside ``put``'s and ``put_writes``' Lua
  scripts; ``copy_thread`` claims first).
- A read of a thread another learner owns sees nothing, so a thread id reused after the
  server lost its own records never shows the old owner's checkpoints.

Threads written before owners were recorded have none; the first learner who
writes to one claims it.

Every write also lists the thread in an owner index (``index_write``): ``P:owned:L``
for principal ``L``, ``P:unowned`` without one. The index is prefix-wide (another
Redis Cluster slot), so it is written before the thread's script, like ``P:threads``;
erasure (``agent.checkpoint.erase``) reads it instead of scanning every thread. Local
runs (the CLI, notebooks) name their learner with ``owned_config``, so their threads
are owned and indexed exactly like the server's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import quote, unquote

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


def owned_config(thread_id: str, learner_id: str) -> RunnableConfig:
    """The config of a local run for ``learner_id``: its checkpoints record them as the owner."""
    return {"configurable": {"thread_id": thread_id, AUTH_USER_KEY: learner_id}}


def index_write(saver: Any, principal: str | None, thread_id: str) -> tuple[str, str, str]:
    """The owner-index command of a write: ``SADD P:owned:L T`` (or ``P:unowned``)."""
    key = saver.owned_key(principal) if principal is not None else saver.unowned_key()
    return ("SADD", key, quote(thread_id, safe=""))  # as ``base.q``


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
    index = [index_write(saver, principal, thread_id)]
    _, owner = yield Batch([("SET", key, principal, "NX"), ("GET", key)], transaction=True, index=index)
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


INDEX_FIELD = "owners"
"""``P:meta`` field set once the owner index covers the threads written before it existed."""


def build_index(saver: Any) -> Op:
    """Index the threads written before the owner index existed (once per prefix, idempotent).

    ``setup()`` runs it: every ``threads`` member goes to its owner's index, or to
    ``P:unowned``. Writes meanwhile index themselves; two processes doing it at once
    only repeat idempotent SADDs.
    """
    (done,) = yield Batch([("HGET", saver.meta_key(), INDEX_FIELD)])
    if done is not None:
        return
    cursor: Any = 0
    while True:
        ((cursor, members),) = yield Batch([("SSCAN", saver.threads_key(), cursor, "COUNT", 1000)])
        if members:
            owners = yield Batch([("GET", owner_key(saver, unquote(_text(m)))) for m in members])
            pairs = zip(members, owners, strict=True)
            yield Batch([index_write(saver, _text(o) if o else None, unquote(_text(m))) for m, o in pairs])
        if int(cursor) == 0:
            break
    yield Batch([("HSET", saver.meta_key(), INDEX_FIELD, "1")])
