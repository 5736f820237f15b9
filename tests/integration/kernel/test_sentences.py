"""Turn sentences on real Neo4j: derived by the kernel worker, read by the ``sentence`` retriever.

The worker writes every conversational turn's sentences with its turn context
(``agent.kernel.sentences``); a redelivered batch writes nothing new; the ``sentence``
retriever ranks a learner's turn contexts by their best sentence and never sees another
learner's sentences, on the exact scan (a few sentences) and on the vector index (many);
erasure removes them.
"""

from __future__ import annotations

import asyncio
import math
import uuid

from agent.kernel.derive import TURN_KIND, derive_turn_contexts, turn_context_id
from agent.kernel.sentences import backfill_sentences, pending_key
from agent.kernel.worker import build_worker
from agent.memory.archival import OP_INSERT
from agent.memory.erasure import erase_learner, owned_nodes
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.search.conversation import search_conversation
from bench.locomo.recipes import HYBRID_DISCLOSURE
from tests.integration.kernel.test_derive import as_dicts

SENTENCES = """
MATCH (s:TurnSentence {learner_id: $l})
RETURN s.id AS id, s.text AS text, s.session_id AS session, s.disclosure AS disclosure,
  s.embedding AS embedding
ORDER BY s.id
"""


async def sentence_rows(resources: Resources, learner_id: str) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(SENTENCES, {"l": learner_id})).data()


async def test_the_worker_derives_each_turns_sentences_once(resources: Resources, learner_id: str) -> None:
    stores = MemoryStores.wire(resources)
    at = "2023-05-08T13:56:0{}+00:00"
    messages = [
        RecallMessage(
            f"{learner_id}-1", "user", "Ana: Thanks! I'm reading Dune right now. It is long.", at.format(0)
        ),
        RecallMessage(f"{learner_id}-2", "assistant", "Ben: Which chapter are you on now?", at.format(1)),
        RecallMessage(f"{learner_id}-3", "tool", "no results at all in memory", at.format(2)),
    ]
    worker = build_worker(resources, stores)
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        await worker.drain(learner_id)
        stored = await sentence_rows(resources, learner_id)
        first, second = (turn_context_id(f"{learner_id}-{i}") for i in (1, 2))
        assert [(r["id"], r["text"]) for r in stored] == [
            (f"{first}~0", "Ana: I'm reading Dune right now."),
            (f"{second}~0", "Ben: Which chapter are you on now?"),
        ]  # "Thanks!" and "It is long." are too short; the tool result is no turn
        assert [(r["session"], r["disclosure"]) for r in stored] == [("s1", True), ("s1", False)]
        assert all(len(r["embedding"]) == resources.embeddings.dimension for r in stored)
        # A redelivered batch derives the same ids: nothing new, nothing changed.
        assert await derive_turn_contexts(stores, learner_id, "s1", as_dicts(messages)) == 2
        assert await sentence_rows(resources, learner_id) == stored
    finally:
        await erase_learner(resources, learner_id)
    assert await sentence_rows(resources, learner_id) == []
    assert await owned_nodes(resources, learner_id) == 0


async def test_a_turn_ranks_by_its_best_sentence_and_only_the_learners_own(
    resources: Resources, learner_id: str
) -> None:
    """The ``sentence`` score of a hit is its best sentence's cosine; other learners never show.

    Another learner holds the same turns: with a few sentences the retriever scans them
    exactly, with many (more than its candidates) it asks the shared vector index first; both
    ways, every turn context it ranks is the searching learner's. Scores are Neo4j's
    normalised cosine, ``(1 + cos) / 2``, in the index and in the exact scan alike.
    """
    stores = MemoryStores.wire(resources)
    other = f"test-{uuid.uuid4()}"
    at = "2023-05-08T14:{:02d}:00+00:00"
    topics = ["pottery", "camping", "painting", "swimming", "chess", "baking", "cycling", "guitar"]

    def turns(owner: str, count: int) -> list[RecallMessage]:
        return [
            RecallMessage(
                f"{owner}-{count}-{i}",
                "user",
                f"Ana: We talked for a while about the weather today. "
                f"I spent the whole weekend on {topics[i % len(topics)]} again, number {i}.",
                at.format(i % 60),
            )
            for i in range(count)
        ]

    worker = build_worker(resources, stores)
    query = "What hobbies does Ana have, like pottery?"
    vector = await stores.archival.embed_query(query)
    try:
        for count in (3, 45):  # 6 sentences: the exact scan; 90: the vector index
            for owner in (learner_id, other):
                await stores.recall.log_messages(owner, f"s{count}", turns(owner, count))
                await worker.drain(owner)
            page = await search_conversation(
                stores, learner_id, query, recipe="hybrid_sentences", page_size=10
            )
            ranked = await stores.archival.search(
                learner_id, query, page_size=10, recipe="hybrid_sentences", kinds=[TURN_KIND]
            )
            assert page.results and all(h.id.startswith(f"{learner_id}-") for h in page.results)
            by_sentence = [h for h in ranked.results if "sentence" in h.scores]
            assert by_sentence and all(h.id.startswith(f"{learner_id}-") for h in ranked.results)
            stored = {r["id"]: r for r in await sentence_rows(resources, learner_id)}
            for hit in by_sentence:
                own = [r for sid, r in stored.items() if sid.rsplit("~", 1)[0] == hit.id]
                cos = max(sum(a * b for a, b in zip(r["embedding"], vector, strict=True)) for r in own)
                best = (1 + cos) / 2
                # The exact scan's cosine is the stored vectors'; the index quantises them (a few 1e-3).
                assert math.isclose(hit.scores["sentence"], best, abs_tol=1e-6 if count == 3 else 5e-3)
            baseline = await stores.archival.search(
                learner_id, query, page_size=10, recipe=HYBRID_DISCLOSURE, kinds=[TURN_KIND]
            )
            assert all("sentence" not in h.scores for h in baseline.results)  # weight 0: never run
    finally:
        await erase_learner(resources, learner_id)
        await erase_learner(resources, other)


async def test_the_backfill_derives_sentences_of_older_turn_contexts_once(
    resources: Resources, learner_id: str
) -> None:
    """Turn contexts derived before sentences existed (no ``sentences`` mark) get them, once."""
    stores = MemoryStores.wire(resources)
    at = "2023-05-08T15:0{}:00+00:00"
    messages = [
        RecallMessage(
            f"{learner_id}-1", "user", "I adopted a grey kitten. She is called Pixel now.", at.format(0)
        ),
        RecallMessage(f"{learner_id}-2", "assistant", "Lovely!", at.format(1)),
    ]
    worker = build_worker(resources, stores)
    older = (  # as a deployment from before sentences has them
        "MATCH (s:TurnSentence {learner_id: $l}) DETACH DELETE s",
        "MATCH (m:Memory {learner_id: $l}) REMOVE m.sentences",
    )
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        await worker.drain(learner_id)
        derived = await sentence_rows(resources, learner_id)
        assert [r["text"] for r in derived] == ["I adopted a grey kitten.", "She is called Pixel now."]
        async with resources.neo4j.session(database=resources.database) as session:
            for statement in older:
                await (await session.run(statement, {"l": learner_id})).consume()
        assert await sentence_rows(resources, learner_id) == []

        assert await backfill_sentences(stores, learner_id, batch=1) == (2, 2)  # "Lovely!" has none
        again = await sentence_rows(resources, learner_id)
        fields = ("id", "text", "session", "disclosure")
        assert [[r[f] for f in fields] for r in again] == [[r[f] for f in fields] for r in derived]
        for new, old in zip(
            again, derived, strict=True
        ):  # the same vectors (batching may move the last bits)
            assert max(abs(a - b) for a, b in zip(new["embedding"], old["embedding"], strict=True)) < 1e-4
        assert await backfill_sentences(stores, learner_id) == (0, 0)  # marked: never read again
    finally:
        await erase_learner(resources, learner_id)


async def test_the_running_worker_splits_turns_when_idle_then_forgets_the_learner(
    resources: Resources, learner_id: str
) -> None:
    """Commits come first; the sentences follow in the worker's idle rounds (``derive_pending``)."""
    stores = MemoryStores.wire(resources)
    worker = build_worker(resources, stores, flush_interval=0.5)
    said = [
        f"I practised recursion for {i + 2} hours today. The last exercise went really well."
        for i in range(3)
    ]
    messages = [RecallMessage(f"{learner_id}-{i}", "user", text) for i, text in enumerate(said)]
    expected = sorted([f"I practised recursion for {i + 2} hours today." for i in range(3)])
    expected = sorted(expected + ["The last exercise went really well."] * 3)
    stop = asyncio.Event()
    task = asyncio.create_task(worker.run(stop))
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        assert not await resources.redis.sismember(pending_key(stores), learner_id), "nothing committed yet"
        for _ in range(300):  # the worker commits, then splits when idle
            if len(await sentence_rows(resources, learner_id)) == len(expected):
                break
            await asyncio.sleep(0.1)
        assert sorted(r["text"] for r in await sentence_rows(resources, learner_id)) == expected
        for _ in range(50):  # the round that finds nothing left unmarks the learner
            if not await resources.redis.sismember(pending_key(stores), learner_id):
                break
            await asyncio.sleep(0.1)
        assert not await resources.redis.sismember(pending_key(stores), learner_id)
        assert worker.stats()["deferred"] >= len(said)  # other tests' learners may be pending too
    finally:
        stop.set()
        await task
        await erase_learner(resources, learner_id)


async def test_turn_contexts_replayed_from_the_backlog_mark_their_learner(
    resources: Resources, learner_id: str
) -> None:
    """A turn context parked while Neo4j was down lands later: its learner is marked for the idle pass."""
    stores = MemoryStores.wire(resources)
    [hook] = stores.backlog.hooks[OP_INSERT]
    key = pending_key(stores)
    try:
        await hook(learner_id, [{"learner_id": learner_id, "items": [{"kind": "memory", "text": "a note"}]}])
        assert not await resources.redis.sismember(key, learner_id), "other memories mark nothing"
        await hook(
            learner_id, [{"learner_id": learner_id, "items": [{"kind": TURN_KIND, "text": "Ana: hi"}]}]
        )
        assert await resources.redis.sismember(key, learner_id)
    finally:
        await resources.redis.srem(key, learner_id)


async def test_a_one_sentence_turn_reuses_its_message_vector(resources: Resources, learner_id: str) -> None:
    """A turn that is one sentence is split into its message's own text: recall's vector is kept.

    The learner's question is one sentence and is not encoded a second time; the reply's
    kept sentence differs from its message ("Sure thing." is too short) and is encoded.
    """
    stores = MemoryStores.wire(resources)
    encoded: list[str] = []
    embed = stores.archival.embed_documents

    async def spy(texts: list[str]) -> list[list[float]]:
        encoded.extend(texts)
        return await embed(texts)

    stores.archival.embed_documents = spy  # type: ignore[method-assign]
    question = "Ana: Can you explain recursion again?"
    reply = "Ben: Sure thing. Recursion is a function calling itself on smaller input."
    at = "2023-05-08T13:56:0{}+00:00"
    messages = [
        RecallMessage(f"{learner_id}-1", "user", question, at.format(0)),
        RecallMessage(f"{learner_id}-2", "assistant", reply, at.format(1)),
    ]
    worker = build_worker(resources, stores)
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        await worker.drain(learner_id)
        stored = {r["text"]: r["embedding"] for r in await sentence_rows(resources, learner_id)}
        kept = "Ben: Recursion is a function calling itself on smaller input."
        assert set(stored) == {question, kept}
        async with resources.neo4j.session(database=resources.database) as session:
            result = await session.run(
                "MATCH (m:Message {id: $id, learner_id: $l}) RETURN m.embedding AS e",
                {"id": f"{learner_id}-1", "l": learner_id},
            )
            [row] = await result.data()
        assert stored[question] == row["e"], "the question's sentence keeps its message's vector"
        assert question not in encoded and kept in encoded
        assert math.isclose(sum(x * x for x in stored[kept]), 1.0, rel_tol=1e-4)
    finally:
        await erase_learner(resources, learner_id)
