"""A second learner's browser sees none of the first learner's data; erasure empties the pages."""

from __future__ import annotations

import pytest
from selenium.webdriver.common.by import By

from agent.memory.core import CoreMemoryStore
from agent.memory.erasure import owned_nodes
from agent.resources import Resources
from tests.integration.dashboard.pages import login, open_page, wait
from tests.integration.dashboard.seed import seed_note

pytestmark = [pytest.mark.integration, pytest.mark.server]


async def test_second_learner_sees_nothing_of_the_first(
    dashboard_server, browser, resources: Resources
) -> None:
    ana, ben = dashboard_server.learners["ana"], dashboard_server.learners["ben"]
    secret = await seed_note(resources, ana.learner_id, "ana private concept", "Only ana reads: tamarind.")
    await CoreMemoryStore(resources.redis).append(ana.learner_id, "user_profile", "ana lives on tamarind st")
    login(browser, dashboard_server.url, ben.token)
    for route in ("#/graph", "#/memory", "#/facts", "#/notes", f"#/note/{secret}"):
        view = open_page(browser, route)
        assert "tamarind" not in view.text and "ana private" not in view.text, (route, view.text[:500])
    assert browser.find_element(By.ID, "view").text.strip() == "No such note."
    open_page(browser, "#/graph")
    assert browser.execute_script("return window.__kagGraph") is None, "ben has no notes to draw"
    assert "tamarind" not in browser.page_source


async def test_erasure_behind_confirmation_empties_every_page(
    dashboard_server, browser, resources: Resources
) -> None:
    cai = dashboard_server.learners["cai"]
    client = cai.client(dashboard_server.url)
    thread_id = (await client.threads.create())["thread_id"]
    await client.runs.wait(
        thread_id, "kag", input={"request": "Remember that my favourite join is the LEFT JOIN."}
    )
    await seed_note(resources, cai.learner_id, "left join", "A LEFT JOIN keeps every left row.")
    await CoreMemoryStore(resources.redis).append(cai.learner_id, "user_profile", "cai likes joins")
    login(browser, dashboard_server.url, cai.token)
    wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, ".note-card"))
    browser.find_element(By.ID, "erase-open").click()
    go = browser.find_element(By.ID, "erase-go")
    assert not go.is_enabled(), "nothing is erased without typing the confirmation"
    browser.find_element(By.ID, "erase-confirm").send_keys("DELETE")
    assert go.is_enabled()
    go.click()
    wait(
        browser, lambda d: d.find_elements(By.ID, "no-notes"), message="the notes page is empty after erasure"
    )
    assert await owned_nodes(resources, cai.learner_id) == 0
    assert (await CoreMemoryStore(resources.redis).read(cai.learner_id))["user_profile"] == ""
    assert await client.threads.search(limit=10) == [], "the learner's threads are gone"
    view = open_page(browser, "#/memory")
    assert "cai likes joins" not in view.text
    assert browser.find_element(By.ID, "activity-chart").get_attribute("data-days") == "0"
    assert browser.find_element(By.ID, "sessions").text == "No sessions yet."


async def test_facts_page_shows_validity_history_and_reminders(
    dashboard_server, browser, resources: Resources
) -> None:
    from agent.memory.facts import FactStore
    from agent.memory.reminders import ReminderStore

    ben = dashboard_server.learners["ben"]
    stores = {"database": resources.database, "clock": resources.clock}
    facts = FactStore(resources.neo4j, resources.embeddings, **stores)
    await facts.remember(ben.learner_id, "I live in Da Nang", valid_from="2026-01-03T09:00:00+00:00")
    await facts.remember(ben.learner_id, "I moved to Hue", valid_from="2026-02-14T09:00:00+00:00")
    reminders = ReminderStore(resources.neo4j, resources.embeddings, **stores)
    await reminders.set(ben.learner_id, "review GROUP BY", keywords=["HAVING"])
    login(browser, dashboard_server.url, ben.token)
    view = open_page(browser, "#/facts")
    table = browser.find_element(By.ID, "facts").text
    assert "Where you live" in table and "I moved to Hue (since 14 Feb)" in table, table
    assert "was “I live in Da Nang” from 3 Jan until 14 Feb" in table, table
    assert "learner ·" not in table and "fact:" not in table, table
    pending = browser.find_element(By.ID, "reminders-pending").text
    assert "review GROUP BY — when you mention HAVING" in pending, view.text


async def test_memory_page_shows_archived_summaries_with_their_source_turns(
    dashboard_server, browser, resources: Resources
) -> None:
    from agent.memory.archival import ArchivalStore
    from agent.memory.recall import RecallMessage, RecallStore

    ben = dashboard_server.learners["ben"]
    shared = {"database": resources.database, "clock": resources.clock}
    recall = RecallStore(resources.neo4j, resources.embeddings, **shared)
    archival = ArchivalStore(resources.neo4j, resources.embeddings, **shared)
    turns = ["What is a HAVING clause?", "It filters groups after GROUP BY."]
    messages = [
        RecallMessage(id=f"{ben.learner_id}-m{i}", role=("user", "assistant")[i % 2], content=text)
        for i, text in enumerate(turns)
    ]
    await recall.log_messages(ben.learner_id, "s-having", messages)
    await archival.write_summary(
        ben.learner_id,
        "The learner asked what HAVING does.",
        message_ids=[m.id for m in messages],
        previous_summary_id=None,
        session_id="s-having",
    )
    login(browser, dashboard_server.url, ben.token)
    open_page(browser, "#/memory")
    summary = browser.find_element(By.CSS_SELECTOR, "details.summary")
    assert "The learner asked what HAVING does." in summary.text
    summary.click()
    shown = [t.text for t in summary.find_elements(By.CSS_SELECTOR, ".turn")]
    assert shown == ["You: What is a HAVING clause?", "Tutor: It filters groups after GROUP BY."], shown
