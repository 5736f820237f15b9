"""Write-time derivation: the ``:TurnSentence`` nodes of every conversational turn.

A turn context (``agent.kernel.derive``) embeds a whole turn with its date and the turn it
replies to, so one vector stands for everything the turn says. A turn that names a thing
in passing ("Caroline: Thanks! I'm reading Dune right now. How was camping?") scores low
for a question about that thing ("What books has Caroline read?"): the other sentences
dilute the vector. Each sentence of the turn is therefore embedded on its own as well
(fine-grained retrieval units: Chen et al. 2023, "Dense X Retrieval"), and the search's
``sentence`` retriever ranks turn contexts by their best sentence
(``SearchRecipe.sentence_weight``).

Sentences come from the language layer (``agent.language.sentences``), which keeps code
names, versions and URLs whole; sentences shorter than :data:`MIN_WORDS` words are left
out. A transcript's ``"Name: "`` label is kept on every sentence, and ids are
``<turn context id>~<n>``, so a hit maps back to its turn context without a round trip and
deriving twice writes nothing new.

The worker's idle rounds split the new turn contexts of the learners :func:`mark_pending`
marked (:func:`derive_pending`), so a burst of sessions pays these encodes after it, not
during it. They are their own label, not ``:Memory``, so archival search, reflection and
decay never see them; erasure deletes them with the learner, and
:func:`backfill_sentences` derives them for older turn contexts.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from agent.graphdb.store import fetch
from agent.kernel.derive_queries import TURN_CONTEXTS_WITHOUT_SENTENCES, WRITE_SENTENCES
from agent.language.sentences import split_sentences
from agent.turns import TURN_KIND, sentence_id, turn_of

if TYPE_CHECKING:
    from agent.kernel.stream import KernelStream
    from agent.memory.archival import ArchivalStore
    from agent.memory.recall import RecallStore


class TurnStores(Protocol):
    """What write-time derivation uses of ``agent.memory.stores.MemoryStores``.

    Typed by what it uses, so the kernel's derivation never imports the stores module
    (which registers this derivation as its backlog's hooks: an import circle otherwise).
    """

    @property
    def archival(self) -> ArchivalStore:
        """Turn contexts are archival memories."""

    @property
    def recall(self) -> RecallStore:
        """The messages turn contexts come from."""

    @property
    def kernel(self) -> KernelStream:
        """The kernel stream (its Redis and key prefix hold the pending learners)."""


MIN_WORDS = 4
"""Sentences shorter than this say too little to rank a turn on their own ("Thanks!", "Wow, so
cool."); chosen against keeping every sentence by leave one conversation out on LoCoMo
(docs/evaluation/locomo.md)."""
MAX_SENTENCES = 12
"""Sentences kept per turn (the first ones): a pasted essay does not flood the index."""
_LABEL = re.compile(r"^([A-Z][\w.'-]*(?: [A-Z][\w.'-]*){0,2}): (?=\S)")


def speaker_label(turn: str) -> str:
    """The turn's ``"Name: "`` speaker label (up to three capitalised words), or ``""``."""
    found = _LABEL.match(turn)
    return found.group(0) if found else ""


def sentences(turn: str) -> list[str]:
    """The turn's sentences of at least :data:`MIN_WORDS` words, each with the turn's speaker label."""
    label = speaker_label(turn)
    body = turn[len(label) :].strip()
    kept = [s for s in split_sentences(body) if len(s.split()) >= MIN_WORDS]
    return [f"{label}{s}" for s in kept[:MAX_SENTENCES]]


def sentence_rows(turn_drafts: Sequence[Mapping[str, Any]], turns: Sequence[str]) -> list[dict[str, Any]]:
    """Per turn context draft (``turns[i]`` is draft ``i``'s turn): its id and its sentences' rows.

    ``[{id, rows: [{id, text, session_id, disclosure, occurred_at}]}]``: what ``WRITE_SENTENCES``
    stores, but the embeddings. A turn without a long enough sentence has no rows.
    """
    out = []
    for draft, turn in zip(turn_drafts, turns, strict=True):
        ctx = str(draft["memory_id"])
        rows = [
            {
                "id": sentence_id(ctx, n),
                "text": text,
                "session_id": draft.get("session_id"),
                "disclosure": draft.get("disclosure"),
                "occurred_at": draft.get("occurred_at"),
            }
            for n, text in enumerate(sentences(turn))
        ]
        out.append({"id": ctx, "rows": rows})
    return out


async def write_sentences(
    stores: TurnStores,
    learner_id: str,
    turn_drafts: Sequence[Mapping[str, Any]],
    turns: Sequence[str],
    known: Mapping[str, Sequence[float]] | None = None,
) -> int:
    """Embed and store the sentences of the learner's turn contexts (idempotent); returns how many.

    ``known``: vectors this embedding model already made, by text; those are not encoded
    again. Derived data: on a Neo4j error the worker redelivers the batch (nothing is parked).
    """
    per_turn = sentence_rows(turn_drafts, turns)
    if not per_turn:
        return 0
    known = known or {}
    rows = [row for turn in per_turn for row in turn["rows"]]
    fresh = [r for r in rows if r["text"] not in known]
    vectors = iter(await stores.archival.embed_documents([r["text"] for r in fresh]) if fresh else [])
    model = stores.archival.embeddings.model_name
    for row in rows:
        reused = known.get(row["text"])
        row["embedding"] = list(reused) if reused is not None else next(vectors)
        row["embedding_model"] = model

    async def work(tx: Any) -> int:
        [out] = await fetch(tx, WRITE_SENTENCES, learner_id=learner_id, turns=per_turn)
        return int(out["written"])

    await stores.archival.write(work)
    return len(rows)


BACKFILL_BATCH = 200
"""Turn contexts read, split, embedded and written per round by :func:`backfill_sentences`."""
IDLE_BATCH = 50
"""Turn contexts per round of the worker's idle pass (:func:`derive_pending`): one round is one
embedding call, and events that arrive meanwhile wait for it."""


def pending_key(stores: TurnStores) -> str:
    """The Redis set of learners whose newest turn contexts may still lack their sentences."""
    return pending_set_key(stores.kernel.prefix)


def pending_set_key(prefix: str) -> str:
    """:func:`pending_key` for a kernel key ``prefix`` (erasure removes the learner from it)."""
    return f"{prefix}:kernel:sentences-pending"


async def mark_pending(stores: TurnStores, learner_id: str) -> None:
    """Note that ``learner_id`` has turn contexts to split (the worker's idle pass does it)."""
    await stores.kernel.redis.sadd(pending_key(stores), learner_id)


async def derive_round(stores: TurnStores, learner_id: str | None, limit: int) -> tuple[int, int]:
    """One round: up to ``limit`` turn contexts without sentences, split, embedded, written.

    The turn is its message's text or, when the message is gone, the turn read back out of
    the stored text (``agent.turns.turn_of``). Returns (turn contexts, sentences).
    """
    found = await stores.archival.read(
        lambda tx: fetch(
            tx, TURN_CONTEXTS_WITHOUT_SENTENCES, kind=TURN_KIND, learner_id=learner_id, limit=limit
        )
    )
    by_learner: dict[str, list[dict[str, Any]]] = {}
    for row in found:
        by_learner.setdefault(str(row["learner_id"]), []).append(row)
    written = 0
    for owner, rows in by_learner.items():
        drafts = [{**r, "memory_id": r["id"]} for r in rows]
        texts = [r["content"] if r["content"] is not None else turn_of(r["text"] or "") for r in rows]
        written += await write_sentences(stores, owner, drafts, texts, message_vectors(stores, rows))
    return len(found), written


def message_vectors(stores: TurnStores, rows: Sequence[Mapping[str, Any]]) -> dict[str, Sequence[float]]:
    """The turns' message vectors by message text, where this embedding model made them.

    A turn of one sentence (with its speaker label, if any) splits into the message's own
    text, which recall already embedded. Short learner turns are often that ("can you explain
    recursion again?"): every sentence of the kernel bench's turns; 1.6% of LoCoMo's, whose
    turns run longer.
    """
    model = stores.archival.embeddings.model_name
    return {
        str(r["content"]): r["content_embedding"]
        for r in rows
        if r.get("content") is not None and r.get("content_embedding") and r.get("content_model") == model
    }


async def derive_pending(stores: TurnStores, learner_id: str | None = None, limit: int = IDLE_BATCH) -> int:
    """One round of the worker's deferred pass: sentences for a learner marked pending.

    ``learner_id`` None: any marked learner. A learner with nothing left is unmarked. Returns
    how many turn contexts the round split (0: nothing pending).
    """
    key = pending_key(stores)
    learner = learner_id if learner_id is not None else await stores.kernel.redis.srandmember(key)
    if learner is None:
        return 0
    learner = learner.decode() if isinstance(learner, bytes) else str(learner)
    turns, _ = await derive_round(stores, learner, limit)
    if turns < limit:  # all done (a write that lands later marks the learner again)
        await stores.kernel.redis.srem(key, learner)
    return turns


async def backfill_sentences(
    stores: TurnStores, learner_id: str | None = None, *, batch: int = BACKFILL_BATCH
) -> tuple[int, int]:
    """Derive the sentences of turn contexts that have none yet (one learner's, or everyone's).

    A written turn context is marked, so a second run does nothing. Returns (turn contexts,
    sentences).
    """
    if batch < 1:
        raise ValueError("batch must be >= 1")
    turns_done = sentences_done = 0
    while True:
        turns, written = await derive_round(stores, learner_id, batch)
        if not turns:
            return turns_done, sentences_done
        turns_done += turns
        sentences_done += written
