"""The agent's default conversation search: ranked by derived turn contexts, answered with messages.

Every conversational turn of every session gets a ``turn_context`` archival memory at
write time (``agent.kernel.derive``: its date, the turn and the turn it replies to).
:func:`search_conversation` ranks those memories with the run's recipe
(``Context.search_recipe``) and returns the verbatim messages they stand for, in that
order (role, session and seq as ``RecallStore.search`` gives them), so callers see the
same kind of hit as before, ranked by the richer representation. It is what the LoCoMo
benchmark's "KAG default" row measures (``bench/locomo``): the same call.

Messages logged but not drained by the kernel worker yet have no turn context; they
come from the kernel stream's tail and are fused into page 0 (read-your-writes), as
``RecallStore.search`` does. When Neo4j is down the archival store's degraded search
answers and its hits are returned as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import neo4j

from agent.errors import StoreUnavailableError
from agent.graphdb.store import fetch
from agent.kernel.derive import TURN_KIND
from agent.memory.recent import merge_fresh
from agent.search.conversation_queries import TURN_MESSAGES
from agent.search.recipes import SearchRecipe
from agent.search.results import SearchHit, SearchPage

if TYPE_CHECKING:
    from agent.memory.stores import MemoryStores

TURN_KINDS = (TURN_KIND,)
"""What the default conversation search ranks: the kernel's turn contexts."""


async def search_conversation(
    stores: MemoryStores,
    learner_id: str,
    query: str,
    *,
    recipe: str | SearchRecipe,
    page: int = 0,
    page_size: int = 5,
) -> SearchPage:
    """One page of the learner's messages for ``query``, ranked by their turn contexts (``recipe``)."""
    found = await stores.archival.search(
        learner_id, query, page=page, page_size=page_size, recipe=recipe, kinds=TURN_KINDS
    )
    if found.results and not found.degraded:
        found = await _as_messages(stores, learner_id, found)
    return merge_fresh(found, await stores.recall.fresh(learner_id), query)


async def _as_messages(stores: MemoryStores, learner_id: str, found: SearchPage) -> SearchPage:
    """``found`` with each turn context replaced by its message (kept when the message is gone)."""
    ids = [hit.id for hit in found.results]

    async def work(tx: neo4j.AsyncTransaction) -> list[dict[str, Any]]:
        return await fetch(tx, TURN_MESSAGES, ids=ids, learner_id=learner_id)

    try:
        rows = {r["context_id"]: r for r in await stores.recall.read(work)}
    except StoreUnavailableError:
        return found
    hits = []
    for hit in found.results:
        row = rows.get(hit.id)
        if row is None:
            hits.append(hit)
            continue
        meta = {k: row[k] for k in ("session_id", "seq", "role") if row.get(k) is not None}
        meta.update(label="Message", turn_context=hit.id)
        hits.append(
            SearchHit(
                id=row["id"],
                text=row["text"] or "",
                score=hit.score,
                created_at=row["created_at"],
                kind="message",
                scores=dict(hit.scores),
                metadata=meta,
            )
        )
    return SearchPage(
        results=hits,
        page=found.page,
        page_size=found.page_size,
        recipe=found.recipe,
        degraded=found.degraded,
        has_more=found.has_more,
        requested_recipe=found.requested_recipe,
    )
