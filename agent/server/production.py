"""KAG's production server: stock ``langgraph-api`` on the Postgres + Redis runtime ``langgraph-runtime-pg``.

``python -m agent.server.production --workers N`` (``scripts/serve-prod.sh serve``) serves
``langgraph.json`` as it is (graphs, ``auth.path``, ``http.app``, ``checkpointer.path``)
with ``LANGGRAPH_RUNTIME_EDITION=pg``: runs are queued in PostgreSQL, claimed by N uvicorn
worker processes behind one port, and a run whose worker dies is swept back to pending and
run again by another (docs/serving-production.md). Both packages live in the serving venv
(``.venv-prod``), not in the development one: the runtime pins an older ``langgraph-api``.

The adapter, ``app``, closes two gaps between the runtime and a project with custom auth
and custom routes (docs/serving-production.md shows the tracebacks):

- langgraph-api puts ``EnsureStoreAccessible`` on the whole ASGI stack when a project has an
  ``http.app``, so it asks for the store on the *lifespan* message too, before the runtime's
  lifespan has opened the pool; the in-memory runtime's store is lazy, the Postgres one
  raises ("Store requires setup_store()/start_pool() first") and the server starts with no
  lifespan at all. ``app`` opens the pool first (idempotent: the lifespan's own
  ``start_pool`` then finds it open).
- with custom auth every run's ``config.configurable.langgraph_auth_user`` is the auth
  handler's user object; the runtime writes run kwargs with SQLAlchemy's default
  ``json.dumps``, which refuses it (``Object of type ProxyUser is not JSON serializable``:
  every run is a 500). Its engine gets langgraph-api's own encoder (``serde.json_dumpb``,
  what the in-memory runtime uses); the worker turns the stored dict back into the user
  (``worker.set_auth_ctx_for_run`` → ``normalize_user``).

The launcher sets the database up once (``setup_database``) before any worker starts: N
workers migrating a fresh database at the same moment collide on the migration rows, and the
loser never serves.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import json
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from starlette.types import Receive, Scope, Send

from agent.settings import ENV_FILE, load_env_file

SERVER_APP = "langgraph_api.server:app"
ADAPTED_APP = "agent.server.production:app"
RUNTIME_EDITION = "pg"
CONFIG_KEYS = ("graphs", "auth", "http", "checkpointer", "store", "webhooks")
# Any fixed key: two launchers on one database (or a launcher and a test) set it up in turn.
SETUP_LOCK_KEY = 4_300_043
POOL_TIMEOUT_S = 300.0


async def app(scope: Scope, receive: Receive, send: Send) -> None:
    """The LangGraph server's ASGI app, with the runtime's pool opened before its lifespan."""
    from langgraph_api.server import app as server  # inside a worker: its env is set by then

    if scope["type"] == "lifespan":
        from langgraph_runtime_pg import database

        if not getattr(database.create_async_engine, "kag_adapted", False):
            database.create_async_engine = with_server_json(database.create_async_engine)
        await database.start_pool()
    await server(scope, receive, send)


def server_json(value: Any) -> str:
    """JSON text for a JSONB column, encoded as langgraph-api encodes run kwargs."""
    from langgraph_api.serde import json_dumpb

    return json_dumpb(value).decode()


def with_server_json(create_engine: Callable[..., Any]) -> Callable[..., Any]:
    """``create_async_engine`` whose JSON columns use ``server_json`` and whose pool waits longer.

    SQLAlchemy's 30 s pool timeout was a 500 for a request that found all of a worker's 40
    connections busy: 500 learners starting at once on the loaded 2-core machine
    (``bench.serving --load 500``) got 290 of them. Such a request now waits its turn.
    """

    def create(*args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("json_serializer", server_json)
        kwargs.setdefault("pool_timeout", POOL_TIMEOUT_S)
        return create_engine(*args, **kwargs)

    create.kag_adapted = True  # type: ignore[attr-defined]
    return create


def server_kwargs(config: dict[str, Any]) -> dict[str, Any]:
    """The ``run_server`` keyword arguments ``langgraph.json`` carries (what ``langgraph dev`` reads)."""
    return {key: config.get(key) for key in CONFIG_KEYS}


def adapted_run(uvicorn_run: Callable[..., Any]) -> Callable[..., Any]:
    """``uvicorn.run`` serving ``ADAPTED_APP`` where ``run_server`` names the server's app.

    ``run_server`` names its app by import string (each worker imports it) and passes on only
    the keyword arguments ``uvicorn.run``'s signature names (``workers`` among them): the
    wrapper keeps that signature.
    """

    @functools.wraps(uvicorn_run)
    def adapted(target: Any, *args: Any, **kwargs: Any) -> Any:
        return uvicorn_run(ADAPTED_APP if target == SERVER_APP else target, *args, **kwargs)

    return adapted


async def setup_database(database_uri: str) -> None:
    """The runtime's schema, the Postgres saver's and the store's tables, once, under an advisory lock.

    What each worker's ``start_pool`` does first, without its Redis streams: ``start_pool``
    then ``stop_pool`` in the launcher hung, because ``stop_pool`` cancels the stream's
    pattern-subscribe tasks while their first ``psubscribe`` is still in flight and their
    ``finally`` then waits on a half-open pub/sub connection with no timeout
    (``langgraph_runtime_pg/redis_stream.py`` ``_pubsub_mux_loop``; a second's pause between
    the two calls made it return). Set up here, each worker's own migration finds nothing to do.
    """
    import psycopg
    from langgraph_runtime_pg import checkpoint, migrate, store
    from langgraph_runtime_pg.database import to_psycopg_uri

    async with await psycopg.AsyncConnection.connect(to_psycopg_uri(database_uri), autocommit=True) as lock:
        await lock.execute("SELECT pg_advisory_lock(%s)", (SETUP_LOCK_KEY,))  # released with the connection
        await asyncio.to_thread(migrate.upgrade_head, database_uri)
        try:
            await checkpoint.setup_checkpointer()
            await store.setup_store()
        finally:
            await store.teardown_store()
            await checkpoint.teardown_checkpointer()


def run(
    config_path: Path, host: str, port: int, workers: int, jobs_per_worker: int, healthcheck_s: int = 300
) -> None:
    """Start ``workers`` uvicorn processes serving ``config_path`` on the Postgres runtime."""
    import uvicorn
    from langgraph_api.cli import run_server

    database_uri, redis_uri = os.environ.get("DATABASE_URI"), os.environ.get("REDIS_URI")
    if not database_uri or not redis_uri:
        raise SystemExit("DATABASE_URI and REDIS_URI must be set (scripts/serve-prod.sh sets them)")
    config = json.loads(config_path.read_text())
    asyncio.run(setup_database(database_uri))
    uvicorn_run = uvicorn.run
    uvicorn.run = adapted_run(uvicorn_run)
    try:
        run_server(
            host,
            port,
            False,
            open_browser=False,
            n_jobs_per_worker=jobs_per_worker,
            runtime_edition=RUNTIME_EDITION,  # type: ignore[arg-type]  # the pg runtime's edition name
            disable_persistence=False,
            workers=workers,
            # uvicorn kills a worker that does not answer its ping in time (5 s by default) and
            # starts another; importing KAG holds the GIL longer than that on a busy machine,
            # and the workers were restarted forever. A killed worker is noticed at once anyway.
            timeout_worker_healthcheck=healthcheck_s,
            lifespan="on",  # a worker whose start-up fails stops, never serves without a runtime
            __database_uri__=database_uri,
            __redis_uri__=redis_uri,
            __migrations_path__=None,
            **server_kwargs(config),
        )
    finally:
        uvicorn.run = uvicorn_run


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: ``python -m agent.server.production [--workers N] [--port P] ...``."""
    parser = argparse.ArgumentParser(prog="python -m agent.server.production", description=__doc__)
    parser.add_argument("--config", type=Path, default=Path("langgraph.json"))
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=2025)
    parser.add_argument("--workers", type=int, default=2, help="uvicorn worker processes")
    parser.add_argument("--jobs-per-worker", type=int, default=10, help="runs one worker executes at once")
    parser.add_argument(
        "--healthcheck-timeout", type=int, default=300, help="seconds a worker may not answer"
    )
    parser.add_argument("--env-file", type=Path, default=Path(ENV_FILE), help="read, never over the shell")
    args = parser.parse_args(argv)
    load_env_file(args.env_file)  # as `kag serve` does: the workers inherit the environment
    run(args.config, args.host, args.port, args.workers, args.jobs_per_worker, args.healthcheck_timeout)


if __name__ == "__main__":
    main()
