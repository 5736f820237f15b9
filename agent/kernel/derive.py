"""Write-time derivation: the ``turn_context`` archival memory of every conversational turn.

(Their sentences come after, when the worker is idle: ``agent.kernel.sentences``.)

The kernel worker calls :func:`derive_turn_contexts` after it commits a recall batch, so
every live session gets the representation the default search recipe ranks (and the
LoCoMo benchmark feeds its conversations through the same worker: no representation
exists only for the benchmark). A turn context is a contextual chunk, built without an
LLM from the message alone:

    "<date>. <the turn> (replying to <the turn before it>)"

``<date>`` is the message's ``created_at`` in LoCoMo's style (``agent.turns.date_text``);
the turn before it is the session's previous conversational turn.

Each turn context also records whether its turn is a **disclosure** (:func:`is_disclosure`):
a first-person statement ("I signed up for a pottery class"), not a question and not a
reaction that speaks of no one. Search recipes with ``disclosure_weight`` rank the other
turns lower (``agent.search.recipes``): what people say about themselves is what a memory
of them is made of. Turn contexts derived before the flag existed get it from
:func:`backfill_disclosure` (``kag kernel backfill``), read back out of their text.

Only conversational turns are derived (:func:`is_conversation_turn`): user and
assistant messages with text; never tool results, tool calls or the offline policy's
own replies (tutor boilerplate, starting with ``OFFLINE_BANNER``). Each memory's id is
derived from its message id (``agent.turns.turn_context_id``), so deriving a batch twice (a
redelivered stream entry) writes nothing new, and it links ``DERIVED_FROM`` its message.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import partial
from typing import Any

import neo4j

from agent.graphdb.store import fetch
from agent.kernel.derive_queries import PREVIOUS_MESSAGES, SET_DISCLOSURE, UNFLAGGED_TURN_CONTEXTS
from agent.kernel.sentences import TurnStores, mark_pending
from agent.models.offline_reading import OFFLINE_BANNER
from agent.turns import (
    CALL_MARK,
    TURN_KIND,
    date_text,
    turn_context_id,
    turn_context_text,
    turn_of,
)

TURN_ROLES = ("user", "assistant")
EMPTY = "(empty)"
"""The heartbeat's content for a message without text."""
LOOKBACK = 20
"""Messages before a batch read from Neo4j to find the previous conversational turn."""


def is_conversation_turn(role: str | None, content: str | None) -> bool:
    """True for what someone said: a user or assistant message with text.

    False for tool results, tool calls (rendered ``[calls name(args)]``), empty
    messages and the offline policy's own replies.
    """
    text = (content or "").strip()
    return (
        role in TURN_ROLES
        and text not in {"", EMPTY}
        and not text.startswith(CALL_MARK)
        and not text.startswith(OFFLINE_BANNER)
    )


_FIRST_PERSON = re.compile(r"\b(?:I|I'm|I've|I'd|I'll|me|my|mine|we|we're|we've|our|us)\b", re.IGNORECASE)
_ANNOTATION = re.compile(r"\s*\[[^\[\]]*\]\s*$")
"""A trailing bracketed annotation (``[shares a photo: …]``): not part of what was said."""


def is_disclosure(turn: str) -> bool:
    """True when ``turn`` is a first-person statement: it speaks of "I/my/we" and is no question.

    The turn is the message's content (a ``"Speaker: "`` prefix is fine: names are not
    first-person words); a trailing bracketed annotation is ignored when judging whether
    it ends as a question. English only, like the keyword rules of ``agent.search.rewrite``.
    """
    said = _ANNOTATION.sub("", turn or "").rstrip()
    return bool(said) and not said.endswith("?") and bool(_FIRST_PERSON.search(said))


def _ordered(messages: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Distinct messages (first occurrence of an id) in ``seq`` order; without seq, as given."""
    first: dict[str, Mapping[str, Any]] = {}
    for message in messages:
        first.setdefault(str(message["id"]), message)
    unique = list(first.values())
    if all(isinstance(m.get("seq"), int) for m in unique):
        return sorted(unique, key=lambda m: m["seq"])
    return unique


def turn_context_drafts(
    session_id: str, messages: Sequence[Mapping[str, Any]], previous: str | None = None
) -> list[dict[str, Any]]:
    """``ArchivalStore.insert_many`` drafts for the conversational turns of one session's batch.

    ``previous`` is the session's last conversational turn before the batch (None at first).
    """
    drafts = []
    for message in _ordered(messages):
        content = message.get("content")
        if not is_conversation_turn(message.get("role"), content):
            continue
        created_at = message.get("created_at")
        drafts.append(
            {
                "content": turn_context_text(date_text(created_at), str(content), previous),
                "kind": TURN_KIND,
                "source_ids": [str(message["id"])],
                "occurred_at": created_at,
                "session_id": session_id,
                "memory_id": turn_context_id(str(message["id"])),
                "disclosure": is_disclosure(str(content)),
            }
        )
        previous = str(content)
    return drafts


async def previous_turns(stores: TurnStores, learner_id: str, message_ids: Sequence[str]) -> list[str | None]:
    """For each message id: the content of the last conversational turn before it in its session.

    One read for all of them (a recall run of many events derives in one round trip).
    """
    if not message_ids:
        return []

    params = {"message_ids": list(message_ids), "learner_id": learner_id, "roles": list(TURN_ROLES)}
    rows = await stores.recall.read(lambda tx: fetch(tx, PREVIOUS_MESSAGES, **params, limit=LOOKBACK))
    found: dict[int, str] = {}
    for row in rows:  # newest first within each index
        if row["i"] not in found and is_conversation_turn(row["role"], row["content"]):
            found[row["i"]] = row["content"]
    return [found.get(i) for i in range(len(message_ids))]


async def derive_recall_turn_contexts(
    stores: TurnStores, learner_id: str, payloads: Sequence[Mapping[str, Any]]
) -> int:
    """Write the ``turn_context`` memories of a committed run of recall events, in one go.

    Each payload is derived as :func:`derive_turn_contexts` derives it alone, but the run takes
    one read, one embedding call and one write. Returns how many turn contexts the run has.
    """
    batches = []
    for payload in payloads:
        ordered = _ordered(payload["messages"])
        if any(is_conversation_turn(m.get("role"), m.get("content")) for m in ordered):
            batches.append((str(payload["session_id"]), ordered))
    if not batches:
        return 0
    previous = await previous_turns(stores, learner_id, [str(ordered[0]["id"]) for _, ordered in batches])
    drafts = [
        draft
        for (session_id, ordered), before in zip(batches, previous, strict=True)
        for draft in turn_context_drafts(session_id, ordered, before)
    ]
    records = await stores.archival.insert_many(learner_id, drafts)
    # Their sentences cost one more encode per turn: the worker derives them when idle.
    await mark_pending(stores, learner_id)
    return len(records)


async def derive_turn_contexts(
    stores: TurnStores, learner_id: str, session_id: str, messages: list[dict]
) -> int:
    """Write the ``turn_context`` memory of every conversational turn in a committed recall batch.

    Idempotent: memory ids come from message ids. Returns how many turn contexts the batch has.
    """
    return await derive_recall_turn_contexts(
        stores, learner_id, [{"session_id": session_id, "messages": messages}]
    )


BACKFILL_BATCH = 500
"""Turn contexts flagged per write transaction by :func:`backfill_disclosure`."""


def disclosed(text: str | None) -> bool:
    """:func:`is_disclosure` of the turn inside a stored turn context's text."""
    return is_disclosure(turn_of(text or ""))


async def _flag_batch(tx: neo4j.AsyncTransaction, learner_id: str | None, limit: int) -> int:
    """Read up to ``limit`` unflagged turn contexts and flag them, in one write transaction."""
    found = await fetch(tx, UNFLAGGED_TURN_CONTEXTS, kind=TURN_KIND, learner_id=learner_id, limit=limit)
    if not found:
        return 0
    rows = [{"id": r["id"], "learner_id": r["learner_id"], "disclosure": disclosed(r["text"])} for r in found]
    [row] = await fetch(tx, SET_DISCLOSURE, rows=rows, kind=TURN_KIND)
    return int(row["flagged"])


async def backfill_disclosure(
    stores: TurnStores, learner_id: str | None = None, *, batch: int = BACKFILL_BATCH
) -> int:
    """Flag the turn contexts that have no ``disclosure`` flag yet (one learner's, or everyone's).

    The turn is read back out of the stored text and judged as the worker judges it. Idempotent:
    a second run flags nothing. Returns how many were flagged.
    """
    if batch < 1:
        raise ValueError("batch must be >= 1")
    flagged = 0
    while done := await stores.archival.write(partial(_flag_batch, learner_id=learner_id, limit=batch)):
        flagged += done
    return flagged
