"""The start-up heap of a long-lived process, frozen out of the cyclic collector's full passes.

A server or kernel worker allocates most of its objects at start (the embedding model,
drivers, compiled graphs: ~600k objects) and keeps them for its lifetime. In the collector's
oldest generation every full collection walks them all: ~340 ms each on this 2-core machine,
paid by whichever turn allocates at that moment (it set the heartbeat bench's p95).
``gc.freeze`` moves them to a permanent generation the collector skips; everything allocated
later is collected as before. The local embedding model is loaded first so it is included;
a remote one (Gemini) has nothing to load. So is the language layer's parser
(``agent.language.grammar``): loading it reads its files, which on the event loop of a
request would block every other request (``langgraph dev`` stops such a call).
"""

from __future__ import annotations

import asyncio
import gc
import logging

from agent.language import grammar
from agent.models.embeddings import MiniLMEmbeddings
from agent.resources import Resources

log = logging.getLogger(__name__)


async def freeze_startup_heap(resources: Resources | None = None) -> int:
    """Load ``resources``' local embedding model and the parser, collect, freeze; return the frozen count."""
    if resources is not None and isinstance(resources.embeddings, MiniLMEmbeddings):
        await asyncio.to_thread(resources.embeddings.preload)
    await asyncio.to_thread(grammar.pipeline)
    gc.collect()
    gc.freeze()
    frozen = gc.get_freeze_count()
    log.info("start-up heap frozen: %d objects out of the collector's full passes", frozen)
    return frozen
