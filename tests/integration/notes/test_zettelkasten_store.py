"""Notes in the real Neo4j: idempotency, symmetry, degree cap, evolution, lint, isolation."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage

from agent.graphdb.store import now_iso
from agent.notes.artifacts import delete_stream
from agent.notes.evolution import evolve_notes
from agent.notes.linking import expand_note_links, link_note
from agent.notes.pipeline import ingest_session
from agent.notes.store import NoteStore
from agent.resources import Resources
from bench.note_metrics import note_metrics

DIM = 384
SESSION = [
    {"role": "user", "content": "I keep mixing up inner joins and left joins."},
    {
        "role": "assistant",
        "content": "An inner join returns only rows that match in both tables. A left join keeps "
        "every row of the left table, with NULLs where the right table has no match.",
    },
    {"role": "user", "content": "Oh I get it, so a left join keeps my customers without orders."},
    {"role": "assistant", "content": "Exactly. The inner join would drop those customers."},
]
COUNT_NODES = """
MATCH (n:Note {learner_id: $l}) OPTIONAL MATCH (n)-[r:LINKS_TO]->()
RETURN count(DISTINCT n) AS notes, count(r) AS links
"""


def note_store(resources: Resources) -> NoteStore:
    return NoteStore.for_resources(resources)


async def query(resources: Resources, cypher: str, params: dict) -> list[dict]:
    records, _, _ = await resources.neo4j.execute_query(cypher, params, database_=resources.database)
    return [dict(r) for r in records]


async def cleanup(resources: Resources, learner: str) -> None:
    await note_store(resources).delete_learner(learner)
    await query(resources, "MATCH (l:Learner {id: $l}) WHERE NOT (l)--() DELETE l", {"l": learner})
    await delete_stream(resources.redis, learner)


@pytest.fixture
async def learner(resources: Resources, learner_id: str) -> AsyncIterator[str]:
    yield learner_id
    await cleanup(resources, learner_id)


@pytest.fixture
async def other_learner(resources: Resources, learner_id: str) -> AsyncIterator[str]:
    other = learner_id + "-b"
    yield other
    await cleanup(resources, other)


def fake(*replies: str) -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage(content=r) for r in replies]))


def unit(vec: list[float]) -> list[float]:
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec]


def vector(similarity_axis: int, spread: float) -> list[float]:
    """A unit vector near axis 0; larger ``spread`` means lower cosine to axis 0."""
    vec = [0.0] * DIM
    vec[0] = 1.0
    vec[similarity_axis] = spread
    return unit(vec)


async def seed(resources: Resources, learner: str, count: int) -> list[str]:
    store = note_store(resources)
    await store.ensure_schema()
    ids = []
    for i in range(count):
        note_id = f"{learner}-seed-{i:02d}"
        await store.upsert_note(
            learner,
            {
                "id": note_id,
                "learner_id": learner,
                "concept": f"concept {i}",
                "text": f"concept {i}: seeded note",
                "definition": f"concept {i} is seeded.",
                "keywords": [f"k{i}"],
                "tags": ["general"],
                "description": "seeded",
                "embedding": vector(i + 1, 0.1 + 0.05 * i),
                "created_at": now_iso(),
                "audit_json": '{"concept_count": 1}',
            },
        )
        ids.append(note_id)
    return ids


async def counts(resources: Resources, learner: str) -> tuple[int, int]:
    (row,) = await query(resources, COUNT_NODES, {"l": learner})
    return row["notes"], row["links"]


async def test_ingest_writes_schema_and_is_idempotent(resources: Resources, learner: str) -> None:
    first = await ingest_session(resources, learner, SESSION, "sql.joins", "s1")
    assert not first["failures"] and first["metrics"]["notes_created"] == 2
    before = await counts(resources, learner)
    notes = await note_store(resources).get_notes(learner, [a["note_id"] for a in first["artifacts"]])
    for note in notes:
        assert note["learner_id"] == learner and note["created_at"].endswith("+00:00")
        assert note["embedding_model"] == resources.embeddings.model_name
        audit = json.loads(note["audit_json"])
        assert audit["prompt_version"] and audit["embedding_version"] and audit["extractor"]
        assert 1 <= audit["concept_count"] <= 2
    assert sorted(n["seq"] for n in notes) == [1, 2]

    again = await ingest_session(resources, learner, SESSION, "sql.joins", "s1")
    assert [a["note_id"] for a in again["artifacts"]] == [a["note_id"] for a in first["artifacts"]]
    assert again["metrics"]["notes_created"] == 0 and again["metrics"]["artifacts_published"] == 0
    assert await counts(resources, learner) == before


async def test_links_mirror_unless_directional(resources: Resources, learner: str) -> None:
    a, b, c = await seed(resources, learner, 3)
    decisions = {
        "decisions": [
            {"id": a, "relation": "refutes", "rationale": "r", "confidence": 0.9},
            {"id": b, "relation": "elaborates", "rationale": "r", "confidence": 0.8},
            {"id": c, "relation": "supports", "rationale": "too unsure", "confidence": 0.5},
        ]
    }
    new_id = f"{learner}-new"
    props = {
        "id": new_id,
        "learner_id": learner,
        "concept": "new",
        "text": "new note",
        "embedding": vector(1, 0.05),
        "created_at": now_iso(),
    }
    await note_store(resources).upsert_note(learner, props)
    outcome = await link_note(
        note_store(resources),
        fake("not json", json.dumps(decisions)),
        learner,
        props,
        now=now_iso(),
    )
    assert outcome.failure is None and outcome.candidates == 3
    rows = await query(
        resources,
        "MATCH (x:Note {learner_id: $l})-[r:LINKS_TO]->(y) RETURN x.id AS s, y.id AS t, r AS r",
        {"l": learner},
    )
    pairs = {(row["s"], row["t"]): row["r"] for row in rows}
    assert set(pairs) == {(new_id, a), (new_id, b), (b, new_id)}
    assert pairs[(new_id, a)]["directional"] is True
    assert pairs[(new_id, b)]["rationale"] == "r" and pairs[(new_id, b)]["last_validated"]
    assert 0 < pairs[(new_id, b)]["weight"] <= 0.8


async def test_degree_cap_keeps_heaviest(resources: Resources, learner: str) -> None:
    seeded = await seed(resources, learner, 15)
    decisions = {
        "decisions": [{"id": i, "relation": "supports", "rationale": "r", "confidence": 0.9} for i in seeded]
    }
    props = {
        "id": f"{learner}-hub",
        "learner_id": learner,
        "concept": "hub",
        "text": "hub",
        "embedding": vector(1, 0.0),
        "created_at": now_iso(),
    }
    await note_store(resources).upsert_note(learner, props)
    outcome = await link_note(
        note_store(resources),
        fake(json.dumps(decisions)),
        learner,
        props,
        top_k=20,
        degree_cap=12,
        now=now_iso(),
    )
    assert outcome.candidates == 15 and outcome.pruned == 6  # 3 neighbours x 2 directions
    (hub,) = await note_store(resources).get_notes(learner, [props["id"]])
    assert len(hub["links"]) == 12
    kept = {link["target"] for link in hub["links"]}
    assert kept == set(seeded[:12])  # lower spread = higher cosine = heavier
    metrics = await note_metrics(note_store(resources), learner)
    assert metrics["max_degree"] == 12 and metrics["orphan_count"] == 3


async def test_evolution_keeps_revisions_and_lint_rejects(resources: Resources, learner: str) -> None:
    first = await ingest_session(resources, learner, SESSION, "sql.joins", "s1")
    note_id = first["artifacts"][1]["note_id"]
    (before,) = await note_store(resources).get_notes(learner, [note_id])
    good = {"keywords": ["left-join", "rows"], "tags": ["sql"], "description": "A left join."}
    bad = {"keywords": ["postgresql"], "tags": ["sql"], "description": "Codd invented it in 1970."}
    model = fake(json.dumps(good), json.dumps(bad))
    for _ in range(2):
        await evolve_notes(note_store(resources), model, learner, [note_id], now=now_iso())
    (after,) = await note_store(resources).get_notes(learner, [note_id])
    assert after["keywords"] == ["left-join", "rows"] and after["description"] == "A left join."
    revisions = await note_store(resources).get_revisions(learner, note_id)
    kinds = [r["kind"] for r in revisions]
    assert "previous" in kinds and kinds[-1] == "rejected"
    previous = [r for r in revisions if r["kind"] == "previous"][-1]
    assert previous["description"] == before["description"]
    assert any("Codd" in v for v in revisions[-1]["violations"])


async def test_learners_are_isolated(resources: Resources, learner: str, other_learner: str) -> None:
    a = await ingest_session(resources, learner, SESSION, "sql.joins", "s1")
    b = await ingest_session(resources, other_learner, SESSION, "sql.joins", "s1")
    a_ids = {x["note_id"] for x in a["artifacts"]}
    b_ids = {x["note_id"] for x in b["artifacts"]}
    assert a_ids.isdisjoint(b_ids) and b["metrics"]["notes_created"] == 2
    rows = await query(
        resources,
        "MATCH (x:Note)-[:LINKS_TO]-(y:Note) WHERE x.learner_id = $l RETURN collect(y.id) AS ys",
        {"l": other_learner},
    )
    assert not set(rows[0]["ys"]) & a_ids
    expanded = await expand_note_links(note_store(resources), other_learner, list(a_ids), depth=2)
    assert expanded == []
    linked = await expand_note_links(note_store(resources), other_learner, list(b_ids)[:1], depth=2)
    assert not {x["id"] for x in linked} & a_ids


async def test_expand_links(resources: Resources, learner: str) -> None:
    out = await ingest_session(resources, learner, SESSION, "sql.joins", "s1")
    ids = [a["note_id"] for a in out["artifacts"]]
    depth1 = await expand_note_links(note_store(resources), learner, ids[:1], depth=1)
    depth2 = await expand_note_links(note_store(resources), learner, ids[:1], depth=2, decay=0.5)
    assert depth1 and {n["id"] for n in depth1} <= {n["id"] for n in depth2}
    assert [n["score"] for n in depth2] == sorted((n["score"] for n in depth2), reverse=True)
