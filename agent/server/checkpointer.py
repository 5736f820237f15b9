"""Checkpointer factory for the LangGraph server (``langgraph dev`` / langgraph-api).

``langgraph.json``::

    "checkpointer": {"path": "./agent/server/checkpointer.py:redis_checkpointer"}

The server loads this module by path, calls ``redis_checkpointer()`` once per event
loop and enters the returned async context manager; the yielded saver lives until
shutdown. Everything comes from ``Settings``: Redis from ``KAG_REDIS_URL``; optional
``KAG_CHECKPOINT_PREFIX`` and ``KAG_CHECKPOINT_TTL`` (seconds, refreshed on read)
tune the key prefix and expiry.

Every thread records its owner at its first write (``agent.checkpoint.owners``).
The principal is the run's ``langgraph_auth_user_id`` or, for API reads such as
``threads.get_state`` that carry no run config, the request's auth context.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from langchain_core.runnables import RunnableConfig

from agent.checkpoint.aio import AsyncRedisSaver
from agent.checkpoint.base import DEFAULT_PREFIX
from agent.checkpoint.owners import config_principal
from agent.settings import Settings
from agent.tracing import configure_tracing


def server_principal(config: RunnableConfig | None) -> str | None:
    """Who is asking: the run's authenticated user, else the API request's."""
    principal = config_principal(config)
    if principal is not None:
        return principal
    from langgraph_api.utils import get_auth_ctx, get_user_id  # only inside the server process

    ctx = get_auth_ctx()
    identity = get_user_id(ctx.user) if ctx is not None else None
    return str(identity) if identity else None


@asynccontextmanager
async def redis_checkpointer(settings: Settings | None = None) -> AsyncIterator[AsyncRedisSaver]:
    """Yield a ready ``AsyncRedisSaver`` on ``settings.redis_url``; close it on shutdown."""
    settings = settings or Settings.from_env()
    configure_tracing(settings)  # server start: before the first run is traced
    ttl = settings.checkpoint_ttl
    prefix = settings.checkpoint_prefix or DEFAULT_PREFIX
    async with AsyncRedisSaver.from_conn_string(
        settings.redis_url,
        key_prefix=prefix,
        ttl=ttl,
        refresh_on_read=ttl is not None,
        principal=server_principal,
        keep=settings.checkpoint_keep or None,
    ) as saver:
        await saver.setup()
        yield saver
