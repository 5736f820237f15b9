"""Procedural memory on the real Neo4j and Redis: ordered steps, usage-ranked recall, isolation."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError
from agent.language.procedures import parse_procedure, procedure_query
from agent.memory.backlog import WriteBacklog
from agent.memory.procedures import OP_SAVE, ProcedureStore
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources

LEFT_JOIN = (
    "Here is how I write a LEFT JOIN now: first pick the table whose rows I must keep, then write "
    "LEFT JOIN with the other table, then put the key match in ON, and only then filter with WHERE."
)


@dataclass
class Rig:
    store: ProcedureStore
    recall: RecallStore
    backlog: WriteBacklog
    clock: ManualClock
    other: str


@pytest.fixture
async def rig(resources: Resources, learner_id: str) -> AsyncIterator[Rig]:
    """A store with a private backlog (no auto replay) and a manual clock; cleans up after."""
    backlog = WriteBacklog(
        resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}", retry_interval=60, auto_replay=False
    )
    clock = ManualClock("2026-02-20T18:00:00+07:00")
    kwargs = {"database": resources.database, "backlog": backlog, "clock": clock}
    store = ProcedureStore(resources.neo4j, resources.embeddings, **kwargs)
    recall = RecallStore(resources.neo4j, resources.embeddings, **kwargs)
    other = f"{learner_id}-other"
    yield Rig(store, recall, backlog, clock, other)
    backlog.mark_up()
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in (learner_id, other):
            for label in ("Memory", "Message"):
                await session.run(f"MATCH (n:{label} {{learner_id: $l}}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


async def test_saved_steps_keep_their_order_and_link_the_episode(
    rig: Rig, resources: Resources, learner_id: str
) -> None:
    episode = f"{learner_id}-m1"
    await rig.recall.log_messages(learner_id, "s1", [RecallMessage(episode, "user", LEFT_JOIN)])
    parsed = parse_procedure(LEFT_JOIN)
    assert parsed is not None
    name, steps = parsed
    saved = await rig.store.save(learner_id, name, steps, prerequisites=["INNER JOIN"], episode_id=episode)
    assert not saved.degraded and saved.usage_count == 0
    assert saved.steps == steps
    assert saved.text.startswith(
        "How to write a LEFT JOIN: 1. pick the table whose rows I must keep. 2. write"
    )
    [node] = await rows(
        resources,
        "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(p:Memory:Procedure)-[:PROCEDURE_DERIVES_FROM]->"
        "(m:Message) RETURN p.kind AS kind, p.steps AS steps, p.text AS text, p.learner_key AS key, "
        "p.embedding IS NOT NULL AS embedded, m.id AS episode, p.created_at AS created_at",
        l=learner_id,
    )
    assert node["kind"] == "procedure" and node["steps"] == steps and node["embedded"]
    assert node["episode"] == episode and node["key"]
    assert node["created_at"] == "2026-02-20T18:00:00+07:00"  # the injected clock
    [listed] = await rig.store.list(learner_id)
    assert listed.steps == steps and listed.prerequisites == ["INNER JOIN"]


async def test_resave_replaces_steps_without_duplicating(rig: Rig, learner_id: str) -> None:
    first = await rig.store.save(learner_id, "write a LEFT JOIN", ["old step one", "old step two"])
    await rig.store.recall(learner_id, "write a LEFT JOIN", k=1)
    again = await rig.store.save(learner_id, "Write the  left join", ["new one", "new two", "new three"])
    assert again.id == first.id
    [only] = await rig.store.list(learner_id)
    assert only.steps == ["new one", "new two", "new three"]
    assert only.name == "Write the  left join"
    assert only.usage_count == 1  # use is kept across a re-save


async def test_recall_finds_the_steps_in_order_and_counts_each_use(rig: Rig, learner_id: str) -> None:
    name, steps = parse_procedure(LEFT_JOIN) or ("", [])
    await rig.store.save(learner_id, name, steps)
    await rig.store.save(learner_id, "normalise a table", ["find repeating groups", "split them out"])
    await rig.store.save(learner_id, "solve a linear equation", ["move the constants", "divide"])
    query = procedure_query("I forgot how I write a LEFT JOIN. What were my steps again?")
    page = await rig.store.recall(learner_id, query)
    top = page.results[0]
    assert top.kind == "procedure" and top.metadata["name"] == "write a LEFT JOIN"
    text = top.text.lower()
    positions = [text.find(s) for s in ("table whose rows i must keep", "left join with", " on.", "where")]
    assert -1 not in positions and positions == sorted(positions)
    assert top.metadata["steps"] == steps and top.metadata["usage_count"] == 1
    assert "solve a linear equation" not in [h.metadata["name"] for h in page.results]  # unrelated
    page = await rig.store.recall(learner_id, "What are the learner's steps for writing a LEFT JOIN?")
    assert page.results[0].metadata["usage_count"] == 2
    counts = {p.name: p.usage_count for p in await rig.store.list(learner_id)}
    assert counts["write a LEFT JOIN"] == 2 and counts["solve a linear equation"] == 0


async def test_usage_changes_the_ranking(rig: Rig, learner_id: str) -> None:
    a = await rig.store.save(learner_id, "check a query plan", ["run EXPLAIN", "look for scans"])
    b = await rig.store.save(learner_id, "check a query result", ["count the rows", "spot NULLs"])
    before = await rig.store.recall(learner_id, "check a query", k=2)
    order = [h.id for h in before.results]
    assert set(order) == {a.id, b.id}
    loser = order[1]
    specific = "check a query plan EXPLAIN scans" if loser == a.id else "check a query result rows NULLs"
    for _ in range(10):
        page = await rig.store.recall(learner_id, specific, k=1)
        assert page.results[0].id == loser
    after = await rig.store.recall(learner_id, "check a query", k=2)
    assert after.results[0].id == loser  # the procedure used more now ranks first
    assert after.results[0].metadata["usage_count"] == 12
    assert after.results[0].scores["relevance"] <= after.results[1].scores["relevance"]


async def test_learners_never_see_each_others_procedures(rig: Rig, learner_id: str) -> None:
    mine = await rig.store.save(learner_id, "write a LEFT JOIN", ["pick the kept table", "join the other"])
    assert (await rig.store.recall(rig.other, "write a LEFT JOIN")).results == []
    assert await rig.store.list(rig.other) == []
    theirs = await rig.store.save(rig.other, "write a LEFT JOIN", ["something else", "entirely"])
    assert theirs.id != mine.id
    [kept] = await rig.store.list(learner_id)
    assert kept.steps == ["pick the kept table", "join the other"] and kept.usage_count == 0
    page = await rig.store.recall(rig.other, "write a LEFT JOIN")
    assert [h.id for h in page.results] == [theirs.id]


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        (("", ["a", "b"]), {}, "procedure name"),
        (("x", "one step"), {}, "steps must be a list"),
        (("x", []), {}, "steps must hold 1 to 30"),
        (("x", ["ok", ""]), {}, "steps[1]"),
        (("x", ["a"] * 31), {}, "steps must hold 1 to 30"),
        (("x", ["a"]), {"prerequisites": "joins"}, "prerequisites must be a list"),
        (("x", ["a"]), {"episode_id": "bad\nid"}, "invalid episode_id"),
    ],
)
async def test_bad_input_is_refused_clearly(
    rig: Rig, learner_id: str, args: tuple, kwargs: dict, message: str
) -> None:
    with pytest.raises(InvalidInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        await rig.store.save(learner_id, *args, **kwargs)


async def test_bad_recall_arguments(rig: Rig, learner_id: str) -> None:
    with pytest.raises(InvalidInputError, match="k must be"):
        await rig.store.recall(learner_id, "x", k=0)
    with pytest.raises(InvalidInputError, match="query"):
        await rig.store.recall(learner_id, "   ")
    with pytest.raises(InvalidInputError):
        await rig.store.recall("", "x")


async def test_saves_are_parked_while_neo4j_is_down_and_replayed(
    rig: Rig, resources: Resources, learner_id: str
) -> None:
    rig.backlog.mark_down("test outage")
    parked = await rig.store.save(learner_id, "write a LEFT JOIN", ["keep the left table", "join"])
    assert parked.degraded
    assert await rig.backlog.pending(learner_id) == 1
    [entry] = await resources.redis.xrange(rig.backlog.stream_key(learner_id))
    assert entry[1]["op"] == OP_SAVE
    assert await rows(resources, "MATCH (p:Procedure {learner_id: $l}) RETURN p", l=learner_id) == []
    page = await rig.store.recall(learner_id, "write a LEFT JOIN")
    assert page.degraded and page.results[0].id == parked.id and page.results[0].kind == "procedure"
    rig.backlog.mark_up()
    assert await rig.backlog.replay(rig.store, learner_id=learner_id) == 1
    assert await rig.backlog.replay(rig.store, learner_id=learner_id) == 0
    [stored] = await rig.store.list(learner_id)
    assert stored.id == parked.id and stored.steps == ["keep the left table", "join"]


async def test_recall_finds_a_task_named_in_another_word_form(rig: Rig, learner_id: str) -> None:
    """A request names the task in another form than it was told: full text matches the stems."""
    steps = ["bump the version in Cargo.toml", "update the changelog", "run cargo test", "publish with cargo"]
    await rig.store.save(learner_id, "I'm the one doing crate releases now", steps)
    await rig.store.save(learner_id, "my morning piano practice", ["scales", "sight-reading", "the piece"])
    page = await rig.store.recall(learner_id, "How does the learner do a release?", k=3)
    assert page.results and "cargo" in page.results[0].text
