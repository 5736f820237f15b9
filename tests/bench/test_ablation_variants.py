"""The auto-archive ablation is a graph variant in bench, not a switch in the product's Context."""

from __future__ import annotations

import pytest
from langgraph.graph import StateGraph

from agent.context import Context
from agent.errors import ConfigError
from bench.ablations.runner import without_auto_archive
from graphs.heartbeat import make_builder


def _monitor_targets(builder: StateGraph) -> set[str]:
    graph = builder.compile().get_graph()
    return {edge.target for edge in graph.edges if edge.source == "monitor"}


def test_the_ablation_cuts_the_monitor_to_archive_route_and_keeps_the_rest() -> None:
    assert _monitor_targets(make_builder(None)) == {"archive", "compile"}
    cut = without_auto_archive(make_builder(None))
    assert _monitor_targets(cut) == {"compile"}
    assert "archive" in cut.nodes  # still built, never routed to
    assert "auto_archive" not in {f for f in Context.__dataclass_fields__}


def test_a_graph_without_the_route_is_refused() -> None:
    with pytest.raises(ConfigError, match="monitor"):
        without_auto_archive(StateGraph(dict))
