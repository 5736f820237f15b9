"""Connections and providers a process shares: Neo4j, Redis, embeddings, chat model.

The caller owns a ``Resources`` and closes it (``await resources.aclose()``).
Stores receive the driver or client they need; they never open their own.
Async clients are bound to one event loop, so ``default_resources()`` keeps
one bundle per running loop (the LangGraph server runs one loop).
"""

from __future__ import annotations

import asyncio
import weakref
from functools import cached_property
from typing import TYPE_CHECKING

import neo4j
import redis.asyncio as aioredis

from agent.clock import Clock, system_clock
from agent.models.embeddings import EmbeddingProvider, make_embeddings
from agent.redis_retry import POOL_SIZE, async_client
from agent.settings import Settings
from agent.tracing import configure_tracing

if TYPE_CHECKING:  # the chat model's stack is imported only by a process that asks for the model
    from langchain_core.language_models import BaseChatModel

NEO4J_POOL_SIZE = 50  # the design's Bolt pool
REDIS_POOL_SIZE = POOL_SIZE  # the design's Redis pool (10)


class Resources:
    """Lazily opened clients for one event loop. Explicit objects win over settings."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        chat_model: BaseChatModel | None = None,
        embeddings: EmbeddingProvider | None = None,
        neo4j_driver: neo4j.AsyncDriver | None = None,
        redis_client: aioredis.Redis | None = None,
        clock: Clock | None = None,
        tracing: bool = True,
    ) -> None:
        """Keep what was passed; build the rest from ``settings`` on first use.

        Configures LangSmith tracing from ``settings`` (off unless opted in) before
        any model built here can be called. ``tracing=False`` is for a process that
        calls no model and runs no graph (``kag search``, ``kag memory show``): then
        the first use of ``chat_model`` configures it, since configuring, even off,
        imports LangSmith's run trees (seconds of a loaded machine's start).
        """
        self.settings = settings or Settings.from_env()
        self.clock: Clock = clock or system_clock
        """What the stores stamp and age memory with (tests pass a ``ManualClock``)."""
        if tracing or chat_model is not None:
            configure_tracing(self.settings)
        # What was passed takes the place of the cached property that would build it.
        given = {"chat_model": chat_model, "embeddings": embeddings, "neo4j": neo4j_driver}
        given["redis"] = redis_client
        self.__dict__.update({name: value for name, value in given.items() if value is not None})

    @cached_property
    def neo4j(self) -> neo4j.AsyncDriver:
        """Async Bolt driver (pool of 50)."""
        s = self.settings
        return neo4j.AsyncGraphDatabase.driver(
            s.neo4j_uri,
            auth=(s.neo4j_user, s.neo4j_password),
            max_connection_pool_size=NEO4J_POOL_SIZE,
            connection_timeout=5.0,
            connection_acquisition_timeout=10.0,
            # Schema-less first reads warn about unknown labels/properties; that is expected.
            notifications_min_severity="OFF",
        )

    @cached_property
    def redis(self) -> aioredis.Redis:
        """Async Redis client with ``decode_responses=True`` (pool of 10).

        The pool blocks (up to 5 minutes) when all connections are busy instead of
        failing, so bursts queue up rather than erroring; a Redis that restarts or
        loads its AOF is waited for (``agent.redis_retry``), then reported.
        """
        return async_client(self.settings.redis_url, decode_responses=True, max_connections=REDIS_POOL_SIZE)

    @cached_property
    def embeddings(self) -> EmbeddingProvider:
        """The embeddings provider the settings name."""
        return make_embeddings(self.settings)

    @cached_property
    def chat_model(self) -> BaseChatModel:
        """The chat model the settings name (offline policy without a key).

        Imported here: ``kag memory show`` or ``kag search`` never call a model, and the
        chat stack (LangChain's language models, the offline policy) is most of their start.
        """
        from agent.models.chat import make_chat_model

        configure_tracing(self.settings)  # idempotent; a bundle built with tracing=False configures it here
        return make_chat_model(self.settings)

    @property
    def database(self) -> str:
        """Neo4j database name."""
        return self.settings.neo4j_database

    async def aclose(self) -> None:
        """Close the clients this bundle opened."""
        if "neo4j" in self.__dict__:
            await self.__dict__.pop("neo4j").close()
        if "redis" in self.__dict__:
            await self.__dict__.pop("redis").aclose()


_PER_LOOP: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Resources] = weakref.WeakKeyDictionary()


def default_resources() -> Resources:
    """The process-wide bundle for the running event loop, built from the environment."""
    loop = asyncio.get_running_loop()
    bundle = _PER_LOOP.get(loop)
    if bundle is None:
        bundle = _PER_LOOP[loop] = Resources(Settings.from_env())
    return bundle
