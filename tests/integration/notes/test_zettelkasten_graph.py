"""The compiled zettelkasten subgraph end to end (offline model, MiniLM, Neo4j, Redis)."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from agent.context import Context
from agent.notes.artifacts import delete_stream, ensure_group, read_group
from agent.notes.store import NoteStore
from agent.resources import Resources
from bench.note_metrics import note_metrics
from graphs.zettelkasten import graph, make_builder
from tools.note_tools import make_note_tools

VALIDATOR = Path(__file__).resolve().parents[3] / "scripts" / "mermaid-validate"
SESSIONS = [
    (
        "sql.joins",
        [
            {"role": "user", "content": "I keep mixing up inner joins and left joins."},
            {
                "role": "assistant",
                "content": "An inner join returns only rows that match in both tables. A left "
                "join keeps every row of the left table, with NULLs where nothing matches.",
            },
            {"role": "user", "content": "So a left join keeps my customers without orders."},
            {"role": "assistant", "content": "Exactly, the inner join would drop them."},
        ],
    ),
    (
        "sql.null",
        [
            {"role": "user", "content": "Why do NULLs show up after my left join?"},
            {
                "role": "assistant",
                "content": "NULL means a missing value: the left join found no matching row.",
            },
            {"role": "user", "content": "I get it, NULL marks the customers without orders."},
        ],
    ),
]


@pytest.fixture
async def learner(resources: Resources, learner_id: str) -> AsyncIterator[str]:
    yield learner_id
    await NoteStore.for_resources(resources).delete_learner(learner_id)
    await resources.neo4j.execute_query(
        "MATCH (l:Learner {id: $l}) WHERE NOT (l)--() DELETE l",
        {"l": learner_id},
        database_=resources.database,
    )
    await delete_stream(resources.redis, learner_id)


def mermaid_ok(diagrams: list[str]) -> list[dict]:
    node = shutil.which("node")
    assert node and (VALIDATOR / "node_modules").is_dir(), "run `npm ci --prefix scripts/mermaid-validate`"
    proc = subprocess.run(
        [node, str(VALIDATOR / "validate.mjs")],
        input=json.dumps(diagrams),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    return json.loads(proc.stdout)


async def test_compiled_subgraph_end_to_end(resources: Resources, learner: str) -> None:
    await ensure_group(resources.redis, learner, "dashboard")
    subgraph = make_builder(resources).compile(name="zettelkasten")
    events: list[dict] = []
    outputs = []
    for i, (concept, transcript) in enumerate(SESSIONS):
        payload = {
            "learner_id": learner,
            "transcript": transcript,
            "current_concept": concept,
            "session_id": f"s{i}",
        }
        if i == 0:  # custom events while streaming; a re-ingest then returns the output
            async for chunk in subgraph.astream(payload, context=Context(), stream_mode="custom"):
                events.append(chunk)
        outputs.append(await subgraph.ainvoke(payload, context=Context()))
    for out in outputs:
        assert set(out) == {"artifacts", "failures", "metrics"}
        assert out["failures"] == [] and out["artifacts"]
        for art in out["artifacts"]:
            assert set(art) == {"type", "note_id", "content", "concept_map", "links", "tags"}
            assert art["type"] == "ZETTELKASTEN_NOTE" and art["note_id"].startswith("note_")
            assert art["content"] and art["concept_map"].startswith("flowchart")
            assert all(isinstance(x, str) for x in art["links"] + art["tags"])
    assert outputs[0]["metrics"]["notes_created"] == 0  # the re-ingest wrote nothing
    assert outputs[1]["metrics"]["links_created"] >= 1  # NULLs link to the joins notes
    ready = [e for e in events if e.get("event") == "ARTIFACT_READY"]
    assert [e["artifact"] for e in ready] == outputs[0]["artifacts"]
    published = sum(len(o["artifacts"]) for o in outputs)
    delivered = await read_group(resources.redis, learner, "dashboard", "ui", count=100)
    assert len(delivered) == published

    maps = [a["concept_map"] for o in outputs for a in o["artifacts"]]
    assert all(r["ok"] for r in mermaid_ok(maps)), mermaid_ok(maps)
    metrics = await note_metrics(NoteStore.for_resources(resources), learner)
    assert metrics["note_count"] == published and metrics["link_density"] > 0


async def test_disabled_by_context(resources: Resources, learner: str) -> None:
    subgraph = make_builder(resources).compile()
    concept, transcript = SESSIONS[0]
    out = await subgraph.ainvoke(
        {"learner_id": learner, "transcript": transcript, "current_concept": concept},
        context=Context(zettelkasten=False),
    )
    assert out["artifacts"] == [] and out["metrics"]["skipped"] is True


def test_module_level_graph_is_compiled() -> None:
    assert graph.name == "zettelkasten"
    assert set(graph.get_output_jsonschema()["properties"]) == {"artifacts", "failures", "metrics"}


async def test_tools_inject_the_learner(resources: Resources, learner: str) -> None:
    write, search = make_note_tools(resources)
    assert "learner_id" not in json.dumps(write.tool_call_schema.model_json_schema())
    assert "learner_id" not in json.dumps(search.tool_call_schema.model_json_schema())
    concept, transcript = SESSIONS[0]
    state = {"learner_id": learner, "fifo_queue": transcript, "current_concept": concept}
    written = json.loads(await write.coroutine(state=state))
    assert written["ok"] and written["notes"]
    found = json.loads(await search.coroutine(query="left join rows", learner_id=learner))
    assert found["results"] and found["results"][0]["note_id"].startswith("note_")
