"""A summary written before the kernel commits its messages links them when they commit.

The heartbeat's archive step writes the recursive summary in the turn, without draining the
kernel stream first: the evicted messages the worker has not committed yet wait in the
summary's ``pending_message_ids``, and the worker's recall hook links them on commit.
"""

from __future__ import annotations

from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.resources import Resources


async def summary_state(resources: Resources, summary_id: str) -> dict:
    async with resources.neo4j.session(database=resources.database) as session:
        result = await session.run(
            "MATCH (s:SessionSummary {id: $id}) OPTIONAL MATCH (s)-[:SUMMARIZES]->(m:Message) "
            "RETURN s.pending_message_ids AS pending, collect(m.id) AS linked",
            id=summary_id,
        )
        return (await result.data())[0]


def messages(learner_id: str, first: int, last: int) -> list[RecallMessage]:
    return [
        RecallMessage(f"{learner_id}-m{i}", "user", f"Statement {i} about relational joins.")
        for i in range(first, last)
    ]


async def test_summary_links_messages_committed_before_and_after_it(
    resources: Resources, learner_id: str
) -> None:
    stores = MemoryStores.wire(resources)
    worker = build_worker(resources, stores)
    other = f"{learner_id}-other"
    try:
        await stores.recall.log_messages(learner_id, "s1", messages(learner_id, 0, 2))
        await worker.drain(learner_id)
        ids = [m.id for m in messages(learner_id, 0, 4)]
        written = await stores.archival.write_summary(
            learner_id,
            "The learner went over joins.",
            message_ids=ids,
            previous_summary_id=None,
            session_id="s1",
        )
        state = await summary_state(resources, written.id)
        assert sorted(state["linked"]) == ids[:2]  # committed ones are linked at once
        assert state["pending"] == ids[2:]  # the rest wait for the worker

        # Another learner committing messages with the pending ids never links to this summary.
        await stores.recall.log_messages(
            other, "s1", [RecallMessage(f"{other}-x", "user", "Statement about joins.")]
        )
        await worker.drain(other)
        assert (await summary_state(resources, written.id))["pending"] == ids[2:]

        await stores.recall.log_messages(learner_id, "s1", messages(learner_id, 2, 4))
        await worker.drain(learner_id)
        state = await summary_state(resources, written.id)
        assert sorted(state["linked"]) == ids
        assert state["pending"] is None

        # A replay of the same summary (at-least-once) recomputes nothing pending.
        again = await stores.archival.write_summary(
            learner_id,
            "The learner went over joins.",
            message_ids=ids,
            previous_summary_id=None,
            session_id="s1",
        )
        assert again.id == written.id
        state = await summary_state(resources, written.id)
        assert sorted(state["linked"]) == ids and state["pending"] is None
    finally:
        await erase_learner(resources, learner_id)
        await erase_learner(resources, other)
