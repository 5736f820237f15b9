"""Fixtures of the dashboard browser tests: one real ``langgraph dev``, learners, a chromium.

Learners: ``ana`` (runs a session and uses every page), ``ben`` (a second learner
who must see none of ana's data) and ``cai`` (erases her data). Screenshots and
downloads go to the test artifact folder ``bench/results/dashboard/`` (git-ignored);
the two README screenshots are refreshed under ``docs/dashboard/``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver

from agent.memory.erasure import erase_learner
from agent.resources import Resources
from tests.integration.dashboard.browser import chromium
from tests.integration.langgraph_server import REPO, DevServer, Learner

ARTIFACTS = REPO / "bench" / "results" / "dashboard"
README_SHOTS = REPO / "docs" / "dashboard"


@pytest.fixture(scope="session")
async def dashboard_server(
    tmp_path_factory: pytest.TempPathFactory, resources: Resources
) -> AsyncIterator[DevServer]:
    """The suite's server; its checkpoints and the learners' data go afterwards."""
    run = uuid.uuid4().hex[:10]
    dev = DevServer(tmp_path_factory.mktemp("langgraph-dash"), prefix=f"kag-dash-{run}")
    dev.learners = {
        name: Learner(f"dash-{name}-{run}", f"token-{name}-{run}") for name in ("ana", "ben", "cai")
    }
    await asyncio.to_thread(dev.start)
    try:
        yield dev
    finally:
        await asyncio.to_thread(dev.stop)
        keys = [k async for k in resources.redis.scan_iter(match=f"{dev.prefix}:*", count=1000)]
        if keys:
            await resources.redis.delete(*keys)
        for learner in dev.learners.values():
            await erase_learner(resources, learner.learner_id)
            await resources.neo4j.execute_query(
                "MATCH (n) WHERE n.learner_id = $l DETACH DELETE n",
                l=learner.learner_id,
                database_=resources.database,
            )


@pytest.fixture(autouse=True)
def dashboard_log_on_failure(
    request: pytest.FixtureRequest, dashboard_server: DevServer, capsys: pytest.CaptureFixture
) -> Iterator[None]:
    """Print the server log when a test of this suite fails."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        with capsys.disabled():
            log = dashboard_server.log_path
            print(f"\n----- langgraph dev log ({log}) -----\n{dashboard_server.log_tail()}")


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Where screenshots and downloads of the browser tests go."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


@pytest.fixture
def browser(artifacts: Path, tmp_path: Path) -> Iterator[WebDriver]:
    """A fresh headless chromium per test (its own profile and download folder)."""
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    driver = chromium(downloads)
    driver.downloads = downloads  # type: ignore[attr-defined]
    try:
        yield driver
    finally:
        driver.quit()
