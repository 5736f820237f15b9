"""The agent's default conversation search: ranked by derived turn contexts, answered with messages.

Every conversational turn of every session gets a ``turn_context`` archival memory at
write time (``agent.kernel.derive``: its date, the turn and the turn it replies to).
``search_conversation`` ranks those memories with the run's recipe and returns the verbatim
messages they stand for, in that order and in the search's own round trips. It is what the
LoCoMo benchmark's "KAG default" row measures (``bench/locomo``): the same call.

Messages logged but not drained by the kernel worker yet have no turn context; they
come from the kernel stream's tail and are fused into page 0 (read-your-writes), as
``RecallStore.search`` does. When Neo4j is down the archival store's degraded search
answers and its hits are returned as they are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.memory.recent import merge_fresh
from agent.search.recipes import SearchRecipe
from agent.search.results import SearchPage
from agent.turns import TURN_KIND

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
    found = await stores.archival.search_turns(
        learner_id, query, page=page, page_size=page_size, recipe=recipe, kinds=TURN_KINDS
    )
    return merge_fresh(found, await stores.recall.fresh(learner_id), query)
