"""Ingest one LoCoMo conversation into one learner's memory, through the product's own ingestion.

Sessions go in order, with their dates. Per session:

1. **Recall storage** (``RecallStore.log_messages``, which enqueues to the kernel stream):
   every turn verbatim as a message, ``content = "Speaker: text"`` plus
   ``" [shares a photo: caption]"`` when the turn carries an image caption; role ``user``
   for ``speaker_a``, ``assistant`` for ``speaker_b``; ``created_at`` = session date + turn
   index seconds; the dia_id, speaker and session number in ``metadata``.
2. **The kernel worker drains** the learner's stream (``KernelWorker.drain``), exactly as it
   does for a live session: it commits the messages and derives one ``turn_context``
   archival memory per turn (``agent.kernel.derive``: the date from ``created_at``, the
   turn and the turn it replies to, no LLM), ``DERIVED_FROM`` its message. The benchmark
   builds no representation of its own.
3. **Summary** (``summarise`` + ``ArchivalStore.write_summary``): the session summary
   the heartbeat would write, from the configured chat model (offline: extractive),
   ``SUMMARIZES`` every turn of the session.
4. **Notes** (``note_pipeline.ingest_session``): Zettelkasten notes of the session.

The worker also consolidates episodes as it does for every learner (every 10 learner
statements, ``agent.memory.episodes``); recall searches return them once they exist.

``IngestResult.sources`` maps every stored item id to the dia_ids it was derived
from, for scoring: a message or turn context -> its turn (turn-context ids follow from
message ids, ``turn_context_id``); a summary -> every turn of its session; a consolidated
episode -> the turns it folds; a note -> the turns whose text contains one of its sentences.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, timedelta
from typing import Any

import neo4j
from langchain_core.messages import AIMessage, AnyMessage, HumanMessage

from agent.errors import InvalidInputError, KAGError
from agent.graphdb.store import fetch
from agent.heartbeat.summarizer import SummaryFailedError, render_excerpt, summarise
from agent.kernel.derive import TURN_KIND, is_conversation_turn, turn_context_id
from agent.kernel.worker import KernelWorker
from agent.memory.erasure import erase_learner
from agent.memory.recall import RecallMessage
from agent.memory.stores import MemoryStores
from agent.notes.pipeline import ingest_session
from agent.notes.store import NoteStore
from agent.resources import Resources
from bench.locomo.dataset import Conversation, Session, Turn
from bench.locomo.queries import EPISODE_SOURCES, KEPT_ITEMS

NOTE_FIELDS = ("definition", "personal_example", "key_insight")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def learner_for(run_id: str, sample_id: str) -> str:
    """A learner id unique to this run and conversation: ``locomo-<run>-<sample>``."""
    return f"locomo-{_UNSAFE.sub('-', run_id)}-{_UNSAFE.sub('-', sample_id)}"[:64]


def session_id_for(session: Session) -> str:
    """The session id shared by the session's messages, turn contexts, summary and notes."""
    return f"session_{session.number}"


def message_content(turn: Turn) -> str:
    """The turn as recall storage keeps it: speaker, text and the shared photo's caption."""
    text = f"{turn.speaker}: {turn.text}".strip()
    return f"{text} [shares a photo: {turn.caption}]" if turn.caption else text


def turn_time(session: Session, index: int) -> str:
    """ISO time of a turn: the session's start plus ``index`` seconds (LoCoMo has no turn times)."""
    return (session.started_at + timedelta(seconds=index)).replace(tzinfo=UTC).isoformat()


def note_sources(note: dict[str, Any], turns: Sequence[tuple[str, str]]) -> tuple[str, ...]:
    """dia_ids of the ``(dia_id, content)`` turns that contain one of the note's sentences."""
    sentences = [s.strip() for s in (note.get(f) or "" for f in NOTE_FIELDS) if s and s.strip()]
    return tuple(dia for dia, content in turns if any(s in content for s in sentences))


@dataclass
class IngestResult:
    """What one conversation's ingestion stored."""

    sample_id: str
    learner_id: str
    sessions: int = 0
    turns: int = 0
    messages: int = 0
    turn_contexts: int = 0
    summaries: int = 0
    episodes: int = 0
    notes: int = 0
    note_failures: int = 0
    seconds: float = 0.0
    sources: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready counts (without the source map)."""
        keys = ("sample_id", "learner_id", "sessions", "turns", "messages", "turn_contexts")
        out = {k: getattr(self, k) for k in keys}
        out.update(summaries=self.summaries, episodes=self.episodes, notes=self.notes)
        out["note_failures"] = self.note_failures
        out["seconds"] = round(self.seconds, 2)
        return out


class LocomoIngest:
    """Write conversations through the stores of ``resources``."""

    def __init__(
        self, resources: Resources, stores: MemoryStores, worker: KernelWorker, *, notes: bool = True
    ) -> None:
        """``worker`` drains what the stores enqueue; ``notes=False`` skips the Zettelkasten step."""
        self.resources = resources
        self.stores = stores
        self.worker = worker
        self.notes = notes

    async def ingest(
        self,
        conversation: Conversation,
        learner_id: str,
        advance: Callable[[int], object] | None = None,
    ) -> IngestResult:
        """Ingest every session of ``conversation`` in order; ``advance(n)`` after n turns."""
        started = time.perf_counter()
        result = IngestResult(conversation.sample_id, learner_id)
        for session in conversation.sessions:
            await self._session(conversation, session, result)
            if advance is not None:
                advance(len(session.turns))
        result.seconds = time.perf_counter() - started
        await self._episodes(result)
        return result

    async def restore(self, conversation: Conversation, learner_id: str) -> IngestResult:
        """The ``IngestResult`` of a learner a ``keep`` run left, read back from the graph (no ingestion).

        Messages, turn contexts, session summaries and episodes map to their turns as
        ``ingest`` maps them; notes are not restored (they map to no turn). ``seconds`` is 0.
        """
        result = IngestResult(conversation.sample_id, learner_id)

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, KEPT_ITEMS, learner_id=learner_id, turn_kind=TURN_KIND)

        kept = {(r["what"], r["id"]): r for r in await self.stores.recall.read(work)}
        if not kept:
            raise InvalidInputError(f"no kept learner {learner_id!r} to reuse (run with --keep first)")
        for session in conversation.sessions:
            for turn in session.turns:
                message = f"{learner_id}-{turn.dia_id}"
                if ("message", message) in kept:
                    result.sources[message] = (turn.dia_id,)
                    result.messages += 1
                if ("turn_context", turn_context_id(message)) in kept:
                    result.sources[turn_context_id(message)] = (turn.dia_id,)
                    result.turn_contexts += 1
            sid = session_id_for(session)
            for (what, item), row in kept.items():
                if what == "summary" and row["session_id"] == sid:
                    result.sources[item] = tuple(t.dia_id for t in session.turns)
                    result.summaries += 1
            result.sessions += 1
            result.turns += len(session.turns)
        await self._episodes(result)
        return result

    async def _session(self, conversation: Conversation, session: Session, result: IngestResult) -> None:
        learner, sid = result.learner_id, session_id_for(session)
        messages = [
            RecallMessage(
                id=f"{learner}-{turn.dia_id}",
                role="user" if turn.speaker == conversation.speaker_a else "assistant",
                content=message_content(turn),
                created_at=turn_time(session, i),
                metadata={"dia_id": turn.dia_id, "speaker": turn.speaker, "session": session.number},
            )
            for i, turn in enumerate(session.turns)
        ]
        result.messages += (await self.stores.recall.log_messages(learner, sid, messages)).count
        await self.worker.drain(learner)  # commits the messages and derives their turn contexts
        for turn, message in zip(session.turns, messages, strict=True):
            result.sources[message.id] = (turn.dia_id,)
            if is_conversation_turn(message.role, message.content):
                result.sources[turn_context_id(message.id)] = (turn.dia_id,)
                result.turn_contexts += 1
        dia_ids = tuple(t.dia_id for t in session.turns)
        chat = _chat_messages(messages)
        try:
            text, raw = await summarise(self.resources.chat_model, "", chat), False
        except SummaryFailedError:  # as the heartbeat does: archive the raw excerpt
            text, raw = render_excerpt(chat), True
        summary = await self.stores.archival.write_summary(
            learner,
            text,
            message_ids=[m.id for m in messages],
            previous_summary_id=None,
            session_id=sid,
            raw=raw,
        )
        result.sources[summary.id] = dia_ids
        result.summaries += 1
        if self.notes:
            await self._notes(learner, sid, messages, result)
        result.sessions += 1
        result.turns += len(session.turns)

    async def _episodes(self, result: IngestResult) -> None:
        """Map the learner's consolidated episodes to the turns of the messages they fold."""

        async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, EPISODE_SOURCES, learner_id=result.learner_id)

        for row in await self.stores.episodes.read(work):
            turns = [result.sources[m][0] for m in row["message_ids"] if m in result.sources]
            result.sources[row["id"]] = tuple(turns)
            result.episodes += 1

    async def _notes(
        self, learner: str, sid: str, messages: list[RecallMessage], result: IngestResult
    ) -> None:
        transcript = [{"role": m.role, "content": m.content} for m in messages]
        try:
            out = await ingest_session(self.resources, learner, transcript, session_id=sid)
        except KAGError:
            result.note_failures += 1
            return
        result.note_failures += len(out["failures"])
        ids = [a["note_id"] for a in out["artifacts"]]
        if not ids:
            return
        turns = [((m.metadata or {})["dia_id"], m.content) for m in messages]
        for note in await NoteStore.for_resources(self.resources).get_notes(learner, ids):
            result.sources[note["id"]] = note_sources(note, turns)
            result.notes += 1

    async def erase(self, learner_id: str) -> None:
        """Delete everything the learner owns (Neo4j nodes and Redis keys)."""
        await erase_learner(self.resources, learner_id)


def _chat_messages(messages: Sequence[RecallMessage]) -> list[AnyMessage]:
    """Recall messages as chat messages, for the summariser."""
    kinds = {"user": HumanMessage}
    return [kinds.get(m.role, AIMessage)(content=m.content, id=m.id) for m in messages]
