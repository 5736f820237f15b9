"""The default conversation search: turn contexts rank, messages answer, fresh messages fused in."""

from __future__ import annotations

import pytest

from agent.kernel.derive import turn_context_id
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.search.conversation import search_conversation
from bench.locomo.recipes import HYBRID_DISCLOSURE, HYBRID_MULTI_QUERY


def conversation(learner_id: str, *texts: tuple[str, str]) -> list[RecallMessage]:
    """``(role, text)`` turns as one session's messages, a second apart."""
    at = "2023-05-08T13:56:0{}+00:00"
    return [
        RecallMessage(f"{learner_id}-{i}", role, text, at.format(i))
        for i, (role, text) in enumerate(texts, 1)
    ]


async def test_messages_ranked_by_their_turn_contexts_and_read_your_writes(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    messages = conversation(
        learner_id,
        ("user", "I adopted a grey kitten called Pixel."),
        ("assistant", "What a lovely name!"),
        ("user", "My sister studies marine biology in Lisbon."),
    )
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        fresh = await search_conversation(stores, learner_id, "kitten Pixel", recipe=HYBRID_MULTI_QUERY)
        assert fresh.results and fresh.results[0].id == f"{learner_id}-1"  # not drained yet: the tail
        await build_worker(resources, stores).drain(learner_id)
        page = await search_conversation(stores, learner_id, "kitten Pixel", recipe=HYBRID_MULTI_QUERY)
        top = page.results[0]
        assert top.id == f"{learner_id}-1" and top.kind == "message"
        assert top.text == messages[0].content and top.metadata["role"] == "user"
        assert top.metadata["turn_context"] == turn_context_id(top.id) and top.metadata["session_id"] == "s1"
        # The reply is found through its turn context (it says "replying to" the kitten turn).
        assert f"{learner_id}-2" in [h.id for h in page.results]
        other = await search_conversation(stores, learner_id + "-x", "kitten Pixel", recipe="hybrid_rrf")
        assert other.results == []
    finally:
        await erase_learner(resources, learner_id)


async def test_one_read_transaction_and_a_context_without_its_message_comes_as_it_is(
    resources: Resources, learner_id: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    stores = MemoryStores.wire(resources)
    messages = conversation(
        learner_id,
        ("user", "I adopted a grey kitten called Pixel."),
        ("user", "Pixel sleeps on my keyboard every night."),
    )
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        await build_worker(resources, stores).drain(learner_id)
        reads: list[bool] = []
        for store in (stores.archival, stores.recall):
            real = store._transaction

            async def counted(work, write, real=real):  # noqa: ANN001, ANN202
                reads.append(write)
                return await real(work, write)

            monkeypatch.setattr(store, "_transaction", counted)
        page = await search_conversation(stores, learner_id, "Pixel kitten", recipe=HYBRID_DISCLOSURE)
        assert {h.id for h in page.results} == {m.id for m in messages}
        assert all(h.metadata["turn_context"] == turn_context_id(h.id) for h in page.results)
        assert reads == [False]  # the messages came with the search, not in a second transaction

        async with resources.neo4j.session(database=resources.database) as session:
            await session.run("MATCH (m:Message {id: $id}) DETACH DELETE m", id=messages[1].id)
        page = await search_conversation(stores, learner_id, "Pixel kitten", recipe=HYBRID_DISCLOSURE)
        by_id = {h.id: h for h in page.results}
        orphan = by_id[turn_context_id(messages[1].id)]  # its message is gone: the memory itself
        assert orphan.kind == "turn_context" and "turn_context" not in orphan.metadata
        assert by_id[messages[0].id].kind == "message"
    finally:
        await erase_learner(resources, learner_id)
