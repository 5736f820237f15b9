"""The learner dashboard in a real browser (Debian's chromium via Selenium) on a real server.

Ana logs in by pasting her token, runs a tutoring session through the API (the last
turn ends the session, so the Zettelkasten notes are written), sees the new note
arrive live (no reload), opens it (its concept map is an SVG drawn by Mermaid),
visits the knowledge graph, edits core memory (and is told clearly when a section is
over its limit), exports her notes as Markdown, and nothing a crafted note carries
runs as script.
"""

from __future__ import annotations

import io
import shutil
import time
import zipfile
from pathlib import Path

import pytest
from selenium.webdriver.common.by import By

from agent.memory.core import CoreMemoryStore, core_key
from agent.resources import Resources
from tests.integration.dashboard.pages import login, open_page, wait
from tests.integration.dashboard.seed import XSS_DEFINITION, XSS_EXAMPLE, XSS_TITLE, link, seed_note

pytestmark = [pytest.mark.integration, pytest.mark.server]

SESSION = [
    "I keep mixing up inner joins and left joins, it is confusing.",
    "A left join keeps every row of the left table and fills NULLs where the right table has no match.",
    "For example my customers without orders still show up with a left join, which makes sense now.",
]


async def run_session(server, learner) -> list[str]:
    """One tutoring session through the API; the last turn ends it. Returns the new note ids."""
    client = learner.client(server.url)
    thread_id = (await client.threads.create())["thread_id"]
    result: dict = {}
    for i, text in enumerate(SESSION):
        context = {
            "session_id": thread_id,
            "current_concept": "sql.joins",
            "end_session": i == len(SESSION) - 1,
        }
        result = await client.runs.wait(thread_id, "kag", input={"request": text, "context": context})
        assert isinstance(result, dict) and result.get("response"), result
    notes = [a["note_id"] for a in result.get("artifacts") or []]
    assert notes, f"the session wrote no note: {result}"
    return notes


def shot(browser, artifacts: Path, name: str, docs: Path | None = None) -> None:
    """Save a screenshot in the artifact folder (and in ``docs`` when the docs generator names it)."""
    path = artifacts / f"{name}.png"
    assert browser.save_screenshot(str(path)), path
    if docs is not None:
        shutil.copyfile(path, docs / f"{name}.png")


async def test_session_note_arrives_live_map_graph_memory_export(
    dashboard_server, browser, artifacts, docs_shots, resources: Resources
) -> None:
    ana = dashboard_server.learners["ana"]
    login(browser, dashboard_server.url, ana.token)
    assert browser.find_element(By.ID, "whoami").text == ana.learner_id
    assert browser.find_elements(By.ID, "no-notes"), "a new learner starts with no notes"
    wait(browser, lambda d: d.find_element(By.ID, "live-status").text == "live", message="live stream open")
    assert "token" not in browser.current_url.lower() and ana.token not in browser.current_url
    # a note from an earlier session, so the new one links to something in the graph
    earlier = await seed_note(
        resources,
        ana.learner_id,
        "inner join",
        "An INNER JOIN keeps only the rows that match in both tables.",
        example="customers INNER JOIN orders drops customers without orders",
        insight="missing rows after a join usually mean the join type is wrong",
    )
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'.note-card[data-note-id="{earlier}"]'))
    group_by = await seed_note(
        resources,
        ana.learner_id,
        "group by",
        "GROUP BY collapses the rows that share a key into one row per group.",
        example="orders GROUP BY customer_id gives one row per customer",
    )
    having = await seed_note(
        resources,
        ana.learner_id,
        "having",
        "HAVING filters groups after GROUP BY, where WHERE filters rows before it.",
        insight="WHERE cannot see aggregates; HAVING can",
    )
    count = await seed_note(
        resources, ana.learner_id, "count", "COUNT(*) counts the rows of each group.", publish=False
    )
    await link(resources, ana.learner_id, having, group_by, "depends_on")
    await link(resources, ana.learner_id, count, group_by, "example_of")
    await link(resources, ana.learner_id, group_by, earlier, "elaborates")

    written = await run_session(dashboard_server, ana)
    fresh = wait(
        browser,
        lambda d: d.find_elements(By.CSS_SELECTOR, f'.note-card.fresh[data-note-id="{written[0]}"]'),
        message="the session's note appears live",
    )
    assert "join" in fresh[0].text.lower(), fresh[0].text
    assert browser.execute_script("return window.__kagLiveCount") >= 2
    assert browser.find_element(By.ID, "view").get_attribute("data-ready") == "notes", "no reload happened"
    shot(browser, artifacts, "notes-live")

    note_id = fresh[0].get_attribute("data-note-id")
    await link(resources, ana.learner_id, note_id, earlier, "contradicts")
    fresh[0].find_element(By.CSS_SELECTOR, "a.title").click()
    wait(browser, lambda d: d.find_element(By.ID, "view").get_attribute("data-ready") == "note")
    box = wait(
        browser,
        lambda d: (
            d.find_element(By.ID, "concept-map")
            if d.find_element(By.ID, "concept-map").get_attribute("data-rendered")
            else None
        ),
    )
    assert box.get_attribute("data-rendered") == "svg", box.text
    svg = box.find_element(By.TAG_NAME, "svg")
    assert svg.find_elements(By.CSS_SELECTOR, "g.node"), "the map has nodes"
    assert "left join" in svg.text.lower() or "join" in svg.text.lower()
    definition = browser.find_element(By.CSS_SELECTOR, "section.definition").text
    assert "LEFT JOIN" in definition or "left join" in definition.lower()
    links = browser.find_elements(By.CSS_SELECTOR, "#note-links a")
    assert any(a.text == "inner join" for a in links), [a.text for a in links]
    browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
    shot(browser, artifacts, "note", docs_shots)
    browser.execute_script("window.scrollTo(0, 0)")
    next(a for a in links if a.text == "inner join").click()  # typed link → linked note
    wait(browser, lambda d: d.find_element(By.ID, "note-title").text == "inner join")

    open_page(browser, "#/graph")
    graph = browser.execute_script("return window.__kagGraph")
    assert graph["nodes"] >= 2 and graph["edges"] >= 1, graph
    time.sleep(0.5)  # let the layout settle before the screenshot
    shot(browser, artifacts, "graph", docs_shots)

    open_page(browser, "#/memory")
    area = browser.find_element(By.ID, "core-user_profile")
    area.clear()
    area.send_keys("Prefers worked SQL examples with customers and orders.")
    browser.find_element(By.ID, "save-user_profile").click()
    status = browser.find_element(By.ID, "core-status-user_profile")
    wait(browser, lambda d: status.text in {"Saved."} or "error" in status.get_attribute("class"))
    assert status.text == "Saved.", status.text
    stored = await CoreMemoryStore(resources.redis).read(ana.learner_id)
    assert stored["user_profile"] == "Prefers worked SQL examples with customers and orders."
    area.send_keys(" " + "x" * 2100)
    browser.find_element(By.ID, "save-user_profile").click()
    wait(browser, lambda d: "limit of 2000" in status.text, message="a clear error over the limit")
    assert (await resources.redis.hget(core_key(ana.learner_id), "user_profile")).endswith("orders.")
    assert int(browser.find_element(By.ID, "activity-chart").get_attribute("data-days")) >= 1
    assert "join" in browser.find_element(By.ID, "sessions").text, "the server session, named by its topic"
    shot(browser, artifacts, "memory")

    open_page(browser, "#/facts")
    assert browser.find_element(By.CSS_SELECTOR, "#view h2").text == "Facts"
    shot(browser, artifacts, "facts")

    open_page(browser, "#/notes")
    browser.find_element(By.ID, "export").click()
    archive = wait(browser, lambda d: next(iter(d.downloads.glob("*.zip")), None), message="zip download")
    time.sleep(0.2)
    with zipfile.ZipFile(io.BytesIO(archive.read_bytes())) as files:
        names = files.namelist()
        texts = {n: files.read(n).decode() for n in names}
    assert len(names) >= 2 and all(n.endswith(".md") for n in names), names
    joined = "\n".join(texts.values())
    assert joined.count("\n---\n") >= len(names) - 1 and "\ntags:" in joined
    assert "```mermaid\nflowchart LR" in joined
    assert "[[inner-join|" in joined, joined[:2000]  # one renderer with kag notes export: [[file|concept]]
    shutil.copyfile(archive, artifacts / "kag-notes.zip")


async def test_crafted_note_cannot_run_script(
    dashboard_server, browser, artifacts, resources: Resources
) -> None:
    ana = dashboard_server.learners["ana"]
    crafted = await seed_note(resources, ana.learner_id, XSS_TITLE, XSS_DEFINITION, example=XSS_EXAMPLE)
    login(browser, dashboard_server.url, ana.token)
    card = wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, f'.note-card[data-note-id="{crafted}"]'))
    assert "<img" in card[0].text, "the title is shown as text"
    open_page(browser, f"#/note/{crafted}")
    box = wait(
        browser,
        lambda d: (
            d.find_element(By.ID, "concept-map")
            if d.find_element(By.ID, "concept-map").get_attribute("data-rendered")
            else None
        ),
    )
    assert browser.find_element(By.ID, "note-title").text == XSS_TITLE
    assert "<script>" in browser.find_element(By.CSS_SELECTOR, "section.definition").text
    assert box.get_attribute("data-rendered") == "svg"
    assert not browser.find_elements(
        By.CSS_SELECTOR, "#view script, #view img, #view [onerror], #view [onload]"
    )
    open_page(browser, "#/graph")
    open_page(browser, "#/notes")
    time.sleep(0.5)
    assert browser.execute_script("return window.__xss") is None
    shot(browser, artifacts, "crafted-note")
