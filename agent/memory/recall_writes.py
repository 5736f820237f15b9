"""Recall writes as the kernel applies them: batches of logged messages into Neo4j.

``RecallStore.log_messages`` enqueues; the kernel worker (or a replay) calls
``apply_backlog_batch`` with consecutive logged batches: one ownership read, one
embedding call for every new message but tool bookkeeping, then one ``UNWIND`` write per
session under the learner's lock (``seq`` assigned there, ``NEXT`` chain relinked).
Message ids are MERGE keys, so a redelivered batch writes nothing.

Tool results and rendered tool calls (``agent.memory.message_kinds``) are stored, chained
and found by full text, but get no vector: every reader drops them (``blended_search``,
the turn contexts), and a tool's output can be long (the most expensive encode of a turn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import neo4j

from agent.errors import InvalidInputError
from agent.graphdb.schema import learner_key
from agent.graphdb.store import Neo4jStore, fetch
from agent.kernel.events import OP_RECALL
from agent.memory.message_kinds import is_bookkeeping
from agent.memory.queries import (
    CREATE_MESSAGES,
    CREATE_MESSAGES_ATTENDED,
    EXISTING_MESSAGES,
    LOCK_LEARNER,
    RELINK_CHAIN,
)

OP_LOG = OP_RECALL
"""The kernel operation this store applies (a batch of logged messages)."""


class RecallWriter(Neo4jStore):
    """The write half of recall storage (``RecallStore`` adds logging and reads)."""

    backlog_ops = frozenset({OP_LOG})

    async def apply_backlog_entry(self, op: str, payload: dict[str, Any]) -> None:
        """Apply one logged batch (MERGE on ids, so replays are idempotent)."""
        await self.apply_backlog_batch(op, [payload])

    async def apply_backlog_batch(self, op: str, payloads: Sequence[dict[str, Any]]) -> None:
        """Apply consecutive logged batches: one ownership read, one embedding call, a write per session."""
        if op != OP_LOG:
            raise InvalidInputError(f"recall store cannot apply {op!r}")
        await self._log_many(payloads)

    async def _log(self, payload: dict[str, Any]) -> int:
        return await self._log_many([payload])

    async def _log_many(self, payloads: Sequence[dict[str, Any]]) -> int:
        groups: dict[tuple[str, str], dict[str, dict[str, Any]]] = {}
        for payload in payloads:
            group = groups.setdefault((payload["learner_id"], payload["session_id"]), {})
            for message in payload["messages"]:
                group.setdefault(message["id"], message)
        ids = [i for group in groups.values() for i in group]

        async def existing(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
            return await fetch(tx, EXISTING_MESSAGES, ids=ids)

        known = {r["id"]: r["owner"] for r in await self.read(existing)}
        fresh_groups: list[tuple[str, str, list[dict[str, Any]]]] = []
        for (learner_id, session_id), group in groups.items():
            foreign = [i for i in group if i in known and known[i] != learner_id]
            if foreign:
                raise InvalidInputError(f"message ids already used by another learner: {foreign[:3]}")
            fresh = [m for i, m in group.items() if i not in known]
            if fresh:
                fresh_groups.append((learner_id, session_id, fresh))
        if not fresh_groups:
            return 0
        said = [m for _, _, f in fresh_groups for m in f if not is_bookkeeping(m["role"], m["content"])]
        vectors = iter(await self.embed_documents([m["content"] for m in said]) if said else [])
        created = 0
        for learner_id, session_id, fresh in fresh_groups:
            embedded = [None if is_bookkeeping(m["role"], m["content"]) else next(vectors) for m in fresh]
            created += await self._write_session(learner_id, session_id, fresh, embedded)
        return created

    async def _write_session(
        self,
        learner_id: str,
        session_id: str,
        fresh: list[dict[str, Any]],
        embeddings: list[list[float] | None],
    ) -> int:
        base_row = {
            "learner_id": learner_id,
            "learner_key": learner_key(learner_id),
            "session_id": session_id,
        }
        model = self.embeddings.model_name

        async def work(tx: neo4j.AsyncTransaction) -> int:
            now = self.now_iso()
            base = (await fetch(tx, LOCK_LEARNER, learner_id=learner_id, now=now))[0]["base"]
            # Another writer may have stored some of them since the read above.
            raced = {r["id"] for r in await fetch(tx, EXISTING_MESSAGES, ids=[m["id"] for m in fresh])}
            rows, links, seq = [], [], base
            for message, vector in zip(fresh, embeddings, strict=True):
                if message["id"] in raced:
                    continue
                if message["seq"] is None:
                    seq += 1
                    message_seq = seq
                else:
                    message_seq = message["seq"]
                    seq = max(seq, message_seq)
                row = {k: v for k, v in message.items() if v is not None and k != "attended"}
                links.extend({**t, "message_id": message["id"]} for t in message.get("attended") or ())
                vector_row = {"embedding": vector, "embedding_model": model} if vector is not None else {}
                rows.append({**row, **base_row, "seq": message_seq, **vector_row})
            if not rows:
                return 0
            # Attended sensory items are promoted by the same statement (no extra round trip).
            params = {"learner_id": learner_id, "new_base": seq, "rows": rows}
            if links:
                params.update(links=links, now=now)
            query = CREATE_MESSAGES_ATTENDED if links else CREATE_MESSAGES
            created = (await fetch(tx, query, **params))[0]["created"]
            await fetch(
                tx,
                RELINK_CHAIN,
                learner_id=learner_id,
                session_id=session_id,
                from_seq=min(r["seq"] for r in rows),
            )
            return int(created)

        return await self.write(work)
