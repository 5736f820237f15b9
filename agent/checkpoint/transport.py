"""Drivers that run ``ops`` generators over a real client: the only sync/async split.

A driver feeds each ``Batch`` to the transport's ``send``, reloads the Lua scripts
once when Redis reports NOSCRIPT (its script cache is empty after a restart), and
turns redis-py errors into ``StoreUnavailableError``/``StoreError``. A restart's LOADING
replies and stale pooled sockets are retried by the client itself (``agent.redis_retry``);
what still arrives here has outlasted that bounded retry.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from langgraph.checkpoint.base import CheckpointTuple
from redis.exceptions import BusyLoadingError, NoScriptError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from agent.checkpoint.lua import ALL_SCRIPTS
from agent.checkpoint.ops import Batch, Emit, Op
from agent.errors import StoreError, StoreUnavailableError

_LOAD_SCRIPTS = Batch([("SCRIPT", "LOAD", s.source) for s in ALL_SCRIPTS])
Send = Callable[[Batch], list[Any]]
ASend = Callable[[Batch], Awaitable[list[Any]]]


def _translate(exc: RedisError) -> Exception:
    if isinstance(exc, BusyLoadingError):
        return StoreUnavailableError("Redis", "still loading its data (AOF) after retries; retry in a moment")
    if isinstance(exc, (RedisConnectionError, RedisTimeoutError)):
        return StoreUnavailableError("Redis", str(exc))
    return StoreError(f"Redis command failed: {exc}")


def _call_sync(send: Send, req: Batch) -> list[Any]:
    try:
        try:
            return send(req)
        except NoScriptError:  # script cache flushed (e.g. Redis restarted)
            send(_LOAD_SCRIPTS)
            return send(req)
    except RedisError as exc:
        raise _translate(exc) from exc


async def _call_async(send: ASend, req: Batch) -> list[Any]:
    try:
        try:
            return await send(req)
        except NoScriptError:
            await send(_LOAD_SCRIPTS)
            return await send(req)
    except RedisError as exc:
        raise _translate(exc) from exc


def run_sync(op: Op, send: Send) -> Any:
    """Drive a non-listing ``op`` with a blocking ``send`` and return its result."""
    reply = None
    while True:
        try:
            req = op.send(reply)
        except StopIteration as stop:
            return stop.value
        reply = _call_sync(send, req)  # type: ignore[arg-type]


def iter_sync(op: Op, send: Send) -> Iterator[CheckpointTuple]:
    """Drive a listing ``op`` lazily, yielding each emitted tuple."""
    reply = None
    while True:
        try:
            req = op.send(reply)
        except StopIteration:
            return
        if isinstance(req, Emit):
            reply = None
            yield req.item
        else:
            reply = _call_sync(send, req)


async def run_async(op: Op, send: ASend) -> Any:
    """Async twin of :func:`run_sync`."""
    reply = None
    while True:
        try:
            req = op.send(reply)
        except StopIteration as stop:
            return stop.value
        reply = await _call_async(send, req)  # type: ignore[arg-type]


async def iter_async(op: Op, send: ASend) -> AsyncIterator[CheckpointTuple]:
    """Async twin of :func:`iter_sync`."""
    reply = None
    while True:
        try:
            req = op.send(reply)
        except StopIteration:
            return
        if isinstance(req, Emit):
            reply = None
            yield req.item
        else:
            reply = await _call_async(send, req)
