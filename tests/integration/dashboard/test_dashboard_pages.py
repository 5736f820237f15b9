"""Every dashboard page in the browser speaks the learner's words: text present, no internal ids.

Dan holds a session through the CLI (the CLI's own request function over the heartbeat,
in this process), tells two facts about where he lives, sets a reminder and gets a fact
back in a search. Each page is then checked in chromium: its text is there, no internal
id (a long hex run, ``fact:``, ``note_``) is visible, a screenshot is read back (a PNG
that decodes and is not blank) and kept in pytest's temporary folder (``docs/dashboard/pages/``
is refreshed only by ``scripts/dashboard-screenshots.sh``). The header shows
nothing of a session before login or after logout, every note card counts the links its
page lists, and the CLI session is on the memory page, named by date and topic.
"""

from __future__ import annotations

import re
import shutil
import uuid
from pathlib import Path

import pytest
from PIL import Image
from selenium.webdriver.chrome.webdriver import WebDriver
from selenium.webdriver.common.by import By

from agent.context import Context
from agent.memory.facts import FactStore
from agent.memory.reminders import ReminderStore
from agent.resources import Resources
from graphs.cli.session import run_request
from graphs.heartbeat import make_builder
from tests.integration.dashboard.pages import login, open_page, wait
from tests.integration.dashboard.seed import link, seed_note

pytestmark = [pytest.mark.integration, pytest.mark.server]

INTERNAL_ID = re.compile(r"[0-9a-f]{12,}|\bfact:|\bnote_|\bfact-|\bsession [0-9a-f]{6,}|checkpoint \d")
"""What an engineer's id or chart looks like in visible text."""
CLI_SAID = "A window function computes a value over the rows related to the current row."


def visible_text(browser: WebDriver) -> str:
    """The text a learner sees (``innerText`` skips hidden elements)."""
    return browser.execute_script("return document.body.innerText")


def page_shot(browser: WebDriver, artifacts: Path, name: str, docs: Path | None = None) -> Image.Image:
    """Screenshot the page and read it back (a PNG that decodes, not blank).

    It is copied to ``docs/pages`` only when the docs generator names a folder.
    """
    path = artifacts / f"page-{name}.png"
    assert browser.save_screenshot(str(path)), path
    with Image.open(path) as image:
        assert image.format == "PNG"
        image.load()
        gray = image.convert("L")
    low, high = gray.getextrema()
    counts = gray.histogram()
    assert high - low > 64, f"{name}: a blank screenshot ({low}..{high})"
    assert max(counts) < 0.995 * sum(counts), f"{name}: one colour fills the screenshot"
    if docs is not None:
        (docs / "pages").mkdir(exist_ok=True)
        shutil.copyfile(path, docs / "pages" / f"{name}.png")
    return gray


def assert_no_ids(browser: WebDriver, where: str) -> str:
    """The visible text, after checking it carries no internal id."""
    text = visible_text(browser)
    found = INTERNAL_ID.search(text)
    assert found is None, f"{where}: internal id {found.group(0)!r} in {text[:1500]}"
    return text


def session_visible(browser: WebDriver) -> bool:
    """Whether anything of a session shows in the header."""
    return any(
        browser.find_element(By.ID, name).is_displayed()
        for name in ("session", "erase-open", "logout", "whoami", "nav")
    )


async def cli_session(resources: Resources, redis_saver, learner_id: str) -> str:
    """One session held through the CLI's request function; returns its note's id."""
    graph = make_builder(resources).compile(checkpointer=redis_saver)
    out = await run_request(
        graph, learner_id, CLI_SAID, str(uuid.uuid4()), Context(), end_session=True, show_phases=False
    )
    notes = [a["note_id"] for a in out.get("artifacts") or []]
    assert notes, out
    return notes[0]


async def test_header_shows_nothing_of_a_session_before_login_or_after_logout(
    dashboard_server, browser, artifacts, docs_shots
) -> None:
    ana = dashboard_server.learners["ana"]
    browser.get(f"{dashboard_server.url}/dashboard")
    wait(browser, lambda d: d.find_element(By.ID, "token").is_displayed())
    assert not session_visible(browser), "the header shows a session before login"
    text = visible_text(browser)
    assert "Delete my data" not in text and "Log out" not in text, text
    page_shot(browser, artifacts, "login", docs_shots)

    login(browser, dashboard_server.url, ana.token)
    assert browser.find_element(By.ID, "logout").is_displayed()
    assert browser.find_element(By.ID, "erase-open").is_displayed()
    browser.find_element(By.ID, "logout").click()
    wait(browser, lambda d: d.find_element(By.ID, "token").is_displayed(), message="back at the login form")
    assert not session_visible(browser), "the header shows a session after logout"
    assert ana.learner_id not in visible_text(browser)
    browser.execute_script("document.getElementById('erase-open').click()")
    assert not browser.find_element(By.ID, "erase-panel").is_displayed(), "the erase panel opens logged out"
    page_shot(browser, artifacts, "logged-out", docs_shots)


async def test_every_page_in_the_learners_words(
    dashboard_server, browser, artifacts, docs_shots, resources: Resources, redis_saver
) -> None:
    # dan, not ana: ana's browser test asserts that she starts with no notes, and the notes
    # written here would make that depend on the order the two files run in.
    dan = dashboard_server.learners["dan"]
    stores = {"database": resources.database, "clock": resources.clock}
    facts = FactStore(resources.neo4j, resources.embeddings, **stores)
    await facts.remember(dan.learner_id, "I live in Da Nang", valid_from="2026-01-03T09:00:00+00:00")
    await facts.remember(dan.learner_id, "I moved to Hue", valid_from="2026-02-14T09:00:00+00:00")
    await facts.remember(dan.learner_id, "I work as a data analyst")
    await facts.search(dan.learner_id, "what is my job?")  # the job fact comes back
    await ReminderStore(resources.neo4j, resources.embeddings, **stores).set(
        dan.learner_id, "review window functions", keywords=["PARTITION BY"]
    )
    window = await cli_session(resources, redis_saver, dan.learner_id)
    frame = await seed_note(
        resources, dan.learner_id, "window frame", "ROWS BETWEEN picks the rows a window sees.", publish=False
    )
    await link(resources, dan.learner_id, frame, window, "elaborates")
    await link(resources, dan.learner_id, window, frame, "depends_on")  # two links, one per direction
    now = resources.clock()
    today = f"{now.day} {now.strftime('%b')}"

    login(browser, dashboard_server.url, dan.token)
    text = assert_no_ids(browser, "notes")
    assert "Your notes" in text and "window function" in text, text[:800]
    page_shot(browser, artifacts, "notes", docs_shots)
    cards = {
        card.get_attribute("data-note-id"): card.find_element(By.CSS_SELECTOR, ".link-count").text
        for card in browser.find_elements(By.CSS_SELECTOR, ".note-card")
    }
    assert cards[frame] == "2 links", cards
    for note_id, count in list(cards.items())[:12]:
        open_page(browser, f"#/note/{note_id}")
        listed = browser.find_elements(By.CSS_SELECTOR, "#note-links li")
        assert count == f"{len(listed)} link{'' if len(listed) == 1 else 's'}", (note_id, count, len(listed))

    open_page(browser, f"#/note/{window}")
    wait(browser, lambda d: d.find_element(By.ID, "concept-map").get_attribute("data-rendered"))
    text = assert_no_ids(browser, "note")
    assert "window function" in browser.find_element(By.ID, "note-title").text
    assert "2 links" in text.lower() and "window frame" in text, text[:800]
    page_shot(browser, artifacts, "note", docs_shots)

    open_page(browser, "#/graph")
    text = assert_no_ids(browser, "graph")
    assert "Knowledge graph" in text and "depends on" in text, text[:800]
    page_shot(browser, artifacts, "graph", docs_shots)

    open_page(browser, "#/memory")
    text = assert_no_ids(browser, "memory")
    sessions = browser.find_element(By.ID, "sessions").text
    assert f"{today} · window function" in sessions, sessions  # the CLI session, by date and topic
    assert (
        "review window functions — when you mention PARTITION BY" in browser.find_element(By.ID, "due").text
    )
    assert "data analyst" in browser.find_element(By.ID, "recalled").text
    assert "What you learned, when" in text and "About you" in text, text[:800]
    chart = browser.execute_script(
        "const c = window.Chart.getChart(document.getElementById('activity-chart'));"
        "return {labels: c.data.labels, legends: c.data.datasets.map((d) => d.label)};"
    )
    assert chart["legends"] == ["Notes written", "Things you told me", "Came back"], chart
    assert today in chart["labels"], chart
    page_shot(browser, artifacts, "memory", docs_shots)

    open_page(browser, "#/facts")
    text = assert_no_ids(browser, "facts")
    table = browser.find_element(By.ID, "facts").text
    assert "Where you live" in table and "I moved to Hue (since 14 Feb)" in table, table
    assert "was “I live in Da Nang” from 3 Jan until 14 Feb" in table, table
    assert "learner ·" not in text, text
    page_shot(browser, artifacts, "facts", docs_shots)
