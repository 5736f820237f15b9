"""Reflection on the real Neo4j: insights and patterns with evidence, reruns, decay, curation, isolation."""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError, LearnerMismatchError
from agent.kernel.reflection.maintenance import curation, decay
from agent.kernel.reflection.run import reflect_learner, reflect_learners
from agent.kernel.reflection.store import ReflectionStore
from agent.kernel.reflection.synthesis import synthesis
from agent.kernel.stream import KernelStream
from agent.memory.facts import FactStore
from agent.resources import Resources
from graphs.reflection import make_builder

START = "2026-03-02T19:00:00+00:00"


@dataclass
class Rig:
    resources: Resources
    store: ReflectionStore
    clock: ManualClock
    a: str
    b: str


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


async def erase(resources: Resources, *learners: str) -> None:
    for lid in learners:
        for query in (
            "MATCH (n:Memory {learner_id: $l}) DETACH DELETE n",
            "MATCH (n:Message {learner_id: $l}) DETACH DELETE n",
            "MATCH (n:Note {learner_id: $l}) DETACH DELETE n",
            "MATCH (n:Learner {id: $l}) DETACH DELETE n",
        ):
            await rows(resources, query, l=lid)


@pytest.fixture
async def rig(resources: Resources) -> AsyncIterator[Rig]:
    """A bundle on a manual clock over the shared clients; two fresh learners, erased after."""
    clock = ManualClock(START)
    bundle = Resources(
        resources.settings,
        embeddings=resources.embeddings,
        neo4j_driver=resources.neo4j,
        redis_client=resources.redis,
        clock=clock,
    )
    a, b = f"test-{uuid.uuid4()}", f"test-{uuid.uuid4()}"
    yield Rig(bundle, ReflectionStore.for_resources(bundle), clock, a, b)
    await erase(resources, a, b)
    stream = KernelStream(resources.redis)
    await resources.redis.delete(stream.key(a, "gen"), stream.key(b, "gen"))


async def say(rig: Rig, learner: str, session: str, text: str, at: str, role: str = "user") -> str:
    """Plant a recall message the way RecallStore stores it (kernel-independent)."""
    mid = f"msg-{uuid.uuid4()}"
    await rows(
        rig.resources,
        """
        MERGE (l:Learner {id: $learner})
        CREATE (m:Message {id: $id, learner_id: $learner, session_id: $session, role: $role,
                           content: $text, created_at: $at, seq: 0})
        MERGE (l)-[:SAID]->(m)
        """,
        learner=learner,
        id=mid,
        session=session,
        role=role,
        text=text,
        at=at,
    )
    return mid


async def plant_struggles(rig: Rig, learner: str) -> dict[str, str]:
    """Recursion struggles over two evening sessions, a recurring KeyError, small talk."""
    said = [
        ("r1", "s1", "I'm confused by recursion when the base case is missing.", "01T19:05", "user"),
        ("r2", "s1", "I keep getting recursion wrong.", "01T19:20", "user"),
        ("r3", "s2", "Honestly, recursion is so hard.", "02T18:40", "user"),
        ("k1", "s1", "I keep getting a KeyError in pandas merges.", "01T19:30", "user"),
        ("k2", "s2", "Again a KeyError in pandas merges!", "02T18:45", "user"),
        ("n1", "s2", "Let's do lists next.", "02T18:50", "user"),
        ("t1", "s2", "I keep getting recursion wrong", "02T18:51", "assistant"),  # the tutor's, not a signal
    ]
    ids = {}
    for key, session, text, at, role in said:
        ids[key] = await say(rig, learner, session, text, f"2026-03-{at}:00+00:00", role=role)
    return ids


async def snapshot(rig: Rig, learner: str) -> list[dict]:
    return await rows(
        rig.resources,
        """
        MATCH (n {learner_id: $l}) WHERE n:Memory OR n:Message OR n:Note
        OPTIONAL MATCH (n)-[r]->(e)
        WITH n, collect(type(r) + '>' + coalesce(e.id, '')) AS out
        RETURN n.id AS id, properties(n) AS props, out ORDER BY id
        """,
        l=learner,
    )


async def test_insights_and_patterns_carry_evidence_and_a_rerun_changes_nothing(rig: Rig) -> None:
    ids = await plant_struggles(rig, rig.a)
    report = await reflect_learner(rig.store, rig.a, limit=50)
    syn = report.step("synthesis")
    assert syn.scanned == 6 and syn.marked == 6  # the learner's messages only, not the tutor's
    assert len(syn.created) == 2 and syn.updated == []  # recursion, and the pandas merges' errors

    [insight] = await rows(
        rig.resources,
        """MATCH (i:Memory:Insight {learner_id: $l, concept: 'recursion'})-[:EVIDENCED_BY]->(m)
           RETURN i.id AS id, i.concept AS concept, i.category AS category, i.evidence_count AS n,
                  i.confidence AS confidence, i.text AS text, i.activation AS activation,
                  collect(m.id) AS evidence""",
        l=rig.a,
    )
    assert insight["id"] in syn.created
    assert (insight["concept"], insight["category"], insight["n"]) == ("recursion", "struggle", 3)
    assert sorted(insight["evidence"]) == sorted([ids["r1"], ids["r2"], ids["r3"]])
    assert insight["confidence"] == 0.75 and "recursion" in insight["text"]
    assert insight["activation"] > 0  # prioritisation ran

    patterns = await rows(
        rig.resources,
        """MATCH (p:Memory:Pattern {learner_id: $l})
           RETURN p.kind AS kind, p.concept AS concept, p.error_kind AS error_kind, p.count AS count,
                  p.status AS status, p.activity AS activity,
                  [(p)-[:EVIDENCED_BY]->(m) | m.id] AS evidence ORDER BY kind, concept""",
        l=rig.a,
    )
    by_kind = {(p["kind"], p["activity"] or p["concept"]): p for p in patterns}
    bottleneck = by_kind[("bottleneck", "recursion")]
    assert bottleneck["status"] == "active" and bottleneck["count"] == 3
    error = by_kind[("recurring_error", "panda merge")]
    assert error["error_kind"] == "KeyError" and sorted(error["evidence"]) == sorted([ids["k1"], ids["k2"]])
    study = by_kind[("time_of_day", "study")]
    assert study["concept"] == "evening" and study["count"] == 6 and ids["t1"] not in study["evidence"]
    struggling = by_kind[("time_of_day", "struggle")]
    assert struggling["concept"] == "evening" and struggling["count"] == 5
    assert len(patterns) == 5  # + the bottleneck on the pandas merges (2 errors, 2 sessions)
    created = {*report.step("anticipation").created, *syn.created}
    assert set(report.step("prioritisation").updated) == created

    before = await snapshot(rig, rig.a)
    again = await reflect_learner(rig.store, rig.a, limit=50)
    assert not again.changed, again.to_dict()
    assert all(not s["changed"] for s in again.to_dict()["steps"].values())
    assert await snapshot(rig, rig.a) == before

    # Something new: one more struggle updates the insight, and only it gains evidence.
    r4 = await say(rig, rig.a, "s3", "I still don't understand recursion.", "2026-03-02T18:55:00+00:00")
    third = await reflect_learner(rig.store, rig.a, limit=50)
    assert third.step("synthesis").updated == [insight["id"]] and third.step("synthesis").created == []
    [linked] = await rows(
        rig.resources,
        "MATCH (i:Insight {id: $id})-[:EVIDENCED_BY]->(m:Message {id: $m}) RETURN count(*) AS n",
        id=insight["id"],
        m=r4,
    )
    assert linked["n"] == 1


async def test_decay_is_hourly_on_the_injected_clock(rig: Rig) -> None:
    await plant_struggles(rig, rig.a)
    await reflect_learner(rig.store, rig.a, limit=50)
    query = """MATCH (n:Memory {learner_id: $l}) WHERE n:Insight OR n:Pattern
               RETURN n.id AS id, n.activation AS a, n.decayed_at AS at ORDER BY id"""
    start = await rows(rig.resources, query, l=rig.a)
    assert start and all(r["at"] == START for r in start)

    rig.clock.advance(minutes=59)
    assert (await decay(rig.store, rig.a, limit=100)).updated == []
    rig.clock.advance(minutes=1)
    first = await decay(rig.store, rig.a, limit=100)
    assert sorted(first.updated) == [r["id"] for r in start]
    after = await rows(rig.resources, query, l=rig.a)
    for old, new in zip(start, after, strict=True):
        assert new["a"] == pytest.approx(old["a"] * math.exp(-0.05), rel=1e-6)
        assert new["at"] == "2026-03-02T20:00:00+00:00"
    rig.clock.advance(minutes=30)
    assert not (await reflect_learner(rig.store, rig.a, limit=50)).changed  # same hour: nothing
    rig.clock.advance(hours=2)  # 2.5 h since the last decay: two whole hours
    await decay(rig.store, rig.a, limit=100)
    later = await rows(rig.resources, query, l=rig.a)
    for old, new in zip(after, later, strict=True):
        assert new["a"] == pytest.approx(old["a"] * math.exp(-0.1), rel=1e-6)
        assert new["at"] == "2026-03-02T22:00:00+00:00"
    # A read in between (a consultation stores boosted activation at last_access = now): decay starts there.
    read_at = rig.clock().isoformat()
    await rows(
        rig.resources,
        """MATCH (n:Memory {learner_id: $l}) WHERE n:Insight OR n:Pattern
           SET n.activation = 5.0, n.last_access = $at""",
        l=rig.a,
        at=read_at,
    )
    rig.clock.advance(minutes=59)
    assert (await decay(rig.store, rig.a, limit=100)).updated == []
    rig.clock.advance(minutes=1)
    await decay(rig.store, rig.a, limit=100)
    values = [r["a"] for r in await rows(rig.resources, query, l=rig.a)]
    assert values == pytest.approx([5.0 * math.exp(-0.05)] * len(values))


async def test_curation_supersedes_the_older_of_two_current_facts(rig: Rig) -> None:
    facts = FactStore(
        rig.resources.neo4j, rig.resources.embeddings, database=rig.resources.database, clock=rig.clock
    )
    old = await facts.remember(
        rig.a, "I study with a paper notebook.", subject="learner", predicate="study_tool"
    )
    rig.clock.advance(hours=1)
    # Two current facts in one slot (as a bulk writer or a race could leave them): plant the newer one.
    newer = f"fact-{uuid.uuid4().hex}"
    await rows(
        rig.resources,
        """MATCH (l:Learner {id: $l}) CREATE (f:Memory:Fact {id: $id, learner_id: $l, kind: 'fact',
             text: 'I study with a tablet now.', subject: 'learner', predicate: 'study_tool',
             valid_from: $at, recorded_at: $at, created_at: $at}) MERGE (l)-[:HAS_MEMORY]->(f)""",
        l=rig.a,
        id=newer,
        at=rig.clock().isoformat(),
    )
    likes = await facts.remember(rig.a, "I enjoy pair programming.")
    rig.clock.advance(hours=1)
    dislikes = await facts.remember(rig.a, "I don't enjoy pair programming.")
    assert likes.current and dislikes.current and likes.predicate != dislikes.predicate

    report = await curation(rig.store, rig.a, limit=10)
    assert sorted(report.superseded) == sorted([old.id, likes.id])
    assert sorted(report.updated) == sorted([newer, dislikes.id])
    state = await rows(
        rig.resources,
        """MATCH (f:Fact {learner_id: $l}) OPTIONAL MATCH (w:Fact)-[:SUPERSEDES]->(f)
           RETURN f.id AS id, f.valid_to AS valid_to, w.id AS by""",
        l=rig.a,
    )
    by_id = {r["id"]: r for r in state}
    assert by_id[old.id]["by"] == newer and by_id[old.id]["valid_to"] == "2026-03-02T20:00:00+00:00"
    assert by_id[likes.id]["by"] == dislikes.id and by_id[likes.id]["valid_to"] == dislikes.valid_from
    assert by_id[newer]["valid_to"] is None and by_id[dislikes.id]["valid_to"] is None
    current = await facts.search(rig.a, "pair programming")
    assert [h.id for h in current.results] == [dislikes.id]
    assert not (await curation(rig.store, rig.a, limit=10)).changed


async def test_batches_are_bounded(rig: Rig) -> None:
    for bad in (9, 101, 0, True, "50", None):
        with pytest.raises(InvalidInputError):
            await reflect_learner(rig.store, rig.a, limit=bad)  # type: ignore[arg-type]
    for i in range(25):
        await say(rig, rig.a, "s1", f"Note {i}: nothing hard today.", f"2026-03-01T10:{i:02d}:00+00:00")
    scanned = [(await synthesis(rig.store, rig.a, limit=10)).scanned for _ in range(4)]
    assert scanned == [10, 10, 5, 0]


async def test_reflecting_one_learner_never_touches_another(rig: Rig) -> None:
    await plant_struggles(rig, rig.a)
    b_ids = await plant_struggles(rig, rig.b)
    before_b = await snapshot(rig, rig.b)
    [report] = await reflect_learners(rig.resources, [rig.a], limit=50)
    assert report.learner_id == rig.a and report.changed
    assert await snapshot(rig, rig.b) == before_b
    crossing = await rows(
        rig.resources,
        """MATCH (n:Memory {learner_id: $a})-[:EVIDENCED_BY]->(e) WHERE e.learner_id <> $a
           RETURN count(e) AS n""",
        a=rig.a,
    )
    assert crossing == [{"n": 0}]
    unscanned = await rows(
        rig.resources,
        "MATCH (m:Message {learner_id: $b}) WHERE m.reflected_at IS NULL RETURN count(m) AS n",
        b=rig.b,
    )
    assert unscanned == [{"n": len(b_ids)}]


async def test_the_graph_runs_the_five_steps_for_the_authenticated_learner_only(rig: Rig) -> None:
    await plant_struggles(rig, rig.a)
    graph = make_builder(rig.resources).compile()
    stream = KernelStream(rig.resources.redis)
    generation = await stream.generation(rig.a)
    out = await graph.ainvoke({"learner_id": rig.a, "limit": 20})
    assert await stream.generation(rig.a) == generation + 1  # cached consultations expire
    assert list(out["reports"]) == ["synthesis", "anticipation", "curation", "prioritisation", "decay"]
    assert out["changed"] and out["learner_id"] == rig.a
    assert out["reports"]["synthesis"]["counts"]["created"] == 2
    again = await graph.ainvoke({"learner_id": rig.a})
    assert again["changed"] is False and await stream.generation(rig.a) == generation + 1

    config = {"configurable": {"langgraph_auth_user_id": rig.b}}
    with pytest.raises(LearnerMismatchError):
        await graph.ainvoke({"learner_id": rig.a}, config)
    as_b = await graph.ainvoke({}, config)  # the authenticated learner, from auth alone
    assert as_b["learner_id"] == rig.b and as_b["changed"] is False
    with pytest.raises(InvalidInputError):
        await graph.ainvoke({"learner_id": rig.a, "limit": 500})


async def test_erasure_removes_insights_and_patterns(rig: Rig) -> None:
    from agent.memory.erasure import erase_learner, owned_nodes

    await plant_struggles(rig, rig.a)
    assert (await reflect_learner(rig.store, rig.a, limit=50)).changed
    made = await rows(
        rig.resources,
        "MATCH (n:Memory {learner_id: $l}) WHERE n:Insight OR n:Pattern RETURN count(n) AS n",
        l=rig.a,
    )
    assert made[0]["n"] > 0
    await erase_learner(rig.resources, rig.a)
    assert await owned_nodes(rig.resources, rig.a) == 0
    left = await rows(rig.resources, "MATCH (n {learner_id: $l}) RETURN count(n) AS n", l=rig.a)
    assert left == [{"n": 0}]


class PhrasingModel:
    """A stand-in chat model with structured output: phrases every insight the same way."""

    def with_structured_output(self, schema: type) -> PhrasingModel:
        return self

    async def ainvoke(self, prompt: list, config: object = None) -> dict:
        return {"text": "Phrased: " + prompt[1].content}


async def test_a_structured_model_phrases_insights_and_reruns_still_change_nothing(rig: Rig) -> None:
    await plant_struggles(rig, rig.a)
    model = PhrasingModel()
    assert (await reflect_learner(rig.store, rig.a, limit=50, model=model)).changed  # type: ignore[arg-type]
    stored = await rows(
        rig.resources,
        "MATCH (i:Insight {learner_id: $l}) RETURN i.text AS text, i.rules_text AS rules, i.phrased_by AS by",
        l=rig.a,
    )
    assert stored and all(r["text"] == "Phrased: " + r["rules"] and r["by"] == "model" for r in stored)
    assert not (await reflect_learner(rig.store, rig.a, limit=50, model=model)).changed  # type: ignore[arg-type]
    assert not (await reflect_learner(rig.store, rig.a, limit=50)).changed  # offline now: still nothing new
