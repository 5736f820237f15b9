"""CPU priority for background work: the kernel's encodes yield the cores to live turns.

The kernel worker runs in the same process as the graphs (the server's lifespan, a bench)
and its batches embed up to ``batch_size`` texts at once, a CPU-bound encode that on two
cores competed with the turns running beside it (the heartbeat bench's p95 no-tool turn
was 20 ms without the worker and 37 ms with it; 29 ms once its encodes ran here). Code
that runs inside ``background()`` (the worker's poll loop and every task it starts) sends
its CPU-bound calls to ``BACKGROUND_THREADS`` dedicated threads whose scheduling priority
is lowered (``nice`` ``BACKGROUND_NICE``, a per-thread setting on Linux). Torch's OpenMP
team is per calling thread and inherits that priority, so the encode still uses every
idle core but gives them up to a turn at once (the ONNX Runtime embedder runs these calls
on a session of their own, ``agent.models.onnx_encoder``). Everything else (a turn's query
embedding, a drain called directly by a test) runs in the default executor at normal
priority, as before.

Where the OS refuses (not Linux, or a sandbox without ``setpriority``) the thread runs at
normal priority: slower turns under load, never a failure.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import functools
import logging
import os
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)

BACKGROUND_NICE = 10
"""Added to a background thread's nice value (0 → 10: about a tenth of a normal thread's
CPU share when both want a core; all of an idle core otherwise)."""

BACKGROUND_THREADS = 2
"""Low-priority threads: the kernel worker drains two learners at once, and one's tokenising
(Python) overlaps the other's encode (torch), as with the default executor before."""

_IN_BACKGROUND: contextvars.ContextVar[bool] = contextvars.ContextVar("kag_background", default=False)
_THREAD = threading.local()
_executor: ThreadPoolExecutor | None = None
_executor_lock = threading.Lock()


def _lower_priority() -> None:
    """Thread initializer: mark this thread as background and raise its nice value (Linux: per thread)."""
    _THREAD.background = True
    try:
        tid = threading.get_native_id()
        os.setpriority(os.PRIO_PROCESS, tid, os.getpriority(os.PRIO_PROCESS, tid) + BACKGROUND_NICE)
    except (AttributeError, OSError) as exc:  # not Linux, or not permitted: normal priority
        log.info("background thread keeps normal priority: %s", exc)


def _background_executor() -> ThreadPoolExecutor:
    """The low-priority threads, started on first use (never at import)."""
    global _executor
    with _executor_lock:
        if _executor is None:
            _executor = ThreadPoolExecutor(
                max_workers=BACKGROUND_THREADS,
                thread_name_prefix="kag-background",
                initializer=_lower_priority,
            )
        return _executor


@contextlib.contextmanager
def background() -> Iterator[None]:
    """Mark the current context (and tasks started from it) as background work."""
    token = _IN_BACKGROUND.set(True)
    try:
        yield
    finally:
        _IN_BACKGROUND.reset(token)


def in_background() -> bool:
    """True inside ``background()``."""
    return _IN_BACKGROUND.get()


def on_background_thread() -> bool:
    """True on one of the low-priority threads (where ``run_cpu`` sends background work).

    The executor does not carry the caller's context into its threads, so code running
    there (the embedder choosing its background session) asks the thread, not the context.
    """
    return getattr(_THREAD, "background", False)


async def run_cpu(fn: Callable[..., T], *args: object) -> T:
    """Run a CPU-bound ``fn(*args)`` off the event loop, at low priority in background work."""
    if not in_background():
        return await asyncio.to_thread(fn, *args)
    loop = asyncio.get_running_loop()
    return await loop.run_in_executor(_background_executor(), functools.partial(fn, *args))
