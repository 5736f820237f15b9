"""A live heartbeat session and the LoCoMo ingest of the same turns build the same memories.

Both go through the product's ingestion: recall logging enqueues to the kernel stream,
the kernel worker commits the messages and derives their ``turn_context`` memories
(``agent.kernel.derive``) and their sentences (``agent.kernel.sentences``). The live
session is the heartbeat with a scripted model (speaker A's turns are the requests,
speaker B's the answers); the LoCoMo ingest is ``bench.locomo.ingest`` on the same turns
(its per-session summary is written the way the heartbeat's archive step writes one, and
is left out here: the live session is too short to evict). The only difference allowed
is the date: a live turn is dated when it is said, a LoCoMo turn by its session.
"""

from __future__ import annotations

import re
import uuid
from datetime import datetime

from agent.context import Context
from agent.kernel.derive import TURN_KIND
from agent.kernel.worker import build_worker
from agent.memory.erasure import erase_learner
from agent.memory.stores import MemoryStores
from agent.resources import Resources
from bench.locomo.dataset import Conversation, Session, Turn
from bench.locomo.ingest import LocomoIngest, message_content
from tests.scripted_models import scripted

TURNS = (
    Turn("D1:1", "Ana", "I finally signed up for the pottery class downtown.", 1),
    Turn("D1:2", "Ben", "That's great! What made you pick pottery?", 1),
    Turn("D1:3", "Ana", "My grandmother made bowls, and I want to learn it too.", 1, caption="a clay bowl"),
    Turn("D1:4", "Ben", "Lovely. Send me a photo of your first bowl!", 1),
)
SESSION = Session(1, datetime(2023, 5, 8, 13, 56), "1:56 pm on 8 May, 2023", TURNS)
CONVERSATION = Conversation("conv-live", "Ana", "Ben", (SESSION,), ())
SID = "session_1"
DATE = re.compile(r"^\d{1,2}:\d{2} [ap]m on \d{1,2} [A-Z][a-z]+, \d{4}\. ")

MEMORIES = """
MATCH (m:Memory {learner_id: $l})
OPTIONAL MATCH (m)-[:DERIVED_FROM]->(s:Message)
RETURN m.kind AS kind, m.text AS text, m.session_id AS session, collect(s.content) AS sources, m.seq AS seq,
  m.disclosure AS disclosure
ORDER BY seq
"""
SENTENCES = """
MATCH (s:TurnSentence {learner_id: $l})
MATCH (m:Memory {id: split(s.id, '~')[0]})
RETURN s.text AS text, s.session_id AS session, s.disclosure AS disclosure
ORDER BY m.seq, toInteger(split(s.id, '~')[1])
"""
MESSAGES = "MATCH (m:Message {learner_id: $l}) RETURN m.role AS role, m.content AS content ORDER BY m.seq"


async def rows(resources: Resources, query: str, learner: str) -> list[dict]:
    async with resources.neo4j.session(database=resources.database) as session:
        return await (await session.run(query, {"l": learner})).data()


def shape(memories: list[dict]) -> list[tuple[str, str, tuple[str, ...], bool | None]]:
    """Kind, text without its date, sources and disclosure flag of every memory but summaries."""
    return [
        (m["kind"], DATE.sub("<date>. ", m["text"]), tuple(m["sources"]), m["disclosure"])
        for m in memories
        if m["kind"] not in {"summary", "raw_summary"}
    ]


async def test_a_live_session_and_the_locomo_ingest_build_the_same_memories(
    make_graph, resources: Resources
) -> None:
    live, bench = f"test-live-{uuid.uuid4()}", f"test-locomo-{uuid.uuid4()}"
    stores = MemoryStores.wire(resources)
    worker = build_worker(resources, stores)
    graph = make_graph(scripted(*(message_content(t) for t in TURNS[1::2])))
    config = {"configurable": {"thread_id": f"{live}-t"}}
    try:
        for turn in TURNS[::2]:
            await graph.ainvoke(
                {
                    "learner_id": live,
                    "request": message_content(turn),
                    "context": {"session_id": "session_1"},
                },
                config,
                context=Context(),
            )
        await worker.drain(live)
        ingested = await LocomoIngest(resources, stores, worker, notes=False).ingest(CONVERSATION, bench)

        live_messages, bench_messages = (
            await rows(resources, MESSAGES, live),
            await rows(resources, MESSAGES, bench),
        )
        assert live_messages == bench_messages
        assert [m["role"] for m in live_messages] == ["user", "assistant", "user", "assistant"]

        live_memories, bench_memories = (
            await rows(resources, MEMORIES, live),
            await rows(resources, MEMORIES, bench),
        )
        assert shape(live_memories) == shape(bench_memories)
        turn_contexts = [m for m in live_memories if m["kind"] == TURN_KIND]
        assert len(turn_contexts) == len(TURNS) == ingested.turn_contexts
        assert {m["session"] for m in turn_contexts} == {SID}
        assert all(DATE.match(m["text"]) for m in turn_contexts)
        # Both paths judge each turn alike: statements "I/my" are disclosures, Ben's question is not.
        assert [m["disclosure"] for m in turn_contexts] == [True, False, True, True]
        assert turn_contexts[1]["text"].endswith(f"(replying to {message_content(TURNS[0])})")
        assert [m["text"] for m in bench_memories if m["kind"] == TURN_KIND][0].startswith(SESSION.date_text)
        # The turn sentences (``agent.kernel.sentences``): the same on both paths, each with its speaker.
        live_sentences = await rows(resources, SENTENCES, live)
        assert live_sentences == await rows(resources, SENTENCES, bench)
        assert [(s["text"], s["disclosure"]) for s in live_sentences] == [
            ("Ana: I finally signed up for the pottery class downtown.", True),
            ("Ben: What made you pick pottery?", False),
            ("Ana: My grandmother made bowls, and I want to learn it too.", True),
            ("Ana: [shares a photo: a clay bowl]", True),
            ("Ben: Send me a photo of your first bowl!", True),
        ]
        assert {s["session"] for s in live_sentences} == {SID}
    finally:
        await erase_learner(resources, live)
        await erase_learner(resources, bench)
