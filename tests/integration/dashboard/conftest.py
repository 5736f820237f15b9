"""Fixtures of the dashboard browser tests: the session's real ``langgraph dev``, learners, a chromium.

Learners: ``ana`` (runs a session and uses every page), ``ben`` (a second learner
who must see none of ana's data) and ``cai`` (erases her data). Screenshots and
downloads go to the test artifact folder ``bench/results/dashboard/`` (git-ignored);
the two README screenshots are refreshed under ``docs/dashboard/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver

from tests.integration.dashboard.browser import chromium, fresh
from tests.integration.langgraph_server import REPO, DevServer
from tests.service_fixtures import ServerView

ARTIFACTS = REPO / "bench" / "results" / "dashboard"
README_SHOTS = REPO / "docs" / "dashboard"


@pytest.fixture(scope="session")
def dashboard_server(kag_server: DevServer) -> ServerView:
    """The session's shared server (``tests.service_fixtures.kag_server``) with ana, ben and cai.

    It removes its checkpoints and the learners' data afterwards.
    """
    return ServerView(kag_server, "dashboard")


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


@pytest.fixture(scope="session")
def chromium_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    """One headless chromium for the session (a start costs seconds); ``browser`` resets it per test."""
    driver = chromium(tmp_path_factory.mktemp("downloads"))
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def browser(
    chromium_session: WebDriver, dashboard_server: DevServer, artifacts: Path, tmp_path: Path
) -> Iterator[WebDriver]:
    """The session's chromium as a fresh one: one blank tab, no cookies or storage, its own downloads.

    The dashboard keeps its token in ``sessionStorage`` (per tab): a new tab, with the
    server's storage and every cookie cleared, is as logged out as a new profile. Afterwards
    the tab goes to ``about:blank``, so no live stream stays open against the server.
    """
    driver = chromium_session
    downloads = tmp_path / "downloads"
    downloads.mkdir()
    fresh(driver, downloads, dashboard_server.url)
    driver.downloads = downloads  # type: ignore[attr-defined]
    try:
        yield driver
    finally:
        driver.get("about:blank")
