"""The kernel routes, cron and service without services: what is decided before any store is read.

Requests run through the custom app (``build_app``) with a stand-in for the server's
auth (it sets ``scope["user"]`` as LangGraph's auth middleware does), without its
lifespan, so only refusals that need no Redis or Neo4j are exercised here; the
end-to-end tests (``tests/integration/server/test_kernel_routes*.py``) do the rest.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import croniter
import pytest
from starlette.testclient import TestClient

from agent.kernel.reflection.reports import ReflectionReport, StepReport
from agent.server.app import build_app
from agent.server.auth import check_run_identity
from agent.server.dashboard.learner import names_identity
from agent.server.kernel_cron import (
    cron_payload,
    cron_schedule,
    ensure_reflection_crons,
    reflection_cron_id,
)
from agent.server.kernel_routes import MAX_KERNEL_BODY
from agent.server.kernel_service import KernelService
from agent.server.kernel_status import as_plain


@dataclass
class User:
    """What LangGraph's auth middleware puts in ``scope["user"]``."""

    identity: str
    is_authenticated: bool = True


def client_as(identity: str | None) -> TestClient:
    """The custom app (no lifespan) behind a stand-in auth that authenticates ``identity``."""
    app = build_app()

    async def authed(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and identity is not None:
            scope["user"] = User(identity)
        await app(scope, receive, send)

    return TestClient(authed)


@pytest.mark.parametrize(
    ("seconds", "expected"),
    [
        (10, "* * * * * */10"),
        (60, "*/1 * * * *"),
        (300, "*/5 * * * *"),
        (7200, "0 */2 * * *"),
        (86400, "0 0 * * *"),
    ],
)
def test_cron_schedule_turns_the_interval_into_a_valid_expression(seconds: int, expected: str) -> None:
    assert cron_schedule(seconds) == expected
    assert croniter.croniter.is_valid(expected)


def test_every_interval_the_settings_allow_is_a_valid_cron() -> None:
    for seconds in range(10, 86_401, 7):
        assert croniter.croniter.is_valid(cron_schedule(seconds)), seconds


def test_a_learners_cron_runs_as_that_learner_and_names_no_one_in_its_input() -> None:
    payload = cron_payload("learner-ada", 20)
    assert payload["input"] == {"limit": 20} and payload["assistant_id"] == "reflection"
    assert payload["config"]["configurable"]["langgraph_auth_user"]["identity"] == "learner-ada"
    check_run_identity({"kwargs": payload}, "learner-ada")  # the server's own run check lets it through
    assert reflection_cron_id("learner-ada") == reflection_cron_id("learner-ada")
    assert reflection_cron_id("learner-ada") != reflection_cron_id("learner-bob")


async def test_outside_a_langgraph_server_no_cron_is_registered() -> None:
    assert await ensure_reflection_crons(["learner-ada"], "*/5 * * * *") == []


def test_names_identity_finds_the_key_at_any_depth_without_recursion() -> None:
    assert names_identity({"learner_id": "x"}) and names_identity({"a": [{"b": {"learner_id": None}}]})
    assert not names_identity({"query": "learner_id", "context": ["learner_id"]}), "a value is not a key"
    deep: Any = {"learner_id": 1}
    for _ in range(100_000):
        deep = [deep]
    assert names_identity(deep)


def test_reports_become_plain_json() -> None:
    report = ReflectionReport("learner-ada", 10, steps=[StepReport("decay", updated=["i1"])])
    plain = as_plain([report, {"at": datetime(2026, 1, 1, tzinfo=UTC)}])
    assert plain[0]["steps"]["decay"]["counts"]["updated"] == 1 and plain[0]["changed"] is True
    assert plain[1] == {"at": "2026-01-01T00:00:00+00:00"}


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("POST", "/kernel/consult"),
        ("GET", "/kernel/stats"),
        ("POST", "/kernel/reflect"),
        ("GET", "/kernel/health"),
    ],
)
def test_without_an_authenticated_user_every_route_is_401(method: str, path: str) -> None:
    response = client_as(None).request(method, path, json={"query": "x"})
    assert response.status_code == 401 and response.json() == {"detail": "a valid bearer token is required"}


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/kernel/consult", {"query": "x", "learner_id": "learner-bob"}),
        ("POST", "/kernel/consult", {"query": "x", "context": "", "nested": [{"learner_id": "learner-bob"}]}),
        ("POST", "/kernel/reflect", {"learner_id": "learner-ada"}),
        ("GET", "/kernel/stats?learner_id=learner-bob", None),
        ("GET", "/kernel/health?learner_id=learner-bob", None),
    ],
)
def test_a_learner_id_is_refused_before_anything_is_read(method: str, path: str, body: Any) -> None:
    response = client_as("learner-ada").request(method, path, json=body)
    assert response.status_code == 403 and "omit learner_id" in response.json()["detail"]


@pytest.mark.parametrize(
    ("path", "body", "status"),
    [
        ("/kernel/consult", b"{nope", 422),
        ("/kernel/consult", b"[]", 422),
        ("/kernel/consult", b"\xff\xfe", 422),
        ("/kernel/consult", b"[" * 30_000 + b"]" * 30_000, 422),
        ("/kernel/consult", b"x" * (MAX_KERNEL_BODY + 1), 413),
        ("/kernel/reflect", b'{"limit": 5}', 422),
        ("/kernel/reflect", b'{"limit": "50"}', 422),
        ("/kernel/reflect", b'{"everyone": true}', 422),
    ],
)
def test_bad_bodies_are_refused_before_anything_is_read(path: str, body: bytes, status: int) -> None:
    response = client_as("learner-ada").post(path, content=body, headers={"Content-Type": "application/json"})
    assert response.status_code == status, response.text
    assert "detail" in response.json()


class FlakyWorker:
    """A worker that crashes on its first run, then runs until stopped."""

    def __init__(self) -> None:
        self.runs = 0

    async def run(self, stop: asyncio.Event) -> None:
        self.runs += 1
        if self.runs == 1:
            raise RuntimeError("boom")
        await stop.wait()

    def stats(self) -> dict[str, Any]:
        return {"applied": 0, "runs": self.runs}


async def test_a_crashed_worker_is_restarted_and_stops_cleanly(monkeypatch: pytest.MonkeyPatch) -> None:
    import agent.kernel.worker as worker_module
    import agent.server.kernel_service as service_module

    worker = FlakyWorker()
    monkeypatch.setattr(worker_module, "build_worker", lambda resources, stores: worker)
    monkeypatch.setattr(service_module, "RESTART_DELAYS_S", (0.01,))
    service = KernelService(resources=None, stores=None)  # type: ignore[arg-type]
    service.start()
    for _ in range(200):
        if worker.runs >= 2:
            break
        await asyncio.sleep(0.01)
    stats = service.worker_stats()
    assert worker.runs == 2 and stats["restarts"] == 1 and stats["alive"] is True
    assert stats["last_error"] == "RuntimeError: boom"
    await service.stop(timeout=5)
    assert not service.alive and service.worker_stats()["alive"] is False


async def test_a_worker_that_cannot_be_built_leaves_the_server_serving(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import agent.kernel.worker as worker_module

    def broken(resources: Any, stores: Any) -> Any:
        raise ValueError("no stream")

    monkeypatch.setattr(worker_module, "build_worker", broken)
    service = KernelService(resources=None, stores=None)  # type: ignore[arg-type]
    service.start()
    assert not service.alive and service.worker_stats()["last_error"] == "ValueError: no stream"
    await service.stop()
