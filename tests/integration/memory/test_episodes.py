"""Episodic memory on the real Neo4j: consolidation, preference in ranking, the timeline."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Sequence

import neo4j
import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError
from agent.memory.archival import ArchivalStore
from agent.memory.episodes import EpisodeStore
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources

FACTS = [
    "My dog is called Rex. He sleeps under my desk.",
    "I moved to Hanoi last spring.",
    "I teach chemistry at a high school.",
    "Hi again! My favourite database is PostgreSQL.",
    "I keep mixing up LEFT JOIN and INNER JOIN.",
    "My capybara mnemonic: the capybara keeps every row on the left.",
    "I study on Tuesdays and Thursdays.",
    "My sister Lan is a data engineer.",
    "I drink green tea while coding.",
    "I want to pass the SQL exam in June.",
    "The zebra query returned duplicate rows yesterday.",
]


@pytest.fixture
async def stores(resources: Resources, learner_id: str) -> AsyncIterator[tuple[RecallStore, EpisodeStore]]:
    """Recall and episode stores on a manual clock; the learners' data are erased afterwards."""
    clock = ManualClock("2026-03-02T09:00:00+00:00")
    neo = (resources.neo4j, resources.embeddings)
    recall = RecallStore(*neo, database=resources.database, clock=clock)
    episodes = EpisodeStore(*neo, database=resources.database, clock=clock)
    await episodes.setup()
    yield recall, episodes
    for lid in (learner_id, f"{learner_id}-other"):
        await erase_learner(resources, lid)


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


def turn(learner_id: str, n: int, text: str, *, session: int = 1) -> list[RecallMessage]:
    """A learner message and the tutor's reply, stamped ``n`` minutes into the day."""
    at = f"2026-03-0{session}T10:{n:02d}:00+00:00"
    return [
        RecallMessage(id=f"{learner_id}-u{n}", role="user", content=text, created_at=at),
        RecallMessage(id=f"{learner_id}-a{n}", role="assistant", content="Noted, thanks.", created_at=at),
    ]


async def log_turns(recall: RecallStore, learner_id: str, texts: Sequence[str], start: int = 0) -> None:
    for n, text in enumerate(texts, start=start):
        session = 1 if n < 5 else 2
        await recall.log_messages(learner_id, f"s{session}", turn(learner_id, n, text, session=session))


async def test_consolidates_at_exactly_ten_and_keeps_the_originals(
    stores: tuple[RecallStore, EpisodeStore], resources: Resources, learner_id: str
) -> None:
    recall, episodes = stores
    await log_turns(recall, learner_id, FACTS[:9])
    assert await episodes.consolidate_due(learner_id) is None  # 9 learner episodes (18 messages)
    await log_turns(recall, learner_id, FACTS[9:10], start=9)
    record = await episodes.consolidate_due(learner_id)
    assert record is not None
    assert record["count"] == 10 and record["message_ids"] == [f"{learner_id}-u{n}" for n in range(10)]
    assert record["valid_from"] == "2026-03-01T10:00:00+00:00"
    assert record["valid_to"] == "2026-03-02T10:09:00+00:00"
    assert record["session_ids"] == ["s1", "s2"]
    for fact in ("Rex", "sleeps under my desk", "Hanoi", "chemistry", "PostgreSQL", "Lan is a data engineer"):
        assert fact in record["text"], fact
    [node] = await rows(
        resources,
        "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(e:Memory:ConsolidatedEpisode {learner_id: $l}) "
        "OPTIONAL MATCH (e)-[:CONSOLIDATES]->(m:Message) "
        "RETURN e.id AS id, e.kind AS kind, e.text AS text, e.valid_from AS valid_from, "
        "e.valid_to AS valid_to, e.session_ids AS session_ids, e.created_at AS created_at, "
        "size(e.embedding) AS dims, e.learner_key IS NOT NULL AS keyed, count(m) AS linked",
        l=learner_id,
    )
    assert node["id"] == record["id"] and node["kind"] == "episode" and node["linked"] == 10
    assert node["text"] == record["text"] and node["created_at"] == "2026-03-02T09:00:00+00:00"
    assert node["dims"] == resources.embeddings.dimension and node["keyed"]
    flags = await rows(
        resources,
        "MATCH (m:Message {learner_id: $l}) RETURN m.role AS role, coalesce(m.compressed, false) AS c",
        l=learner_id,
    )
    assert len(flags) == 20  # never deleted
    assert all(r["c"] == (r["role"] == "user") for r in flags)
    # Idempotent: nothing is due any more, so a second run writes nothing.
    assert await episodes.consolidate_due(learner_id) is None
    count = await rows(
        resources, "MATCH (e:ConsolidatedEpisode {learner_id: $l}) RETURN count(e) AS n", l=learner_id
    )
    assert count == [{"n": 1}]
    # Archival search (the Memory indexes) finds the consolidation.
    archival = ArchivalStore(resources.neo4j, resources.embeddings, database=resources.database)
    page = await archival.search(learner_id, "where does the learner live? Hanoi")
    assert page.results and page.results[0].id == record["id"] and page.results[0].kind == "episode"


async def test_concurrent_runs_consolidate_once_and_a_backlog_drains_in_batches(
    stores: tuple[RecallStore, EpisodeStore], resources: Resources, learner_id: str
) -> None:
    recall, episodes = stores
    await log_turns(recall, learner_id, [f"{fact} ({n})" for n, fact in enumerate(FACTS)])
    first, second = await asyncio.gather(
        episodes.consolidate_due(learner_id), episodes.consolidate_due(learner_id)
    )
    made = [r for r in (first, second) if r is not None]
    assert len(made) == 1 and made[0]["count"] == 10
    # Ten more arrive (20 in all): the next call takes them, the one after finds nothing.
    more = [f"{fact} ({n})" for n, fact in enumerate(FACTS, start=len(FACTS))]
    await log_turns(recall, learner_id, more, start=len(FACTS))
    later = await episodes.consolidate_due(learner_id)
    assert later is not None and set(later["message_ids"]).isdisjoint(made[0]["message_ids"])
    assert await episodes.consolidate_due(learner_id) is None
    linked = await rows(
        resources,
        "MATCH (e:ConsolidatedEpisode {learner_id: $l})-[:CONSOLIDATES]->(m) RETURN count(DISTINCT m) AS n",
        l=learner_id,
    )
    assert linked == [{"n": 20}]


async def test_the_model_summariser_is_used_and_a_failing_one_falls_back(
    stores: tuple[RecallStore, EpisodeStore], learner_id: str
) -> None:
    recall, episodes = stores
    seen: list[list[str]] = []

    async def model(texts: Sequence[str]) -> str:
        seen.append(list(texts))
        return "The learner shared personal details and SQL struggles."

    async def broken(texts: Sequence[str]) -> str:
        raise TimeoutError("model timed out")

    await log_turns(recall, learner_id, FACTS[:10])
    record = await episodes.consolidate_due(learner_id, summarise=model)
    assert record is not None and record["text"] == "The learner shared personal details and SQL struggles."
    assert seen == [FACTS[:10]]
    await log_turns(recall, learner_id, [f"Another fact number {n}." for n in range(3)], start=20)
    assert await episodes.consolidate_due(learner_id, summarise=broken, threshold=3) is not None
    with pytest.raises(InvalidInputError, match="threshold"):
        await episodes.consolidate_due(learner_id, threshold=1)
    with pytest.raises(InvalidInputError, match="summarise"):
        await episodes.consolidate_due(learner_id, summarise="model")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="learner_id"):
        await episodes.consolidate_due("not a learner!")


async def test_search_prefers_the_consolidation_and_falls_back_to_originals(
    stores: tuple[RecallStore, EpisodeStore], learner_id: str
) -> None:
    recall, episodes = stores
    await log_turns(recall, learner_id, FACTS[:10])
    before = await recall.search(learner_id, "capybara mnemonic", page_size=5)
    assert before.results[0].id == f"{learner_id}-u5" and "compressed" not in before.results[0].metadata

    async def model(texts: Sequence[str]) -> str:  # keeps the capybara, drops the zebra
        return "Learner facts: dog Rex, lives in Hanoi, capybara mnemonic for LEFT JOIN."

    record = await episodes.consolidate_due(learner_id, summarise=model)
    assert record is not None
    await log_turns(recall, learner_id, FACTS[10:], start=10)  # not consolidated
    for recipe in ("hybrid_rrf", "fulltext_only", "vector_only"):
        page = await recall.search(learner_id, "capybara mnemonic", page_size=5, recipe=recipe)
        ids = [h.id for h in page.results]
        assert ids[0] == record["id"], recipe  # the consolidation first ...
        assert page.results[0].kind == "episode"
        assert page.results[0].metadata["label"] == "ConsolidatedEpisode"
        original = ids.index(f"{learner_id}-u5")  # ... and the original still comes back, below it
        assert original >= 1, recipe
        hit = page.results[original]
        assert hit.metadata["compressed"] is True and hit.metadata["consolidated_in"] == [record["id"]]
        scores = [h.score for h in page.results]
        assert scores == sorted(scores, reverse=True)
    # The consolidation does not mention the original: the original is found on its own.
    page = await recall.search(learner_id, "PostgreSQL", recipe="fulltext_only")
    assert [h.id for h in page.results] == [f"{learner_id}-u3"]
    assert page.results[0].metadata["compressed"] is True
    # An unconsolidated message is unaffected.
    page = await recall.search(learner_id, "zebra duplicate rows", recipe="fulltext_only")
    assert page.results[0].id == f"{learner_id}-u10" and "compressed" not in page.results[0].metadata
    # Pages do not repeat hits.
    first = await recall.search(learner_id, "capybara Hanoi Rex", page_size=3)
    second = await recall.search(learner_id, "capybara Hanoi Rex", page_size=3, page=1)
    assert first.has_more and not {h.id for h in first.results} & {h.id for h in second.results}


async def test_learners_are_isolated(stores: tuple[RecallStore, EpisodeStore], learner_id: str) -> None:
    recall, episodes = stores
    other = f"{learner_id}-other"
    await log_turns(recall, learner_id, FACTS[:10])
    await log_turns(recall, other, FACTS[:9])  # ids are per learner (prefixed)
    assert await episodes.consolidate_due(other) is None
    mine = await episodes.consolidate_due(learner_id)
    assert mine is not None
    assert await episodes.timeline(other, limit=100) and all(
        item["kind"] == "message" and item["id"].startswith(other) for item in await episodes.timeline(other)
    )
    page = await recall.search(other, "capybara mnemonic")
    assert all(h.id.startswith(other) and "compressed" not in h.metadata for h in page.results)


async def test_timeline_orders_messages_summaries_and_episodes_by_time(
    stores: tuple[RecallStore, EpisodeStore], resources: Resources, learner_id: str
) -> None:
    recall, episodes = stores
    await log_turns(recall, learner_id, FACTS)
    archival = ArchivalStore(
        resources.neo4j, resources.embeddings, database=resources.database, clock=recall.clock
    )
    recall.clock.set("2026-03-01T12:00:00+00:00")  # type: ignore[attr-defined]
    await archival.write_summary(
        learner_id,
        "Session 1: Rex, Hanoi, chemistry.",
        message_ids=[f"{learner_id}-u0"],
        previous_summary_id=None,
        session_id="s1",
    )
    record = await episodes.consolidate_due(learner_id)
    assert record is not None
    everything = await episodes.timeline(learner_id, limit=500)
    assert len(everything) == 22 + 1 + 1
    times = [item["at"] for item in everything]
    assert times == sorted(times)
    kinds = {item["kind"] for item in everything}
    assert kinds == {"message", "summary", "episode"}
    [episode] = [item for item in everything if item["kind"] == "episode"]
    assert episode["at"] == episode["valid_from"] == "2026-03-01T10:00:00+00:00"
    assert episode["session_ids"] == ["s1", "s2"]
    day2 = await episodes.timeline(learner_id, since="2026-03-02T00:00:00", until="2026-03-02T10:06:00Z")
    assert [i["id"] for i in day2 if i["kind"] == "message"][:2] == [f"{learner_id}-u5", f"{learner_id}-a5"]
    assert {i["kind"] for i in day2} == {"message", "episode"}  # the episode spans into day 2
    assert all("2026-03-02" in i["at"] for i in day2 if i["kind"] == "message")
    assert len(day2) == 4 + 1
    newest = await episodes.timeline(learner_id, limit=2, newest_first=True)
    assert [i["id"] for i in newest] == [f"{learner_id}-a10", f"{learner_id}-u10"]
    for bad in ({"limit": 0}, {"since": "soon"}, {"since": "2026-03-03", "until": "2026-03-02"}):
        with pytest.raises(InvalidInputError):
            await episodes.timeline(learner_id, **bad)  # type: ignore[arg-type]
    # Erasure removes the consolidation with the rest.
    assert await owned_nodes(resources, learner_id) > 0
    await erase_learner(resources, learner_id)
    assert await owned_nodes(resources, learner_id) == 0


async def test_neo4j_down_skips_consolidation(resources: Resources, learner_id: str) -> None:
    dead = neo4j.AsyncGraphDatabase.driver("bolt://127.0.0.1:1", auth=("neo4j", "x"), connection_timeout=1)
    try:
        down = EpisodeStore(dead, resources.embeddings, database=f"db{uuid.uuid4().hex[:6]}")
        assert await down.consolidate_due(learner_id) is None
    finally:
        await dead.close()
