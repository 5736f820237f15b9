"""``derive_turn_contexts`` on real Neo4j: one turn context per conversational turn, idempotent.

Messages go in the product's way (logged to the kernel stream, committed by the worker, which
derives their turn contexts); calling ``derive_turn_contexts`` again on a committed batch, as a
redelivered stream entry would, writes nothing new.
"""

from __future__ import annotations

from agent.kernel.derive import TURN_KIND, derive_recall_turn_contexts, derive_turn_contexts
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources


async def rows(resources: Resources, query: str, **params: object) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, params)).data()


def as_dicts(messages: list[RecallMessage]) -> list[dict]:
    return [
        {"id": m.id, "role": m.role, "content": m.content, "created_at": m.created_at, "seq": None}
        for m in messages
    ]


async def test_turns_of_two_batches_chain_replies_across_them(resources: Resources, learner_id: str) -> None:
    stores = MemoryStores.wire(resources)
    at = "2023-05-08T13:56:0{}+00:00"
    first = [
        RecallMessage(f"{learner_id}-1", "user", "Ana: I started pottery classes.", at.format(0)),
        RecallMessage(f"{learner_id}-2", "assistant", "[calls conversation_search({'query': 'pottery'})]"),
        RecallMessage(f"{learner_id}-3", "tool", "no results", at.format(2)),
    ]
    second = [
        RecallMessage(f"{learner_id}-4", "assistant", "Ben: Nice, what did you make?", at.format(3)),
        RecallMessage(f"{learner_id}-5", "user", "Ana: A blue bowl.", at.format(4)),
    ]
    worker = build_worker(resources, stores)
    try:
        await stores.recall.log_messages(learner_id, "s1", first)
        await worker.drain(learner_id)
        assert await derive_turn_contexts(stores, learner_id, "s1", as_dicts(first)) == 1
        await stores.recall.log_messages(learner_id, "s1", second)
        await worker.drain(learner_id)  # a second batch: the reply chain continues from Neo4j
        stored = await rows(
            resources,
            "MATCH (:Learner {id: $l})-[:HAS_MEMORY]->(m:Memory) "
            "OPTIONAL MATCH (m)-[:DERIVED_FROM]->(s:Message) "
            "RETURN m.id AS id, m.kind AS kind, m.text AS text, m.session_id AS session, "
            "collect(s.id) AS sources, m.seq AS seq ORDER BY seq",
            l=learner_id,
        )
        assert [r["id"] for r in stored] == [f"{learner_id}-{i}-ctx" for i in (1, 4, 5)]
        assert {r["kind"] for r in stored} == {TURN_KIND} and {r["session"] for r in stored} == {"s1"}
        assert [r["sources"] for r in stored] == [[f"{learner_id}-{i}"] for i in (1, 4, 5)]
        assert [r["text"] for r in stored] == [
            "1:56 pm on 8 May, 2023. Ana: I started pottery classes.",
            "1:56 pm on 8 May, 2023. Ben: Nice, what did you make? "
            "(replying to Ana: I started pottery classes.)",
            "1:56 pm on 8 May, 2023. Ana: A blue bowl. (replying to Ben: Nice, what did you make?)",
        ]
        # A redelivered batch derives the same ids: nothing new is written.
        assert await derive_turn_contexts(stores, learner_id, "s1", as_dicts(second)) == 2
        count = await rows(resources, "MATCH (m:Memory {learner_id: $l}) RETURN count(m) AS n", l=learner_id)
        assert count[0]["n"] == 3
        page = await stores.archival.search(learner_id, "blue bowl", kinds=[TURN_KIND], recipe="hybrid_rrf")
        assert page.results[0].id == f"{learner_id}-5-ctx"
        assert await derive_turn_contexts(stores, learner_id, "s1", as_dicts(first[1:])) == 0
    finally:
        await erase_learner(resources, learner_id)


async def test_a_run_of_many_events_derives_as_the_events_one_by_one(
    resources: Resources, learner_id: str
) -> None:
    """``derive_recall_turn_contexts`` over a run (two sessions interleaved) = each event alone."""
    stores = MemoryStores.wire(resources)
    at = "2023-05-08T14:0{}:00+00:00"
    events = [
        ("s1", [RecallMessage(f"{learner_id}-a1", "user", "Ana: I bake bread on Sundays.", at.format(0))]),
        ("s2", [RecallMessage(f"{learner_id}-b1", "user", "Ana: My cat is called Miso.", at.format(1))]),
        (
            "s1",
            [
                RecallMessage(f"{learner_id}-a2", "assistant", "Ben: Sourdough or yeast?", at.format(2)),
                RecallMessage(f"{learner_id}-a3", "tool", "no results", at.format(3)),
                RecallMessage(f"{learner_id}-a4", "user", "Ana: Sourdough, always.", at.format(4)),
            ],
        ),
    ]
    payloads = [{"session_id": s, "messages": as_dicts(batch)} for s, batch in events]
    memories = (
        "MATCH (m:Memory {learner_id: $l}) RETURN m.id AS id, m.text AS text, m.session_id AS session "
        "ORDER BY m.seq"
    )
    worker = build_worker(resources, stores)
    try:
        for session, batch in events:
            await stores.recall.log_messages(learner_id, session, batch)
            await worker.drain(learner_id)  # one event per drain: derived event by event
        one_by_one = await rows(resources, memories, l=learner_id)
        assert [r["id"] for r in one_by_one] == [f"{learner_id}-{i}-ctx" for i in ("a1", "b1", "a2", "a4")]
        await rows(resources, "MATCH (m:Memory {learner_id: $l}) DETACH DELETE m", l=learner_id)
        assert await derive_recall_turn_contexts(stores, learner_id, payloads) == 4
        assert await rows(resources, memories, l=learner_id) == one_by_one
        assert one_by_one[3]["text"].endswith("(replying to Ben: Sourdough or yeast?)")
        assert not one_by_one[1]["text"].endswith(")")  # s2 starts its own chain
    finally:
        await erase_learner(resources, learner_id)
