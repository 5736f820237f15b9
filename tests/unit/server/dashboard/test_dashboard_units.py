"""The dashboard's pure parts: Markdown export, fact history lines, SSE frames, asset routing."""

from __future__ import annotations

import io
import zipfile

import pytest

from agent.errors import InvalidInputError
from agent.server.dashboard.assets import CSP, DashboardAssets, asset_for
from agent.server.dashboard.cognitive import group_facts
from agent.server.dashboard.export import export_zip, file_names, note_markdown
from agent.server.dashboard.live import frame, resume_id

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
        "links": [{"id": "note_b", "relation": "contradicts"}, {"id": "note_gone", "relation": "supports"}],
    },
    {"id": "note_b", "concept": "left JOIN", "definition": "Another.", "links": []},
]


def test_file_names_are_unique_slugs() -> None:
    assert file_names(NOTES) == {"note_a": "left-join", "note_b": "left-join-2"}


def test_note_markdown_has_front_matter_wikilinks_and_a_mermaid_block() -> None:
    text = note_markdown(NOTES[0], file_names(NOTES))
    head, body = text.split("\n---\n", 1)
    assert head.startswith('---\nid: "note_a"') and 'tags: ["sql", "we\\"ird"]' in head
    assert "## Example\n\ncustomers without orders" in body and "## Insight" not in body
    assert "- contradicts: [[left-join-2]]" in body and "note_gone" not in body
    assert "````mermaid\nflowchart LR" in body and body.rstrip().endswith("````"), "fence longer than ```"


def test_export_zip_holds_one_markdown_file_per_note() -> None:
    with zipfile.ZipFile(io.BytesIO(export_zip(NOTES))) as archive:
        assert archive.namelist() == ["kag-notes/left-join.md", "kag-notes/left-join-2.md"]
        assert "# left JOIN" in archive.read("kag-notes/left-join-2.md").decode()


def test_group_facts_keeps_the_current_value_and_says_until_when_the_old_one_held() -> None:
    versions = [  # newest first, as FactStore.history returns them
        {
            "subject": "learner",
            "predicate": "residence",
            "content": "Hue",
            "valid_from": "2026-02-14T09:00:00Z",
            "valid_to": None,
        },
        {
            "subject": "learner",
            "predicate": "residence",
            "content": "Da Nang",
            "valid_from": "2026-01-03T09:00:00Z",
            "valid_to": "2026-02-14T09:00:00Z",
        },
        {"subject": "learner", "predicate": "pet", "content": "a cat", "valid_from": None, "valid_to": None},
    ]
    residence, pet = group_facts(versions)
    assert residence["current"]["summary"] == "Hue since 2026-02-14"
    assert [h["summary"] for h in residence["history"]] == ["was “Da Nang” until 2026-02-14"]
    assert pet["current"]["summary"] == "a cat" and pet["history"] == []


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
