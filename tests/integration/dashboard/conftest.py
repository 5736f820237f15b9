"""Fixtures of the dashboard browser tests: the session's real ``langgraph dev``, learners, a chromium.

Learners: ``ana`` (runs a session in the browser), ``ben`` (a second learner who must
see none of ana's data), ``cai`` (erases her data) and ``dan`` (every page in his words).
Screenshots and downloads go to pytest's temporary folder: a test run writes nothing into the repository.
The docs' screenshots (``docs/dashboard/``) are refreshed only on request, by
``scripts/dashboard-screenshots.sh``, which names the folder in ``KAG_DASHBOARD_DOCS``.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from selenium.webdriver.chrome.webdriver import WebDriver

from tests.integration.dashboard.browser import chromium, fresh
from tests.integration.langgraph_server import DevServer
from tests.service_fixtures import ServerView

DOCS_ENV = "KAG_DASHBOARD_DOCS"
"""The folder the docs' screenshots are refreshed in; unset (a test run), none are written."""


@pytest.fixture(scope="session")
def dashboard_server(kag_server: DevServer) -> ServerView:
    """The session's shared server (``tests.service_fixtures.kag_server``) with ana, ben, cai and dan.

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
def artifacts(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots and downloads of the browser tests go: a temporary folder, never the repository."""
    return tmp_path_factory.mktemp("dashboard")


@pytest.fixture(scope="session")
def docs_shots() -> Path | None:
    """The docs' screenshot folder named by ``KAG_DASHBOARD_DOCS`` (the docs generator), else None."""
    folder = os.environ.get(DOCS_ENV)
    if not folder:
        return None
    path = Path(folder).resolve()
    path.mkdir(parents=True, exist_ok=True)
    return path


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
