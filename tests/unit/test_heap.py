"""``freeze_startup_heap``: what exists at start leaves the collector's view; later garbage does not."""

from __future__ import annotations

import gc
import weakref

from agent.heap import freeze_startup_heap


class Node:
    """A cyclic object only the cyclic collector can free."""

    def __init__(self) -> None:
        self.me = self


async def test_start_up_objects_are_frozen_and_later_cycles_still_collected() -> None:
    try:
        kept = Node()
        frozen = await freeze_startup_heap()
        assert frozen > 0 and gc.get_freeze_count() > 0
        assert not any(o is kept for o in gc.get_objects())  # frozen: out of every generation
        later = Node()
        gone = weakref.ref(later)
        del later
        gc.collect()
        assert gone() is None  # allocated after the freeze: collected as usual
    finally:
        gc.unfreeze()


async def test_the_parser_is_loaded_before_the_freeze() -> None:
    """A request never loads spaCy on the event loop (file reads ``langgraph dev`` stops)."""
    from agent.language import grammar

    grammar.pipeline.cache_clear()
    try:
        await freeze_startup_heap()
        assert grammar.pipeline.cache_info().currsize == 1
    finally:
        gc.unfreeze()
