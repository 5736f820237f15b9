"""``conversation_search`` for window baselines: it searches only what the window holds."""

from __future__ import annotations

import json
from collections.abc import Sequence

from langchain_core.messages import AnyMessage
from langchain_core.tools import BaseTool, tool

from bench.ablations.baseline_policies import search_window


def make_window_tools(window: Sequence[AnyMessage], page_size: int = 5) -> list[BaseTool]:
    """Tools over one prompt's visible ``window`` (built per step, so they see that window only)."""
    visible = list(window)

    @tool
    async def conversation_search(query: str, page: int = 0) -> str:
        """Search the messages in your context window. Pages start at 0."""
        hits = search_window(visible, query, k=page_size * (page + 1))[page * page_size :]
        return json.dumps({"results": hits, "page": page})

    return [conversation_search]
