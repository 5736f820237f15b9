"""``consult_memory``: the heartbeat asks the memory kernel for a brief instead of raw hits.

A thin wrapper over ``agent.kernel.consult.consult`` (cache → search → enrich →
synthesise → boost). ``learner_id`` is ``InjectedState``: hidden from the model's
schema and supplied by the graph, never by the model. The result is compact JSON: the
brief, the confidence, whether it came from the cache, and the top items (text cut as
in ``tools/output.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Annotated, Any

from langchain_core.tools import BaseTool, tool
from langgraph.prebuilt import InjectedState

from agent.kernel.consult import ConsultDeps, consult
from agent.resources import Resources
from tools.output import HIT_TEXT_CHARS, dumps

if TYPE_CHECKING:
    from agent.memory.stores import MemoryStores

LearnerId = Annotated[str, InjectedState("learner_id")]
ITEMS = 5
"""Items of each list the model sees (the brief already summarises them)."""
FACT_KEYS = ("id", "text", "kind", "store", "origin", "current", "created_at")
ALERT_KEYS = ("kind", "id", "text", "due_at", "concept", "count")


def _short(item: Mapping[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    row = {k: item[k] for k in keys if item.get(k) is not None}
    text = str(row.get("text") or "")
    if len(text) > HIT_TEXT_CHARS:
        row["text"], row["truncated"] = text[: HIT_TEXT_CHARS - 1] + "…", True
    return row


def make_consult_tools(stores: MemoryStores, provider: Resources | Callable[[], Resources]) -> list[BaseTool]:
    """``[consult_memory]`` over ``stores`` (the heartbeat's) and the bundle ``provider`` gives."""
    provide = provider if callable(provider) else (lambda: provider)

    @tool
    async def consult_memory(
        query: str,
        learner_id: LearnerId,
        topic_filters: list[str] | None = None,
        max_results: int = 5,
        include_insights: bool = True,
    ) -> str:
        """Ask long-term memory for a brief on a question or topic: facts, insights, patterns, alerts.

        Use it before explaining a topic the learner has studied before, or to see what they
        struggle with. topic_filters: concepts such as "sql.joins"; max_results 1-50.
        """
        body = {
            "query": query,
            "max_results": max_results,
            "include_insights": include_insights,
            "topic_filters": list(topic_filters or []),
        }
        answer = await consult(ConsultDeps.wire(provide(), stores), learner_id, body)
        return dumps(
            {
                "brief": answer.synthesized_brief,
                "confidence": answer.confidence,
                "cached": answer.cached,
                "facts": [_short(f, FACT_KEYS) for f in answer.relevant_facts[:ITEMS]],
                "insights": [_short(i, ("id", "text", "concept")) for i in answer.insights[:ITEMS]],
                "patterns": [
                    _short(p, ("id", "kind", "description", "concept")) for p in answer.patterns[:ITEMS]
                ],
                "alerts": [_short(a, ALERT_KEYS) for a in answer.proactive_alerts[:ITEMS]],
            }
        )

    return [consult_memory]
