"""The production server's adapter (``agent.server.production``): what it changes and what it keeps."""

from __future__ import annotations

import inspect
import json
from typing import Any

import pytest

from agent.server.production import (
    ADAPTED_APP,
    POOL_TIMEOUT_S,
    SERVER_APP,
    adapted_run,
    server_json,
    server_kwargs,
    with_server_json,
)


def uvicorn_like(app: str, *, host: str = "127.0.0.1", workers: int | None = None, **_: Any) -> tuple:
    """Stands in for ``uvicorn.run``: returns what it was asked to serve."""
    return app, host, workers


def test_adapted_run_serves_the_adapter_and_keeps_the_workers_argument() -> None:
    run = adapted_run(uvicorn_like)
    # run_server filters its keyword arguments by this signature: losing `workers` here
    # silently started one process whatever --workers said
    assert "workers" in inspect.signature(run).parameters
    assert run(SERVER_APP, host="127.0.0.1", workers=2) == (ADAPTED_APP, "127.0.0.1", 2)
    assert run("other.module:app", workers=3) == ("other.module:app", "127.0.0.1", 3)


class AuthUser:
    """What a custom auth handler's user looks like to the server (it has ``model_dump``)."""

    def model_dump(self) -> dict[str, Any]:
        return {"identity": "learner-ada", "permissions": []}


def test_server_json_encodes_the_auth_user_that_json_dumps_refuses() -> None:
    kwargs = {"config": {"configurable": {"langgraph_auth_user": AuthUser()}}, "input": {"request": "hi"}}
    with pytest.raises(TypeError, match="not JSON serializable"):
        json.dumps(kwargs)  # SQLAlchemy's default: every run with custom auth was a 500
    decoded = json.loads(server_json(kwargs))
    assert decoded["config"]["configurable"]["langgraph_auth_user"]["identity"] == "learner-ada"
    assert decoded["input"] == {"request": "hi"}


def test_with_server_json_adds_the_encoder_and_leaves_an_explicit_one() -> None:
    def create_engine(uri: str, **kwargs: Any) -> dict[str, Any]:
        return {"uri": uri, **kwargs}

    create = with_server_json(create_engine)
    assert create("postgresql+asyncpg://x", echo=False) == {
        "uri": "postgresql+asyncpg://x",
        "echo": False,
        "json_serializer": server_json,
        "pool_timeout": POOL_TIMEOUT_S,
    }
    assert create("u", json_serializer=str)["json_serializer"] is str
    assert create.kag_adapted is True


def test_server_kwargs_carry_the_projects_auth_routes_and_checkpointer() -> None:
    config = {
        "graphs": {"kag": "./graphs/heartbeat.py:graph"},
        "auth": {"path": "./agent/server/auth.py:auth"},
        "http": {"app": "./agent/server/app.py:app"},
        "checkpointer": {"path": "./agent/server/checkpointer.py:redis_checkpointer"},
        "python_version": "3.11",
    }
    kwargs = server_kwargs(config)
    assert kwargs["auth"] == config["auth"] and kwargs["http"] == config["http"]
    assert kwargs["checkpointer"] == config["checkpointer"] and kwargs["graphs"] == config["graphs"]
    assert "python_version" not in kwargs


def test_prod_server_heartbeat_is_the_kill_tests_or_the_runtimes_default(tmp_path: Any) -> None:
    from tests.integration.prod_server import HEARTBEAT_S, ProdServer

    # the kill test wants a dead worker's runs back within seconds
    assert ProdServer(tmp_path).environment()["LG_BG_JOB_HEARTBEAT"] == str(HEARTBEAT_S)
    # a load keeps the runtime's 120 s: a 5 s heartbeat lapsed while a busy event loop ran
    # other turns, and the sweep queued *running* runs again (run twice)
    assert "LG_BG_JOB_HEARTBEAT" not in ProdServer(tmp_path, heartbeat=None).environment()
    chosen = ProdServer(tmp_path, heartbeat=None, extra_env={"LG_BG_JOB_HEARTBEAT": "30"})
    assert chosen.environment()["LG_BG_JOB_HEARTBEAT"] == "30"
