"""What the heartbeat's nodes share: the stores and tools, built once per resources bundle.

A graph is compiled once (at import, for the server) but its async clients belong
to an event loop, so ``Wiring`` builds the stores and the tools the first time a
node runs on a bundle and hands the same objects to every node and step after
that. Nothing is rebuilt per step or per run; the run's knobs travel per call
(``MemoryKnobs``).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.tools import BaseTool

from agent.memory.stores import MemoryStores
from agent.resources import Resources

Provider = Callable[[], Resources]
ToolsFactory = Callable[[MemoryStores], list[BaseTool]]


@dataclass(frozen=True, eq=False)
class Wired:
    """The stores and tools over one resources bundle."""

    resources: Resources
    stores: MemoryStores
    tools: tuple[BaseTool, ...]

    @property
    def registry(self) -> dict[str, BaseTool]:
        """Tools by name, for the tool runner."""
        return {t.name: t for t in self.tools}


class Wiring:
    """Builds ``Wired`` once per bundle for one graph build."""

    def __init__(self, provide: Provider, make_tools: ToolsFactory) -> None:
        """``provide`` gives the running loop's bundle; ``make_tools`` comes from ``tools/``."""
        self._provide = provide
        self._make_tools = make_tools
        self._built: weakref.WeakKeyDictionary[Resources, Wired] = weakref.WeakKeyDictionary()

    def __call__(self) -> Wired:
        """The stores and tools of the current bundle."""
        resources = self._provide()
        wired = self._built.get(resources)
        if wired is None:
            stores = MemoryStores.wire(resources)
            wired = self._built[resources] = Wired(resources, stores, tuple(self._make_tools(stores)))
        return wired
