"""The dashboard's pure parts: Markdown export, fact history lines, SSE frames, asset routing."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import UTC, datetime

import pytest

from agent.errors import InvalidInputError
from agent.notes.markdown import note_filenames, note_markdown
from agent.server.dashboard.activity import day_series, name_sessions
from agent.server.dashboard.assets import CSP, DashboardAssets, asset_for
from agent.server.dashboard.cognitive import group_facts, reminder_words
from agent.server.dashboard.export import as_rendered, export_zip
from agent.server.dashboard.live import frame, resume_id
from agent.server.dashboard.words import aspect_words, day_words, session_name

pytestmark = pytest.mark.unit

NOTES = [
    {
        "id": "note_a",
        "concept": "Left join",
        "definition": "Keeps every left row.",
        "personal_example": "customers without orders",
        "key_insight": "",
        "tags": ["sql", 'we"ird'],
        "keywords": ["left-join"],
        "created_at": "2026-11-24T10:00:00+00:00",
        "concept_map": 'flowchart LR\n  n0(["Left join"])\n  n1["```"]',
        "links": [
            {"id": "note_b", "concept": "left JOIN", "relation": "contradicts"},
            {"id": "note_gone", "concept": "gone", "relation": "supports"},
        ],
    },
    {"id": "note_b", "concept": "left JOIN", "definition": "Another.", "links": []},
]


def test_export_uses_the_one_note_renderer_named_by_concept() -> None:
    """The zip holds exactly what ``kag notes export`` writes (``agent.notes.markdown``), file by file."""
    with zipfile.ZipFile(io.BytesIO(export_zip(NOTES))) as archive:
        assert archive.namelist() == ["kag-notes/left-join.md", "kag-notes/left-join-2.md"]
        first = archive.read("kag-notes/left-join.md").decode()
        second = archive.read("kag-notes/left-join-2.md").decode()
    rendered = [as_rendered(n) for n in NOTES]
    names = note_filenames(rendered)
    assert first == note_markdown(rendered[0], names) and second == note_markdown(rendered[1], names)
    head, body = first.split("\n---\n", 1)
    assert head.startswith('---\nid: "note_a"') and '  - "we-ird"' in head
    assert "**Example:** customers without orders" in body and "Insight" not in body
    assert "- contradicts: [[left-join-2|left JOIN]]" in body, "a dashboard link is a wikilink that resolves"
    assert "note_gone" not in body and "note_b" not in body, "no internal id in the prose"
    assert "```mermaid\nflowchart LR" in body
    assert "# left JOIN" in second


NOW = datetime(2026, 11, 28, 12, tzinfo=UTC)


def test_group_facts_speaks_of_the_slot_in_words_and_fills_the_history() -> None:
    versions = [  # newest first, as FactStore.history returns them
        {
            "id": "fact-new",
            "subject": "learner",
            "predicate": "residence",
            "content": "Hue",
            "valid_from": "2026-02-14T09:00:00Z",
            "valid_to": None,
        },
        {
            "id": "fact-old",
            "subject": "learner",
            "predicate": "residence",
            "content": "Da Nang",
            "valid_from": "2026-01-03T09:00:00Z",
            "valid_to": "2026-02-14T09:00:00Z",
        },
        {
            "id": "fact-pet",
            "subject": "learner",
            "predicate": "fact:d9a01b8fc28f6ec2",
            "content": "I have a cat",
            "valid_from": None,
            "valid_to": None,
        },
    ]
    residence, pet = group_facts(versions, NOW)
    assert residence["about"] == "Where you live"
    assert residence["current"]["summary"] == "Hue (since 14 Feb)"
    assert [h["summary"] for h in residence["history"]] == ["was “Da Nang” from 3 Jan until 14 Feb"]
    assert pet["about"] == "Something you said" and pet["current"]["summary"] == "I have a cat"
    assert "fact" not in json.dumps([residence, pet]).replace("fact-", "")


def test_a_superseded_fact_joins_the_slot_of_the_fact_that_replaced_it() -> None:
    versions = [
        {
            "id": "b",
            "subject": "learner",
            "predicate": "fact:0123456789abcdef",
            "content": "The exam moved to 20 May",
            "valid_from": "2026-05-01T00:00:00Z",
            "valid_to": None,
            "superseded": ["a"],
        },
        {
            "id": "a",
            "subject": "learner",
            "predicate": "fact:fedcba9876543210",
            "content": "The exam is on 13 May",
            "valid_from": "2025-04-01T00:00:00Z",
            "valid_to": "2026-05-01T00:00:00Z",
            "concept": "exam",
        },
    ]
    (slot,) = group_facts(versions, NOW)
    assert slot["current"]["text"] == "The exam moved to 20 May"
    assert slot["history"][0]["summary"] == "was “The exam is on 13 May” from 1 Apr 2025 until 1 May"


@pytest.mark.parametrize(
    "subject, predicate, concept, expected",
    [
        ("learner", "job", None, "Your work"),
        ("learner", "fact:d9a01b8fc28f6ec2", "window functions", "About window functions"),
        ("learner", "fact:d9a01b8fc28f6ec2", None, "Something you said"),
        ("learner", "favourite_language", None, "favourite language"),
        ("project", "deadline", None, "project: deadline"),
    ],
)
def test_aspect_words_never_show_an_id(subject, predicate, concept, expected) -> None:
    assert aspect_words(subject, predicate, concept) == expected


def test_days_and_sessions_in_words() -> None:
    assert day_words("2026-05-12T08:00:00+00:00", NOW) == "12 May"
    assert day_words("2025-12-31T08:00:00", NOW) == "31 Dec 2025"
    assert day_words("not a time", NOW) == "" and day_words(None, NOW) == ""
    assert session_name("2026-05-12T08:00:00Z", "left join", None, NOW) == "12 May · left join"
    assert session_name("2026-05-12T08:00:00Z", None, "I keep mixing up inner and left joins today", NOW) == (
        "12 May · I keep mixing up inner and left…"
    )


def test_day_series_counts_per_day_and_sessions_carry_no_id() -> None:
    rows = [
        {"day": "2026-11-27", "kind": "notes", "n": 2},
        {"day": "2026-11-27", "kind": "facts", "n": 1},
        {"day": "2026-11-28", "kind": "recalled", "n": 3},
        {"day": "2026-01-01", "kind": "notes", "n": 9},  # older than the window
    ]
    assert day_series(rows, NOW) == [
        {"day": "2026-11-27", "label": "27 Nov", "notes": 2, "facts": 1, "recalled": 0},
        {"day": "2026-11-28", "label": "28 Nov", "notes": 0, "facts": 0, "recalled": 3},
    ]
    sessions = name_sessions(
        [
            {"session_id": "0f1e2d3c-4b5a", "started": "2026-11-27T10:00Z", "turns": 3, "first_words": "hi"},
            {"session_id": "cli-77", "started": "2026-11-28T10:00Z", "turns": 1, "first_words": "Why a CTE?"},
        ],
        {"0f1e2d3c-4b5a": ["left join", "inner join"]},
        NOW,
    )
    assert [s["name"] for s in sessions] == ["27 Nov · left join", "28 Nov · Why a CTE?"]
    assert "0f1e2d3c" not in json.dumps(sessions) and "cli-77" not in json.dumps(sessions)


def test_reminder_words_say_when_without_an_id() -> None:
    record = {
        "id": "rem-0123456789abcdef",
        "description": "review GROUP BY",
        "keywords": ["HAVING"],
        "due_at": "2026-12-02T09:00:00Z",
        "status": "pending",
        "created_at": "2026-11-27T09:00:00Z",
    }
    item = reminder_words(record, NOW)
    assert item["summary"] == "review GROUP BY — when you mention HAVING or on 2 Dec"
    assert item["set_on"] == "27 Nov" and "rem-" not in json.dumps(item)


@pytest.mark.parametrize(
    "value, expected", [(None, None), ("", None), (" 1732480000000-0 ", "1732480000000-0")]
)
def test_resume_id_accepts_stream_ids(value, expected) -> None:
    assert resume_id(value) == expected


@pytest.mark.parametrize("value", ["$", ">", "0", "1-2-3", "kag:artifacts:x", "1\nid: 2-0"])
def test_resume_id_refuses_anything_else(value) -> None:
    with pytest.raises(InvalidInputError):
        resume_id(value)


def test_frame_is_one_sse_event_with_json_on_one_line() -> None:
    text = frame("ARTIFACT_READY", "1-0", {"content": "a\nb <script>"})
    assert text == 'id: 1-0\nevent: ARTIFACT_READY\ndata: {"content": "a\\nb <script>"}\n\n'


@pytest.mark.parametrize(
    "path, name, ours",
    [
        ("/dashboard", "index.html", True),
        ("/dashboard/", "index.html", True),
        ("/dashboard/static/app.js", "app.js", True),
        ("/dashboard/static/../assets.py", None, True),
        ("/dashboard/static/", None, True),
        ("/dashboard/vendor/mermaid.min.js", "mermaid.min.js", True),
        ("/dashboard/vendor/../../app.py", None, True),
        ("/dashboard/api/notes", None, False),
        ("/dashboardx", None, False),
        ("/threads", None, False),
    ],
)
def test_asset_for_serves_only_known_files(path, name, ours) -> None:
    file, is_ours = asset_for(path)
    assert is_ours is ours
    assert (file.name if file else None) == name


async def test_assets_middleware_sets_csp_and_passes_the_api_on() -> None:
    reached: list[str] = []

    async def app(scope, receive, send):
        reached.append(scope["path"])
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    sent: list[dict] = []

    async def send(message):
        sent.append(message)

    middleware = DashboardAssets(app)
    await middleware({"type": "http", "method": "GET", "path": "/dashboard", "headers": []}, None, send)
    headers = dict(sent[0]["headers"])
    assert sent[0]["status"] == 200 and headers[b"content-security-policy"] == CSP.encode()
    assert b'<script src="/dashboard/static/app.js" defer></script>' in sent[1]["body"]
    for method, path in (("GET", "/dashboard/api/me"), ("POST", "/dashboard")):
        await middleware({"type": "http", "method": method, "path": path, "headers": []}, None, send)
    assert reached == ["/dashboard/api/me", "/dashboard"]
