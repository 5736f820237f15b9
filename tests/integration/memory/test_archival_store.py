"""Archival store against the real Neo4j and Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.errors import InvalidInputError
from agent.graphdb.schema import SchemaMismatchError, schema_names, setup_schema
from agent.memory.archival import ArchivalStore
from agent.memory.backlog import WriteBacklog
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources
from agent.search.queries import CONTEXT_HYDRATE, SESSION_MEMORIES
from agent.search.recipes import RECIPES, SearchRecipe

CONTEXT = SearchRecipe("context", "hybrid_rrf + neighbouring turns of the same session.", context_weight=0.5)


@pytest.fixture
async def stores(resources: Resources, learner_id: str) -> AsyncIterator[tuple[ArchivalStore, RecallStore]]:
    """Stores with a private backlog prefix; deletes this learner's data afterwards."""
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}")
    archival = ArchivalStore(
        resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog
    )
    recall = RecallStore(resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog)
    await archival.setup()
    yield archival, recall
    await backlog.wait_idle()
    others = [f"{learner_id}-other"]
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in [learner_id, *others]:
            await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Message {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


class FakeEmbeddings:
    model_name = "fake-wide-model"
    dimension = 768
    version = "fake-1"

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [[0.0] * 768 for _ in texts]

    def embed_query(self, text: str) -> list[float]:
        return [0.0] * 768


async def test_setup_is_idempotent_and_records_the_model(
    stores: tuple[ArchivalStore, RecallStore], resources: Resources
) -> None:
    archival, _ = stores
    await archival.setup()
    names = await setup_schema(resources.neo4j, resources.database, resources.embeddings)
    await setup_schema(resources.neo4j, resources.database, resources.embeddings)
    assert names == schema_names(resources.embeddings)
    assert names.memory_vector == "memory_all_minilm_l6_v2_384"
    indexes = {
        r["name"]: r
        for r in await rows(
            resources,
            "SHOW INDEXES YIELD name, type, labelsOrTypes, properties, options "
            "RETURN name, type, labelsOrTypes, properties, options",
        )
    }
    vector = indexes[names.memory_vector]
    assert vector["type"] == "VECTOR"
    assert vector["options"]["indexConfig"]["vector.dimensions"] == 384
    assert indexes[names.message_vector]["labelsOrTypes"] == ["Message"]
    assert indexes[names.memory_fulltext]["type"] == "FULLTEXT"
    assert set(indexes[names.memory_fulltext]["labelsOrTypes"]) == {"Memory", "SessionSummary"}
    assert indexes[names.message_fulltext]["properties"] == ["content", "learner_key"]
    recorded = await rows(
        resources,
        "MATCH (e:EmbeddingIndex {name: $n}) RETURN e.model AS model, e.dimension AS dim, "
        "e.version AS version, count(*) AS copies",
        n=names.memory_vector,
    )
    assert recorded == [
        {
            "model": "all-MiniLM-L6-v2",
            "dim": 384,
            "version": resources.embeddings.version,
            "copies": 1,
        }
    ]
    constraints = {r["name"] for r in await rows(resources, "SHOW CONSTRAINTS YIELD name")}
    assert {
        "learner_id_unique",
        "memory_id_unique",
        "message_id_unique",
        "session_summary_id_unique",
    } <= constraints


def _plan_details(plan: dict) -> list[str]:
    """Every operator's details in an EXPLAIN plan, depth first."""
    details = [str(plan.get("args", {}).get("Details", ""))]
    for child in plan.get("children", []):
        details += _plan_details(child)
    return details


async def test_session_reads_seek_the_learner_session_index(
    stores: tuple[ArchivalStore, RecallStore], resources: Resources
) -> None:
    """The session and context retrievers seek one session's memories by index.

    Through ``Memory(learner_id, session_id)``, not a scan of all the learner's memories per session.
    """
    params = {
        "learner_id": "x",
        "sessions": ["s"],
        "embedding": [0.0] * 384,
        "kinds": None,
        "per_session": 5,
        "seeds": ["a"],
        "window": 1,
        "ids": [],
        "limit": 5,
    }
    seek = "RANGE INDEX n:Memory(learner_id, session_id)"
    async with resources.neo4j.session(database=resources.database) as session:
        for query, seeks in ((SESSION_MEMORIES, 1), (CONTEXT_HYDRATE["Memory"], 2)):
            summary = await (await session.run("EXPLAIN " + query, params)).consume()
            found = [d for d in _plan_details(summary.plan) if d.startswith(seek)]
            assert len(found) == seeks, _plan_details(summary.plan)


async def test_setup_refuses_embeddings_of_another_dimension(resources: Resources) -> None:
    with pytest.raises(SchemaMismatchError, match="dimension 384"):
        await setup_schema(resources.neo4j, resources.database, FakeEmbeddings())


async def test_insert_then_search_round_trip_for_every_recipe(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str
) -> None:
    archival, _ = stores
    texts = {
        "joins": "The learner confuses LEFT JOIN with INNER JOIN when rows have no match",
        "python": "Python list comprehensions feel natural to the learner",
        "goal": "Goal: pass the database exam on Friday",
        "pet": "The learner has a cat named Pixel",
    }
    ids = {}
    for key, text in texts.items():
        record = await archival.insert(learner_id, text, tags=[key], session_id="s-1")
        assert record.created is True and not record.degraded
        ids[key] = record.id
    for name in RECIPES:
        page = await archival.search(learner_id, "LEFT JOIN rows without a match", recipe=name)
        assert not page.degraded
        assert page.results, name
        assert page.results[0].id == ids["joins"], (name, [h.text for h in page.results])
        assert page.results[0].text == texts["joins"]
        assert page.results[0].tags == ["joins"]
        assert page.results[0].created_at.endswith("+00:00")
        assert "rrf" in page.results[0].scores
    fulltext = await archival.search(learner_id, "Pixel", recipe="fulltext_only")
    assert [h.id for h in fulltext.results] == [ids["pet"]]


async def test_paging_covers_every_hit_once(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str
) -> None:
    archival, _ = stores
    inserted = {
        (await archival.insert(learner_id, f"Flashcard {i}: recursion base case number {i}")).id
        for i in range(12)
    }
    seen: list[str] = []
    pages = []
    for page_no in range(4):
        page = await archival.search(learner_id, "recursion base case", page=page_no, page_size=5)
        pages.append(page)
        seen += [h.id for h in page.results]
    assert [len(p.results) for p in pages] == [5, 5, 2, 0]
    assert [p.has_more for p in pages] == [True, True, False, False]
    assert len(seen) == len(set(seen)) == 12
    assert set(seen) == inserted
    with pytest.raises(InvalidInputError):
        await archival.search(learner_id, "x", page=-1)
    with pytest.raises(InvalidInputError):
        await archival.search(learner_id, "x", page_size=0)


async def test_kinds_filter(stores: tuple[ArchivalStore, RecallStore], learner_id: str) -> None:
    archival, _ = stores
    fact = await archival.insert(learner_id, "A primary key uniquely identifies a row", kind="fact")
    await archival.insert(learner_id, "The learner asked about primary keys twice")
    for recipe in RECIPES:
        page = await archival.search(learner_id, "primary key", kinds=["fact"], recipe=recipe)
        assert [h.id for h in page.results] == [fact.id], recipe
        assert page.results[0].kind == "fact"
    both = await archival.search(learner_id, "primary key", kinds=["fact", "memory"])
    assert len(both.results) == 2
    assert (await archival.search(learner_id, "primary key", kinds=["nothing"])).results == []


async def test_summary_links_messages_and_folds_the_previous_one(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str, resources: Resources
) -> None:
    archival, recall = stores
    messages = [
        RecallMessage(id=f"{learner_id}-m{i}", role="user" if i % 2 else "assistant", content=c)
        for i, c in enumerate(["What is a join?", "It combines rows.", "And a LEFT JOIN?"])
    ]
    await recall.log_messages(learner_id, "s-1", messages)
    first = await archival.write_summary(
        learner_id,
        "The learner asked what a join is.",
        message_ids=[m.id for m in messages[:2]],
        previous_summary_id=None,
        session_id="s-1",
    )
    second = await archival.write_summary(
        learner_id,
        "The learner asked about joins, then about LEFT JOIN.",
        message_ids=[messages[2].id],
        previous_summary_id=first.id,
        session_id="s-1",
        raw=True,
    )
    assert not second.degraded and first != second
    retry = await archival.write_summary(
        learner_id,
        "The learner asked about joins, then about LEFT JOIN.",
        message_ids=[messages[2].id],
        previous_summary_id=first.id,
        session_id="s-1",
        raw=True,
    )
    assert retry == second
    graph = await rows(
        resources,
        "MATCH (l:Learner {id: $l})-[:HAS_SUMMARY]->(s:SessionSummary:Memory) "
        "OPTIONAL MATCH (s)-[:SUMMARIZES]->(m:Message) "
        "OPTIONAL MATCH (s)-[:FOLDS]->(p:SessionSummary) "
        "RETURN s.id AS id, s.kind AS kind, collect(DISTINCT m.id) AS messages, "
        "collect(DISTINCT p.id) AS folds, s.seq AS seq ORDER BY seq",
        l=learner_id,
    )
    assert [(g["id"], g["kind"], sorted(g["messages"]), g["folds"]) for g in graph] == [
        (first.id, "summary", sorted(m.id for m in messages[:2]), []),
        (second.id, "raw_summary", [messages[2].id], [first.id]),
    ]
    page = await archival.search(learner_id, "LEFT JOIN", kinds=["summary", "raw_summary"])
    assert page.results[0].id == second.id
    assert page.results[0].metadata["label"] == "SessionSummary"


async def test_insert_is_idempotent_and_seq_monotonic(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str, resources: Resources
) -> None:
    archival, _ = stores
    a = await archival.insert(learner_id, "Normal forms reduce redundancy")
    again = await archival.insert(learner_id, "Normal forms reduce redundancy")
    b = await archival.insert(learner_id, "Indexes speed up lookups")
    explicit = await archival.insert(learner_id, "Custom id memory", memory_id="custom-1")
    explicit_again = await archival.insert(learner_id, "Different text, same id", memory_id="custom-1")
    assert again.id == a.id and again.created is False and again.seq == a.seq
    assert explicit_again.created is False
    assert a.seq < b.seq < explicit.seq
    counts = await rows(
        resources,
        "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(m:Memory) RETURN count(m) AS n, collect(m.text) AS texts",
        l=learner_id,
    )
    assert counts[0]["n"] == 3
    assert "Different text, same id" not in counts[0]["texts"]  # the first write wins


async def test_memory_id_of_another_learner_is_rejected(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str, resources: Resources
) -> None:
    archival, _ = stores
    await archival.insert(learner_id, "Mine", memory_id=f"{learner_id}-shared")
    with pytest.raises(InvalidInputError, match="another learner"):
        await archival.insert(f"{learner_id}-other", "Theirs", memory_id=f"{learner_id}-shared")
    owner = await rows(
        resources,
        "MATCH (m:Memory {id: $id}) OPTIONAL MATCH (l:Learner)-[:HAS_MEMORY]->(m) "
        "RETURN m.learner_id AS owner, m.text AS text, collect(l.id) AS linked",
        id=f"{learner_id}-shared",
    )
    assert owner == [{"owner": learner_id, "text": "Mine", "linked": [learner_id]}]


@pytest.mark.parametrize("content", ["", "   ", "x" * (32 * 1024 + 1)])
async def test_invalid_content_is_rejected(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str, content: str
) -> None:
    archival, _ = stores
    with pytest.raises(InvalidInputError):
        await archival.insert(learner_id, content)


async def test_invalid_arguments_are_rejected(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str
) -> None:
    archival, _ = stores
    with pytest.raises(InvalidInputError):
        await archival.insert("", "text")
    with pytest.raises(InvalidInputError):
        await archival.insert(learner_id, "text", kind="bad kind!")
    with pytest.raises(InvalidInputError):
        await archival.insert(learner_id, "text", occurred_at="yesterday")
    with pytest.raises(InvalidInputError, match="hybrid_rrf"):
        await archival.search(learner_id, "x", recipe="nope")


async def test_context_recipe_adds_session_neighbours(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str
) -> None:
    archival, _ = stores
    before = await archival.insert(learner_id, "Warm-up: recap of SELECT", session_id="s-ctx")
    target = await archival.insert(learner_id, "Window functions use OVER", session_id="s-ctx")
    after = await archival.insert(learner_id, "Homework assigned for Monday", session_id="s-ctx")
    page = await archival.search(learner_id, "window functions OVER", recipe=CONTEXT)
    by_id = {h.id: h for h in page.results}
    assert page.results[0].id == target.id
    assert "context" in by_id[before.id].scores and "context" in by_id[after.id].scores
    plain = await archival.search(learner_id, "window functions OVER", recipe="hybrid_rrf")
    assert all("context" not in h.scores for h in plain.results)


async def test_vector_search_falls_back_to_an_exact_scan_when_crowded_out(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str
) -> None:
    archival, _ = stores
    crowd = f"{learner_id}-other"
    for i in range(6):
        await archival.insert(crowd, f"Normalization to third normal form {'!' * i}")
    mine = await archival.insert(learner_id, "Third normal form removes transitive dependencies")
    tight = SearchRecipe("tight", fulltext_weight=0.0, min_candidates=1, candidate_factor=1, oversample=1)
    page = await archival.search(learner_id, "Normalization to third normal form", recipe=tight, page_size=2)
    assert [h.id for h in page.results] == [mine.id]


async def test_blank_query_lists_newest_first(
    stores: tuple[ArchivalStore, RecallStore], learner_id: str
) -> None:
    archival, _ = stores
    first = await archival.insert(learner_id, "first memory")
    second = await archival.insert(learner_id, "second memory")
    page = await archival.search(learner_id, "   ")
    assert [h.id for h in page.results] == [second.id, first.id]
