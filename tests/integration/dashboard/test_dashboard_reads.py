"""The dashboard's read models on the real Neo4j: sessions (CLI included), facts in words, link counts.

No browser: these call the functions behind ``/dashboard/api/activity``, ``facts`` and
``notes`` with the shared ``Resources``, for a learner of this test alone.
"""

from __future__ import annotations

import json
import re
import uuid

import pytest

from agent.context import Context
from agent.memory.facts import FactStore
from agent.memory.recall import RecallMessage, RecallStore
from agent.memory.reminders import ReminderStore
from agent.resources import Resources
from agent.server.dashboard.activity import ActivityReads, activity_view
from agent.server.dashboard.cognitive import facts_view
from agent.server.dashboard.reads import DashboardReads
from graphs.cli.session import run_request
from graphs.heartbeat import make_builder
from tests.integration.dashboard.seed import link, seed_note

pytestmark = [pytest.mark.integration]

INTERNAL_ID = re.compile(r"[0-9a-f]{12,}|fact:|note_|fact-|rem-")
"""What an internal id looks like: a long hex run or an id prefix."""


def shown_text(value: object) -> str:
    """Every string a page would show from ``value`` (keys and ids the page never prints left out)."""
    if isinstance(value, dict):
        return " ".join(shown_text(v) for k, v in value.items() if k not in {"id", "day", "due_at"})
    if isinstance(value, list):
        return " ".join(shown_text(v) for v in value)
    return str(value) if isinstance(value, str) else ""


async def test_sessions_from_server_and_cli_are_named_by_date_and_topic(
    resources: Resources, learner_id: str, redis_saver
) -> None:
    recall = RecallStore(resources.neo4j, resources.embeddings, database=resources.database)
    server_session = str(uuid.uuid4())
    turns = ["I keep mixing up joins.", "A left join keeps every left row."]
    await recall.log_messages(
        learner_id,
        server_session,
        [RecallMessage(id=f"{learner_id}-s{i}", role="user", content=t) for i, t in enumerate(turns)],
    )
    await seed_note(
        resources, learner_id, "left join", "A LEFT JOIN keeps every left row.", session_id=server_session
    )
    # a CLI session: the CLI's own request function over the heartbeat, in this process
    graph = make_builder(resources).compile(checkpointer=redis_saver)
    cli_session = str(uuid.uuid4())
    said = "A window function computes a value over rows related to the current row."
    await run_request(graph, learner_id, said, cli_session, Context(), end_session=True, show_phases=False)
    other = f"{learner_id}-other"
    await recall.log_messages(
        other, "elsewhere", [RecallMessage(id=f"{other}-m", role="user", content="tamarind")]
    )

    sessions = await ActivityReads.for_resources(resources).sessions(learner_id)
    today = f"{resources.clock().day} {resources.clock().strftime('%b')}"
    names = [s["name"] for s in sessions]
    assert f"{today} · left join" in names, names
    cli = next(s for s in sessions if s["name"] != f"{today} · left join")
    assert cli["name"].startswith(today + " · window function") or "window function" in cli["name"], cli
    assert cli["turns"] == 1, cli
    assert "tamarind" not in json.dumps(sessions), "another learner's session"
    assert not INTERNAL_ID.search(shown_text(sessions)), sessions


async def test_activity_counts_what_was_learned_due_and_recalled(
    resources: Resources, learner_id: str
) -> None:
    shared = {"database": resources.database, "clock": resources.clock}
    await seed_note(resources, learner_id, "group by", "GROUP BY makes one row per group.", publish=False)
    facts = FactStore(resources.neo4j, resources.embeddings, **shared)
    await facts.remember(learner_id, "I work as a data analyst")
    await ReminderStore(resources.neo4j, resources.embeddings, **shared).set(
        learner_id, "review GROUP BY", keywords=["HAVING"]
    )
    await facts.search(learner_id, "what is my job?")  # a read: the fact comes back

    view = await activity_view(resources, learner_id)
    today = resources.clock().date().isoformat()
    (day,) = [d for d in view["days"] if d["day"] == today]
    assert day["notes"] == 1 and day["facts"] == 1 and day["recalled"] >= 1, view["days"]
    assert [r["summary"] for r in view["due"]] == ["review GROUP BY — when you mention HAVING"]
    assert any("data analyst" in r["text"] for r in view["recalled"]), view["recalled"]
    assert not INTERNAL_ID.search(shown_text(view)), shown_text(view)


async def test_facts_view_names_the_slot_and_fills_the_history(resources: Resources, learner_id: str) -> None:
    facts = FactStore(
        resources.neo4j, resources.embeddings, database=resources.database, clock=resources.clock
    )
    await facts.remember(learner_id, "I live in Da Nang", valid_from="2025-01-03T09:00:00+00:00")
    await facts.remember(learner_id, "I moved to Hue", valid_from="2025-02-14T09:00:00+00:00")
    await facts.remember(learner_id, "Window functions finally make sense to me")

    view = await facts_view(resources, learner_id)
    slots = {s["about"]: s for s in view["slots"]}
    assert "Where you live" in slots, list(slots)
    home = slots["Where you live"]
    assert home["current"]["summary"] == "I moved to Hue (since 14 Feb 2025)"
    assert [h["summary"] for h in home["history"]] == [
        "was “I live in Da Nang” from 3 Jan 2025 until 14 Feb 2025"
    ]
    assert not INTERNAL_ID.search(shown_text(view)), shown_text(view)


async def test_a_note_card_counts_the_links_its_page_lists(resources: Resources, learner_id: str) -> None:
    a = await seed_note(resources, learner_id, "join", "A JOIN combines rows of two tables.", publish=False)
    b = await seed_note(
        resources, learner_id, "left join", "A LEFT JOIN keeps every left row.", publish=False
    )
    c = await seed_note(
        resources, learner_id, "anti join", "An anti join keeps unmatched rows.", publish=False
    )
    await link(resources, learner_id, b, a, "elaborates")
    await link(resources, learner_id, c, a, "refutes")
    await link(resources, learner_id, c, b, "elaborates")  # each direction its own relation:
    await link(resources, learner_id, b, c, "contradicts")  # the page lists two links, as many as counted
    reads = DashboardReads.for_resources(resources)
    cards = {n["id"]: n["degree"] for n in await reads.list_notes(learner_id)}
    for note_id, expected in ((a, 2), (b, 3), (c, 3)):
        page = await reads.note(learner_id, note_id)
        assert page is not None
        assert cards[note_id] == len(page["links"]) == page["degree"] == expected, (note_id, page["links"])
    found = await reads.search_notes(resources, learner_id, "left join")
    assert {n["id"]: n["degree"] for n in found}.get(b) == 3
