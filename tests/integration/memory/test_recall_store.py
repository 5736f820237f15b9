"""Recall storage against the real Neo4j and Redis."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import pytest

from agent.errors import InvalidInputError
from agent.memory.backlog import WriteBacklog
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources
from agent.search.recipes import RECIPES, SearchRecipe

TOPICS = ["joins", "indexes", "transactions", "normal forms", "window functions", "views"]
CONTEXT = SearchRecipe(
    "context", "hybrid_rrf + neighbouring messages of the same session.", context_weight=0.5
)
NEEDLE = "Remember the capybara mnemonic: outer joins keep the lonely rows"


@pytest.fixture
async def recall(resources: Resources, learner_id: str) -> AsyncIterator[RecallStore]:
    """A recall store with a private backlog prefix; deletes this learner's data afterwards."""
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}")
    store = RecallStore(resources.neo4j, resources.embeddings, database=resources.database, backlog=backlog)
    await store.setup()
    yield store
    await backlog.wait_idle()
    async with resources.neo4j.session(database=resources.database) as session:
        await session.run("MATCH (n:Message {learner_id: $l}) DETACH DELETE n", l=learner_id)
        await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=learner_id)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


def conversation(learner_id: str) -> dict[str, list[RecallMessage]]:
    """200 messages over 4 sessions; message 3 of the first session is the needle."""
    sessions: dict[str, list[RecallMessage]] = {}
    for s in range(4):
        msgs = []
        for i in range(50):
            role = "user" if i % 2 == 0 else "assistant"
            content = f"Turn {i} of session {s}: let us practise {TOPICS[(s + i) % len(TOPICS)]}"
            if s == 0 and i == 3:
                content = NEEDLE
            msgs.append(
                RecallMessage(
                    id=f"{learner_id}-s{s}-m{i}",
                    role=role,
                    content=content,
                    metadata={"turn": i} if i == 3 else None,
                )
            )
        sessions[f"session-{s}"] = msgs
    return sessions


async def log_all(store: RecallStore, learner_id: str, sessions: dict) -> int:
    total = 0
    for session_id, msgs in sessions.items():
        for start in range(0, len(msgs), 20):  # several calls per session
            total += (await store.log_messages(learner_id, session_id, msgs[start : start + 20])).count
    return total


async def next_links(resources: Resources, learner_id: str) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        result = await session.run(
            "MATCH (a:Message {learner_id: $l})-[:NEXT]->(b:Message) "
            "RETURN a.id AS a, b.id AS b, a.session_id AS sa, b.session_id AS sb",
            l=learner_id,
        )
        return await result.data()


async def test_log_search_count_chain_and_relog(
    recall: RecallStore, learner_id: str, resources: Resources
) -> None:
    sessions = conversation(learner_id)
    assert await log_all(recall, learner_id, sessions) == 200
    assert await recall.count(learner_id) == 200

    for recipe in RECIPES:
        page = await recall.search(learner_id, "capybara mnemonic for outer joins", recipe=recipe)
        assert page.results[0].id == f"{learner_id}-s0-m3", recipe
        hit = page.results[0]
        assert hit.kind == "message" and hit.text == NEEDLE
        assert hit.metadata["session_id"] == "session-0"
        assert hit.metadata["role"] == "assistant"

    links = await next_links(resources, learner_id)
    assert len(links) == 4 * 49
    assert all(link["sa"] == link["sb"] for link in links)
    expected = {(msgs[i].id, msgs[i + 1].id) for msgs in sessions.values() for i in range(len(msgs) - 1)}
    assert {(link["a"], link["b"]) for link in links} == expected

    # Re-logging everything creates nothing and leaves the chain alone.
    assert await log_all(recall, learner_id, sessions) == 0
    assert await recall.count(learner_id) == 200
    assert len(await next_links(resources, learner_id)) == 4 * 49

    got = await recall.get(learner_id, [f"{learner_id}-s0-m3", "missing", f"{learner_id}-s3-m0"])
    assert [m.id for m in got] == [f"{learner_id}-s0-m3", f"{learner_id}-s3-m0"]
    assert got[0].metadata == {"turn": 3} and got[0].role == "assistant"
    assert got[0].created_at and got[0].created_at.endswith("+00:00")
    # seq is monotonic per learner, in logging order.
    assert got[0].seq == 4 and got[1].seq == 151


async def test_context_recipe_returns_neighbouring_turns(recall: RecallStore, learner_id: str) -> None:
    msgs = [
        RecallMessage(id=f"{learner_id}-c{i}", role=r, content=c)
        for i, (r, c) in enumerate(
            [
                ("user", "Can you quiz me?"),
                ("assistant", "Which clause filters groups after aggregation?"),
                ("user", "HAVING"),
                ("assistant", "Correct, well done."),
            ]
        )
    ]
    await recall.log_messages(learner_id, "quiz", msgs)
    page = await recall.search(learner_id, "filters groups after aggregation", recipe=CONTEXT)
    by_id = {h.id: h for h in page.results}
    assert page.results[0].id == msgs[1].id
    assert "context" in by_id[msgs[0].id].scores and "context" in by_id[msgs[2].id].scores


async def test_out_of_order_seq_relinks_the_chain(recall: RecallStore, learner_id: str) -> None:
    def msg(i: int, seq: int) -> RecallMessage:
        return RecallMessage(id=f"{learner_id}-o{i}", role="user", content=f"m{i}", seq=seq)

    await recall.log_messages(learner_id, "s", [msg(1, 10), msg(3, 30)])
    await recall.log_messages(learner_id, "s", [msg(2, 20)])  # lands in the middle
    page = await recall.search(learner_id, "m2", recipe=CONTEXT)
    ctx = {h.id for h in page.results if "context" in h.scores}
    assert ctx >= {f"{learner_id}-o1", f"{learner_id}-o3"}


async def test_duplicate_ids_in_one_batch_and_validation(recall: RecallStore, learner_id: str) -> None:
    dup = RecallMessage(id=f"{learner_id}-d", role="user", content="same")
    assert (await recall.log_messages(learner_id, "s", [dup, dup])).count == 1
    assert (await recall.log_messages(learner_id, "s", [])).count == 0
    with pytest.raises(InvalidInputError):
        await recall.log_messages(learner_id, "", [dup])
    with pytest.raises(InvalidInputError):
        await recall.log_messages(learner_id, "s", [RecallMessage(id="x", role="user", content="y" * 70_000)])


async def test_tool_bookkeeping_is_stored_and_found_by_full_text_but_not_embedded(
    recall: RecallStore, learner_id: str, resources: Resources
) -> None:
    """Tool results and rendered tool calls keep their place in the chain, without a vector."""
    msgs = [
        RecallMessage(id=f"{learner_id}-b0", role="user", content="What did we say about window functions?"),
        RecallMessage(
            id=f"{learner_id}-b1",
            role="assistant",
            content="[calls archival_memory_search({'query': 'window'})]",
        ),
        RecallMessage(id=f"{learner_id}-b2", role="tool", content="1 memory: window functions rank rows"),
        RecallMessage(
            id=f"{learner_id}-b3", role="assistant", content="Window functions rank rows in a frame."
        ),
    ]
    assert (await recall.log_messages(learner_id, "tools", msgs)).count == 4
    async with resources.neo4j.session(database=resources.database) as session:
        result = await session.run(
            "MATCH (m:Message {learner_id: $l}) RETURN m.id AS id, m.embedding IS NOT NULL AS vector, "
            "m.embedding_model AS model ORDER BY m.seq",
            l=learner_id,
        )
        rows = await result.data()
    assert [(r["id"][-2:], r["vector"]) for r in rows] == [
        ("b0", True),
        ("b1", False),
        ("b2", False),
        ("b3", True),
    ]
    assert [r["model"] for r in rows] == [
        resources.embeddings.model_name,
        None,
        None,
        resources.embeddings.model_name,
    ]
    assert len(await next_links(resources, learner_id)) == 3  # the chain runs through them
    page = await recall.search(learner_id, "window functions rank rows", recipe="fulltext_only")
    assert f"{learner_id}-b2" in {h.id for h in page.results}
    vector = await recall.search(learner_id, "window functions rank rows", recipe="vector_only")
    assert {h.id for h in vector.results} <= {f"{learner_id}-b0", f"{learner_id}-b3"}
    assert vector.results
