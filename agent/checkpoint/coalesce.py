"""One round trip for the batches an async saver is asked for in the same loop iteration.

LangGraph saves a super-step with ``aput_writes`` (each finished task) and ``aput`` (the
next checkpoint) as background tasks at nearly the same moment, a dozen per heartbeat turn.
``Coalescer`` queues the batches handed to it until the event loop runs its flush
(``call_soon``: every task already ready runs first), then sends them as one pipeline.

Nothing about durability changes: a caller's await returns only after Redis replied to
its own commands, exactly as when its batch went alone. The pipeline is one MULTI/EXEC
when any of its batches asked for a transaction (a superset stays atomic; scripts run
inside it as they would alone), else a plain pipeline. Replies are handed back per batch;
a batch whose commands got an error reply gets that error (so the driver's NOSCRIPT
reload still retries just that batch), and an error that broke the round trip itself
(a connection lost after the client's retries) goes to every batch of it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis
from redis.exceptions import ResponseError

from agent.checkpoint.requests import Batch


class Coalescer:
    """Sends the batches queued during one loop iteration as one pipeline (plain Redis)."""

    def __init__(self, client: aioredis.Redis) -> None:
        """Send over ``client`` (bytes replies)."""
        self.client = client
        self._queued: list[tuple[Batch, asyncio.Future[list[Any]]]] = []
        self._running: set[asyncio.Task[None]] = set()

    async def send(self, batch: Batch) -> list[Any]:
        """The replies to ``batch``'s commands (its ``index`` replies dropped)."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[list[Any]] = loop.create_future()
        if not self._queued:
            loop.call_soon(self._flush)
        self._queued.append((batch, future))
        return await future

    def _flush(self) -> None:
        queued, self._queued = self._queued, []
        task = asyncio.get_running_loop().create_task(self._run(queued))
        self._running.add(task)  # a strong reference until it is done
        task.add_done_callback(self._running.discard)

    async def _run(self, queued: list[tuple[Batch, asyncio.Future[list[Any]]]]) -> None:
        try:
            replies = await self._execute([batch for batch, _ in queued])
        except Exception as exc:  # noqa: BLE001 - handed to every waiting caller
            for _, future in queued:
                if not future.done():
                    future.set_exception(exc)
            return
        except BaseException:  # cancelled (the loop is closing): so are the callers
            for _, future in queued:
                future.cancel()
            raise
        for (batch, future), got in zip(queued, replies, strict=True):
            if future.done():  # its caller was cancelled; the commands ran anyway
                continue
            error = next((r for r in got if isinstance(r, Exception)), None)
            if error is not None:
                future.set_exception(error)
            else:
                future.set_result(got[len(batch.index) :])

    async def _execute(self, batches: list[Batch]) -> list[list[Any]]:
        """Every batch's replies (``index`` ones first), errors in place of failed commands."""
        cmds = [cmd for b in batches for cmd in (*b.index, *b.commands)]
        if len(cmds) == 1 and not batches[0].transaction:
            try:
                return [[await self.client.execute_command(*cmds[0])]]
            except ResponseError as exc:
                return [[exc]]
        transaction = any(b.transaction for b in batches)
        async with self.client.pipeline(transaction=transaction) as pipe:
            for cmd in cmds:
                pipe.execute_command(*cmd)
            flat = await pipe.execute(raise_on_error=False)
        out, at = [], 0
        for b in batches:
            size = len(b.index) + len(b.commands)
            out.append(flat[at : at + size])
            at += size
        return out
