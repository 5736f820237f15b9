"""The default conversation search: turn contexts rank, messages answer, fresh messages fused in."""

from __future__ import annotations

from agent.kernel.derive import turn_context_id
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from agent.search.conversation import search_conversation


async def test_messages_ranked_by_their_turn_contexts_and_read_your_writes(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    at = "2023-05-08T13:56:0{}+00:00"
    messages = [
        RecallMessage(f"{learner_id}-1", "user", "I adopted a grey kitten called Pixel.", at.format(0)),
        RecallMessage(f"{learner_id}-2", "assistant", "What a lovely name!", at.format(1)),
        RecallMessage(f"{learner_id}-3", "user", "My sister studies marine biology in Lisbon.", at.format(2)),
    ]
    try:
        await stores.recall.log_messages(learner_id, "s1", messages)
        fresh = await search_conversation(stores, learner_id, "kitten Pixel", recipe="hybrid_multi_query")
        assert fresh.results and fresh.results[0].id == f"{learner_id}-1"  # not drained yet: the tail
        await build_worker(resources, stores).drain(learner_id)
        page = await search_conversation(stores, learner_id, "kitten Pixel", recipe="hybrid_multi_query")
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
