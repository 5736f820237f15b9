"""Bi-temporal facts on the real Neo4j: supersession, as_of, narrow slots, activation, isolation."""

from __future__ import annotations

import math
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass

import pytest

from agent.clock import ManualClock
from agent.errors import InvalidInputError
from agent.memory.activation import READ_BOOST
from agent.memory.backlog import WriteBacklog
from agent.memory.facts import OP_REMEMBER, FactStore
from agent.memory.recall import RecallMessage, RecallStore
from agent.resources import Resources


@dataclass
class Rig:
    facts: FactStore
    recall: RecallStore
    clock: ManualClock
    backlog: WriteBacklog


@pytest.fixture
async def rig(resources: Resources, learner_id: str) -> AsyncIterator[Rig]:
    """A fact store on a manual clock and a private backlog; removes the learners' data after."""
    clock = ManualClock("2026-01-10T08:00:00+07:00")
    backlog = WriteBacklog(resources.redis, prefix=f"kag-test-{uuid.uuid4().hex[:12]}")
    common = {"database": resources.database, "backlog": backlog, "clock": clock}
    facts = FactStore(resources.neo4j, resources.embeddings, **common)
    recall = RecallStore(resources.neo4j, resources.embeddings, **common)
    yield Rig(facts, recall, clock, backlog)
    await backlog.wait_idle()
    async with resources.neo4j.session(database=resources.database) as session:
        for lid in (learner_id, f"{learner_id}-b"):
            await session.run("MATCH (n:Memory {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Message {learner_id: $l}) DETACH DELETE n", l=lid)
            await session.run("MATCH (n:Learner {id: $l}) DETACH DELETE n", l=lid)
    keys = [k async for k in resources.redis.scan_iter(match=f"{backlog.prefix}:*")]
    if keys:
        await resources.redis.delete(*keys)


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


def texts(page) -> list[str]:
    return [h.text for h in page.results]


async def test_new_fact_supersedes_its_slot_and_as_of_finds_the_old_one(
    rig: Rig, learner_id: str, resources: Resources
) -> None:
    old = await rig.facts.remember(learner_id, "I live in Da Nang and study online in the evenings.")
    assert (old.subject, old.predicate, old.valid_to) == ("learner", "residence", None)
    assert old.valid_from == "2026-01-10T01:00:00+00:00" == old.recorded_at
    rig.clock.set("2026-02-14T08:00:00+07:00")
    new = await rig.facts.remember(learner_id, "Actually, I moved to Hanoi last week for my internship.")
    assert new.superseded == [old.id] and new.current

    edges = await rows(
        resources,
        "MATCH (n:Fact {id: $new})-[:SUPERSEDES]->(o:Fact) RETURN o.id AS id, o.valid_to AS valid_to",
        new=new.id,
    )
    assert edges == [{"id": old.id, "valid_to": new.valid_from}]

    rig.clock.set("2026-02-20T08:00:00+07:00")
    current = await rig.facts.search(learner_id, "Where does the learner live?")
    assert texts(current) == [new.content]
    hit = current.results[0]
    assert hit.kind == "fact" and hit.created_at == new.valid_from
    assert hit.metadata["current"] is True and hit.metadata["predicate"] == "residence"

    then = await rig.facts.search(
        learner_id, "Where does the learner live?", as_of="2026-01-20T00:00:00+07:00"
    )
    assert texts(then) == [old.content]
    assert then.results[0].metadata["valid_to"] == new.valid_from
    before = await rig.facts.search(learner_id, "Where does the learner live?", as_of="2025-12-01T00:00:00Z")
    assert before.results == []
    every = await rig.facts.search(learner_id, "Where does the learner live?", include_history=True)
    assert set(texts(every)) == {old.content, new.content}

    history = await rig.facts.history(learner_id)
    assert [f.id for f in history] == [new.id, old.id]
    assert history[1].valid_to == new.valid_from and not history[1].current


async def test_unrelated_facts_never_retire_each_other(rig: Rig, learner_id: str) -> None:
    said = [
        "I live in Da Nang.",
        "My goal is to pass the hospital data course exam on March 20.",
        "I scored 54 out of 100 on the first statistics quiz.",
        "I scored 71 out of 100 on the second statistics quiz.",
        "I keep my scripts in a GitHub repository called survey-thesis.",
        "I write all my Python in Jupyter notebooks.",
        "I use DBeaver for SQL.",
    ]
    for text in said:
        rig.clock.advance(hours=1)
        record = await rig.facts.remember(learner_id, text)
        assert record.superseded == []
    history = await rig.facts.history(learner_id)
    assert len(history) == len(said) and all(f.current for f in history)
    page = await rig.facts.search(learner_id, "statistics quiz score", k=10)
    assert {"54", "71"} <= {w for t in texts(page) for w in t.split()}


async def test_switched_from_a_to_b_retires_a_only(rig: Rig, learner_id: str) -> None:
    rig.clock.set("2026-03-02T10:00:00-05:00")
    jupyter = await rig.facts.remember(learner_id, "I write all my Python in Jupyter notebooks.")
    excel = await rig.facts.remember(learner_id, "I use Excel for budgets.")
    rig.clock.set("2026-03-09T10:00:00-05:00")
    vscode = await rig.facts.remember(
        learner_id, "I switched from Jupyter to VS Code this week because of the debugger."
    )
    assert vscode.superseded == [jupyter.id]
    assert (vscode.subject, vscode.predicate) == ("python", "tool")  # took Jupyter's slot
    history = {f.id: f for f in await rig.facts.history(learner_id)}
    assert history[jupyter.id].valid_to == vscode.valid_from
    assert history[excel.id].current
    page = await rig.facts.search(learner_id, "Which editor does the learner use for Python?")
    assert page.results[0].id == vscode.id
    assert jupyter.id not in [h.id for h in page.results]


async def test_goal_update_supersedes_the_old_goal(rig: Rig, learner_id: str) -> None:
    rig.clock.set("2026-02-01T17:00:00+07:00")
    old = await rig.facts.remember(learner_id, "My goal is to master SQL joins by Friday.")
    rig.clock.set("2026-02-06T17:00:00+07:00")
    new = await rig.facts.remember(
        learner_id, "I reached my joins goal! My new goal is to learn window functions before the exam."
    )
    assert new.superseded == [old.id]
    page = await rig.facts.search(learner_id, "What is the learner's current goal?")
    assert "window functions" in page.results[0].text.lower()
    assert old.id not in [h.id for h in page.results]


async def test_similar_to_and_derives_from_are_written_with_the_fact(
    rig: Rig, learner_id: str, resources: Resources
) -> None:
    await rig.recall.log_messages(
        learner_id, "s1", [RecallMessage(id=f"{learner_id}-m1", role="user", content="I love SQL joins.")]
    )
    await rig.recall.log_messages(
        f"{learner_id}-b", "s1", [RecallMessage(id=f"{learner_id}-bm1", role="user", content="other")]
    )
    first = await rig.facts.remember(
        learner_id, "I practise SQL joins every evening after work.", episode_id=f"{learner_id}-m1"
    )
    second = await rig.facts.remember(learner_id, "I practise SQL joins every evening after my work.")
    unrelated = await rig.facts.remember(learner_id, "My cat is called Miso.", episode_id=f"{learner_id}-bm1")
    similar = await rows(
        resources,
        "MATCH (a:Fact {learner_id: $l})-[r:SIMILAR_TO]->(b:Fact) RETURN a.id AS a, b.id AS b, r.score AS s",
        l=learner_id,
    )
    assert [(r["a"], r["b"]) for r in similar] == [(second.id, first.id)]
    assert 0.8 <= similar[0]["s"] <= 1.0
    derives = await rows(
        resources,
        "MATCH (f:Fact {learner_id: $l})-[:DERIVES_FROM]->(m:Message) RETURN f.id AS f, m.id AS m",
        l=learner_id,
    )
    assert derives == [{"f": first.id, "m": f"{learner_id}-m1"}]  # another learner's message: no edge
    expanded = await rig.facts.expand(learner_id, [second.id], depth=2)
    assert {h.id for h in expanded} == {first.id, f"{learner_id}-m1"}
    assert unrelated.id not in {h.id for h in expanded}


async def test_reads_boost_activation_and_it_decays(rig: Rig, learner_id: str, resources: Resources) -> None:
    fact = await rig.facts.remember(learner_id, "I live in Hue.")
    state = "MATCH (f:Fact {id: $id}) RETURN f.activation AS a, f.access_count AS n, f.last_access AS t"
    assert (await rows(resources, state, id=fact.id))[0] == {"a": READ_BOOST, "n": 0, "t": fact.recorded_at}
    rig.clock.advance(hours=10)
    page = await rig.facts.search(learner_id, "Where does the learner live?")
    assert page.results[0].scores["activation"] == pytest.approx(math.exp(-0.5))
    after = (await rows(resources, state, id=fact.id))[0]
    assert after["a"] == pytest.approx(math.exp(-0.5) + READ_BOOST) and after["n"] == 1
    assert after["t"] == rig.clock().isoformat()
    rig.clock.advance(hours=20)
    page = await rig.facts.search(learner_id, "Where does the learner live?")
    assert page.results[0].scores["activation"] == pytest.approx((math.exp(-0.5) + 1) * math.exp(-1.0))


async def test_activation_reorders_equally_relevant_facts_until_it_decays(
    rig: Rig, learner_id: str, resources: Resources
) -> None:
    text = "I like pair programming on Fridays."
    a = await rig.facts.remember(learner_id, text, subject="habit", predicate="a")
    b = await rig.facts.remember(learner_id, text, subject="habit", predicate="b")
    page = await rig.facts.search(learner_id, "pair programming", k=2)
    top, low = page.results
    assert top.scores["vector"] == pytest.approx(low.scores["vector"])  # equally relevant
    # RRF gives them ranks 1 and 2 in each list; when the vector and full-text lists order the
    # twins differently the fused scores tie, and the search's tie-break orders them.
    assert top.scores["rrf"] >= low.scores["rrf"]
    set_activation = "MATCH (f:Fact {id: $id}) SET f.activation = $a, f.last_access = $t"
    await rows(resources, set_activation, id=top.id, a=0.0, t=rig.clock().isoformat())
    await rows(resources, set_activation, id=low.id, a=20.0, t=rig.clock().isoformat())
    page = await rig.facts.search(learner_id, "pair programming", k=2)
    assert [h.id for h in page.results] == [low.id, top.id]  # the active one climbs
    rig.clock.advance(hours=400)  # activation decays to ~0: relevance alone again
    page = await rig.facts.search(learner_id, "pair programming", k=2)
    assert all(h.scores["activation"] < 1e-6 for h in page.results)
    if top.scores["rrf"] > low.scores["rrf"]:  # a tie is broken by what is left of activation
        assert [h.id for h in page.results] == [top.id, low.id]
    assert {a.id, b.id} == {top.id, low.id}


async def test_learners_never_see_or_retire_each_others_facts(rig: Rig, learner_id: str) -> None:
    other = f"{learner_id}-b"
    rig.clock.set("2026-01-01T00:00:00Z")
    mine = await rig.facts.remember(learner_id, "I live in Da Nang.")
    rig.clock.set("2026-02-01T00:00:00Z")
    theirs = await rig.facts.remember(other, "I moved to Hanoi.")
    assert theirs.superseded == []
    assert (await rig.facts.history(learner_id))[0].current
    for kwargs in ({}, {"as_of": "2026-01-15T00:00:00Z"}, {"include_history": True}):
        assert texts(await rig.facts.search(other, "Where does the learner live? Da Nang", **kwargs)) in (
            [],
            [theirs.content],
        )
    assert [f.id for f in await rig.facts.history(other)] == [theirs.id]
    assert await rig.facts.expand(other, [mine.id]) == []
    with pytest.raises(InvalidInputError, match="another learner"):
        await rig.facts.apply_backlog_entry(OP_REMEMBER, {**_payload(rig, other, "x"), "id": mine.id})


def _payload(rig: Rig, learner_id: str, text: str) -> dict:
    from agent.memory.fact_records import fact_payload

    return fact_payload(
        learner_id,
        rig.clock().isoformat(),
        text,
        subject=None,
        predicate=None,
        concept=None,
        confidence=1.0,
        source="learner",
        valid_from=None,
        episode_id=None,
    )


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ({"content": ""}, "fact content"),
        ({"content": "ok", "confidence": 1.5}, "confidence"),
        ({"content": "ok", "confidence": True}, "confidence"),
        ({"content": "ok", "source": "gossip"}, "source"),
        ({"content": "ok", "subject": "x"}, "both subject and predicate"),
        ({"content": "ok", "subject": "x", "predicate": "bad\x00"}, "predicate"),
        ({"content": "ok", "valid_from": "yesterday"}, "valid_from"),
        ({"content": "ok", "episode_id": "bad\nid"}, "episode_id"),
        ({"content": "bad \ud800 unicode"}, "fact content"),
    ],
)
async def test_bad_writes_are_rejected(rig: Rig, learner_id: str, call: dict, message: str) -> None:
    content = call.pop("content")
    with pytest.raises(InvalidInputError, match=message):
        await rig.facts.remember(learner_id, content, **call)
    assert await rig.facts.history(learner_id) == []


async def test_bad_reads_are_rejected(rig: Rig, learner_id: str) -> None:
    for kwargs in ({"as_of": "soon"}, {"k": 0}, {"k": 51}, {"include_history": "yes"}):
        with pytest.raises(InvalidInputError):
            await rig.facts.search(learner_id, "x", **kwargs)
    with pytest.raises(InvalidInputError):
        await rig.facts.search("", "x")
    with pytest.raises(InvalidInputError):
        await rig.facts.history(learner_id, limit=0)
    with pytest.raises(InvalidInputError):
        await rig.facts.expand(learner_id, ["x"], depth=3)


async def test_remember_and_replay_are_idempotent(rig: Rig, learner_id: str, resources: Resources) -> None:
    first = await rig.facts.remember(learner_id, "I live in Da Nang.")
    rig.clock.advance(hours=2)
    again = await rig.facts.remember(learner_id, "  i live in da nang  ")
    assert again.id == first.id and again.superseded == []
    payload = _payload(rig, learner_id, "My goal is to learn window functions.")
    await rig.facts.apply_backlog_entry(OP_REMEMBER, payload)
    await rig.facts.apply_backlog_entry(OP_REMEMBER, payload)
    count = "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(f:Fact) RETURN count(f) AS n"
    assert (await rows(resources, count, l=learner_id))[0]["n"] == 2
    rig.clock.advance(hours=2)
    moved = await rig.facts.remember(learner_id, "I moved to Hue.")
    rig.clock.advance(hours=2)
    back = await rig.facts.remember(learner_id, "I live in Da Nang.")  # true again: a new version
    assert back.id != first.id and back.superseded == [moved.id]
    assert (await rows(resources, count, l=learner_id))[0]["n"] == 4


async def test_a_back_dated_fact_does_not_retire_a_newer_one(rig: Rig, learner_id: str) -> None:
    rig.clock.set("2026-02-14T00:00:00Z")
    hanoi = await rig.facts.remember(learner_id, "I moved to Hanoi.")
    late = await rig.facts.remember(learner_id, "I live in Da Nang.", valid_from="2026-01-10T00:00:00Z")
    assert late.valid_to == hanoi.valid_from and late.recorded_at == hanoi.recorded_at
    assert [f.id for f in await rig.facts.history(learner_id) if f.current] == [hanoi.id]
    page = await rig.facts.search(learner_id, "where do I live", as_of="2026-01-20T00:00:00Z")
    assert texts(page) == [late.content]


async def test_writes_park_while_neo4j_is_marked_down_and_replay(
    rig: Rig, learner_id: str, resources: Resources
) -> None:
    before = await rig.facts.remember(learner_id, "I live in Da Nang.")
    rig.backlog.mark_down("test: simulated outage")
    rig.clock.advance(hours=1)
    parked = await rig.facts.remember(learner_id, "I moved to Hanoi.")
    assert parked.degraded and parked.current
    page = await rig.facts.search(learner_id, "Where does the learner live? Hanoi")
    assert page.degraded and texts(page) == ["I moved to Hanoi."]  # newest per slot, from Redis
    assert await rig.backlog.pending(learner_id) == 1
    rig.backlog.mark_up()
    assert await rig.backlog.replay(learner_id=learner_id) == 1
    history = await rig.facts.history(learner_id)
    assert [f.id for f in history] == [parked.id, before.id]
    assert history[0].superseded == [before.id] and not history[1].current


async def test_vector_search_past_the_probe_uses_the_index_and_stays_scoped(
    rig: Rig, learner_id: str, resources: Resources
) -> None:
    # More valid facts than the recipe's candidate pool (30): the probe's exact scan is full,
    # so the vector list comes from the index (filtered to the learner), not the scan.
    animals = [f"animal{i:02d}" for i in range(36)]
    for i, name in enumerate(animals):
        await rig.facts.remember(learner_id, f"My pet number {i} is called {name}.")
    needle = "I keep a green iguana named Pickle in a glass terrarium."
    await rig.facts.remember(learner_id, needle)
    await rig.facts.remember(f"{learner_id}-b", needle)  # same text, another learner
    count = await rows(
        resources,
        "MATCH (f:Fact {learner_id: $l}) WHERE f.valid_to IS NULL RETURN count(f) AS n",
        l=learner_id,
    )
    assert count[0]["n"] == 37
    page = await rig.facts.search(learner_id, "a green iguana named Pickle lives in a terrarium", k=5)
    assert page.results[0].text == needle
    assert page.results[0].scores.get("vector") is not None
    owners = await rows(
        resources,
        "MATCH (f:Fact) WHERE f.id IN $ids RETURN f.learner_id AS l",
        ids=[h.id for h in page.results],
    )
    assert {r["l"] for r in owners} == {learner_id}


async def test_a_change_by_a_difference_gets_the_new_value_and_retires_the_old(
    rig: Rig, learner_id: str
) -> None:
    rig.clock.set("2026-05-04T09:00:00+02:00")
    final = await rig.facts.remember(learner_id, "My statistics final is on June 12.")
    other = await rig.facts.remember(learner_id, "I keep my notes in Obsidian.")
    rig.clock.set("2026-05-20T09:00:00+02:00")
    moved = await rig.facts.remember(learner_id, "The professor postponed the statistics final by a week.")
    assert moved.content.endswith("(now June 19)")
    assert moved.superseded == [final.id]
    assert (moved.subject, moved.predicate) == (final.subject, final.predicate)  # took its slot
    history = {f.id: f for f in await rig.facts.history(learner_id)}
    assert history[final.id].valid_to == moved.valid_from and history[other.id].current
    page = await rig.facts.search(learner_id, "When is the learner's statistics final?")
    assert page.results[0].id == moved.id
    then = await rig.facts.search(learner_id, "When is the statistics final?", as_of="2026-05-10T00:00:00Z")
    assert then.results[0].id == final.id


async def test_an_unsure_new_value_keeps_both_and_the_newer_ranks_first_with_was_until(
    rig: Rig, learner_id: str
) -> None:
    rig.clock.set("2026-01-05T09:00:00+08:00")
    cebu = await rig.facts.remember(learner_id, "I live with my parents in Cebu.")
    rig.clock.set("2026-03-05T09:00:00+08:00")
    manila = await rig.facts.remember(
        learner_id, "I rent a studio in Manila now, closer to the language school."
    )
    assert manila.superseded == []  # not near-certain: nothing retired
    assert all(f.current for f in await rig.facts.history(learner_id))
    page = await rig.facts.search(learner_id, "Where does the learner live?")
    assert [h.id for h in page.results] == [manila.id, cebu.id]
    assert page.results[1].metadata["was_until"] == manila.valid_from
    assert "was_until" not in page.results[0].metadata


async def test_numbered_things_of_a_series_never_retire_each_other(rig: Rig, learner_id: str) -> None:
    for i in range(3):
        rig.clock.advance(hours=1)
        record = await rig.facts.remember(learner_id, f"My pet number {i} is called animal{i:02d}.")
        assert record.superseded == []
    quiz = await rig.facts.remember(learner_id, "Quiz one went fine, I scored 54 out of 100 on it.")
    rig.clock.advance(hours=1)
    again = await rig.facts.remember(learner_id, "I scored 71 out of 100 on the second statistics quiz.")
    assert again.superseded == [] and quiz.current


async def test_a_running_total_told_by_a_pronoun_keeps_the_learners_format(rig: Rig, learner_id: str) -> None:
    rig.clock.set("2026-06-08T09:00:00+01:00")
    grant = await rig.facts.remember(learner_id, "I have $1,200 left in my conference travel grant.")
    rig.clock.set("2026-06-15T09:00:00+01:00")
    spent = await rig.facts.remember(learner_id, "The flight to Lisbon took $380 of it.")
    assert spent.content.endswith("(now $820)") and spent.superseded == [grant.id]
    other = f"{learner_id}-b"
    rig.clock.set("2026-08-03T09:00:00+01:00")
    done = await rig.facts.remember(other, "I've done 8 of the 20 LeetCode mediums on my interview list.")
    rig.clock.set("2026-08-05T09:00:00+01:00")
    more = await rig.facts.remember(other, "Knocked out 5 more last night.")
    assert more.content.endswith("(now 13)") and more.superseded == [done.id]  # the 20 is the whole
    page = await rig.facts.search(other, "How many of the LeetCode mediums has the learner done?")
    assert page.results[0].id == more.id


async def test_a_decimal_comma_and_a_date_in_digits_are_changed_and_written_back_the_learners_way(
    rig: Rig, learner_id: str
) -> None:
    rig.clock.set("2026-05-04T07:00:00+02:00")
    ridden = await rig.facts.remember(learner_id, "I've cycled 12,5 km on the new bike so far this month.")
    rig.clock.set("2026-05-06T07:00:00+02:00")
    more = await rig.facts.remember(learner_id, "Rode another 7,3 km to the lake and back.")
    assert more.content.endswith("(now 19,8)") and more.superseded == [ridden.id]
    other = f"{learner_id}-b"
    rig.clock.set("2026-03-01T09:00:00+01:00")
    due = await rig.facts.remember(other, "My dissertation submission is 2026-04-15.")
    rig.clock.set("2026-03-20T09:00:00+01:00")
    moved = await rig.facts.remember(other, "The department decided to shift the submission by a week.")
    assert moved.content.endswith("(now 2026-04-22)") and moved.superseded == [due.id]


async def test_of_one_message_the_fact_holding_the_kind_asked_reads_first(rig: Rig, learner_id: str) -> None:
    # one message: an introduction (the learner's own name) and the person asked for; the search ranks
    # the introduction first (it shares "thesis"), the question asks a person other than the learner
    rig.clock.set("2026-01-05T09:00:00+09:00")
    intro = await rig.facts.remember(learner_id, "Kenji here, master's student writing my thesis at Tohoku.")
    sato = await rig.facts.remember(learner_id, "Professor Sato reads my chapters every other week.")
    assert intro.valid_from == sato.valid_from
    page = await rig.facts.search(learner_id, "Who supervises the learner's thesis?")
    assert page.results[0].id == sato.id
    page = await rig.facts.search(learner_id, "What does the learner write at Tohoku?")  # no kind asked
    assert page.results[0].id == intro.id
